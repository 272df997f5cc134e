"""The configuration teams ship, end to end through the real SDKs and the scripted server: the
Responses API beside Chat Completions, reasoning models (gpt-5 / o-series) with reasoning_effort and a
judge that sends nothing they refuse, Anthropic extended thinking, and parameters the API refuses
ending as errors that name them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.cli import main as cli_main
from tests.builders import WEATHER_FUNCTION

SCRIPT = {
    "rules": [
        {
            "when": {"forced_tool": "submit_verdict"},
            "tool_calls": [{"arguments": {"verdict": "yes", "rationale": "ok"}}],
        },
        {
            "when": {"last_user": "(?i)weather in (?P<a>[A-Za-z]+) and (?P<b>[A-Za-z]+)", "turn": 1},
            "tool_calls": [
                {"name": "get_weather", "arguments": {"city": "{a}"}},
                {"name": "get_weather", "arguments": {"city": "{b}"}},
            ],
        },
        {
            "when": {"last_user": "(?i)weather in (?P<city>[A-Za-z]+)", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "It is {result.temp_c} degrees."},
    ],
    "default": {"text": "I do not know."},
}

TOOLS = [WEATHER_FUNCTION]


def suite_text(agent: str, judge: str, *, forecast_for_rome: bool = False) -> str:
    rome_tool = "get_forecast" if forecast_for_rome else "get_weather"
    return f"""version: 1
name: weather
agent:
{agent}
  system_prompt: You are a weather assistant.
  tools:
    - {{file: ../tools/weather.json}}
judge: {judge}
mocks:
  tools:
    get_weather:
      - returns: {{temp_c: 18}}
cases:
  - id: paris
    input: What's the weather in Paris?
    expect:
      calls: [{{tool: get_weather, args: {{city: Paris}}}}]
      output: {{contains: '18', criteria: [gives a temperature]}}
  - id: two-cities
    input: What's the weather in Paris and Oslo?
    expect:
      calls:
        - {{tool: get_weather, args: {{city: Paris}}}}
        - {{tool: get_weather, args: {{city: Oslo}}}}
      output: {{contains: '18'}}
  - id: rome
    input: What's the weather in Rome?
    expect:
      calls: [{{tool: {rome_tool}, args: {{city: Rome}}}}]
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / "tools").mkdir()
    (tmp_path / "suites").mkdir()
    tools = TOOLS + [{"name": "get_forecast", "description": "Forecast.", "inputSchema": {"type": "object"}}]
    (tmp_path / "tools" / "weather.json").write_text(json.dumps(tools))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")
    monkeypatch.setenv("CI", "true")
    return tmp_path


def run(repo: Path, server, monkeypatch, agent: str, judge: str, **kw: bool) -> tuple[int, dict]:
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    (repo / "suites" / "weather.suite.yaml").write_text(suite_text(agent, judge, **kw))
    out = repo / "r.json"
    code = cli_main(["run", "--root", str(repo), "--json", str(out)])
    return code, json.loads(out.read_text())


def verdicts(data: dict) -> dict[str, str]:
    return {c["case_id"]: c["status"] for c in data["suites"][0]["cases"]}


def test_one_suite_gives_the_same_verdicts_through_chat_and_responses(repo, model_server, monkeypatch):
    server = model_server(SCRIPT, record=True)
    results = {}
    for api in ("chat", "responses"):
        agent = (
            f"  provider: openai\n  model: gpt-4o\n  api: {api}\n"
            "  params: {temperature: 0, max_tokens: 300}"
        )
        judge = f"{{provider: openai, model: gpt-4o-mini, api: {api}}}"
        code, data = run(repo, server, monkeypatch, agent, judge, forecast_for_rome=True)
        assert code == 1
        results[api] = verdicts(data)
        record = data["suites"][0]["cases"][1]["trials"][0]["record"]
        assert [c["arguments"] for c in record["calls"]] == [{"city": "Paris"}, {"city": "Oslo"}]
        assert record["usage"]["input_tokens"] > 0
    assert (
        results["chat"]
        == results["responses"]
        == {"paris": "passed", "two-cities": "passed", "rome": "failed"}
    )
    paths = [r["path"] for r in server.requests]
    assert "/v1/chat/completions" in paths and "/v1/responses" in paths
    # The Responses requests carried the tool results back as function_call_output items.
    second_turn = [
        r["body"]
        for r in server.requests
        if r["path"] == "/v1/responses"
        and any(i.get("type") == "function_call_output" for i in r["body"]["input"])
    ]
    assert second_turn and all(b["max_output_tokens"] == 300 and "max_tokens" not in b for b in second_turn)
    outputs = [i for i in second_turn[0]["input"] if i.get("type") == "function_call_output"]
    assert outputs[0]["output"] == '{"temp_c": 18}'


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_a_reasoning_model_and_its_judge_send_nothing_the_family_refuses(
    api, repo, model_server, monkeypatch
):
    server = model_server(SCRIPT, record=True)
    agent = (
        f"  provider: openai\n  model: gpt-5-mini\n  api: {api}\n"
        "  params: {reasoning_effort: low, verbosity: low, max_tokens: 2000}"
    )
    judge = f"{{provider: openai, model: o4-mini, api: {api}, reasoning_effort: low}}"
    code, data = run(repo, server, monkeypatch, agent, judge)
    assert code == 0, data["suites"][0]["cases"]
    assert set(verdicts(data).values()) == {"passed"}
    assert server.status_counts.get("400") is None
    bodies = [r["body"] for r in server.requests]
    assert all("temperature" not in b and "max_tokens" not in b for b in bodies)
    judged = [b for b in bodies if b["model"] == "o4-mini"]
    assert judged, "the judge was asked"
    if api == "chat":
        assert all(b["reasoning_effort"] == "low" for b in bodies)
        assert all("max_completion_tokens" in b for b in bodies)
    else:
        assert all(b["reasoning"] == {"effort": "low"} for b in bodies)
        assert all("max_output_tokens" in b for b in bodies)
        # Reasoning items went back before the calls they led to.
        later = [b for b in bodies if any(i.get("type") == "function_call_output" for i in b["input"])]
        assert later and all(any(i.get("type") == "reasoning" for i in b["input"]) for b in later)


def test_a_temperature_the_reasoning_model_refuses_is_an_error_naming_it(repo, model_server, monkeypatch):
    server = model_server(SCRIPT)
    agent = "  provider: openai\n  model: o3\n  params: {temperature: 0}"
    code, data = run(repo, server, monkeypatch, agent, "{provider: openai, model: gpt-4o-mini}")
    assert code == 3
    case = data["suites"][0]["cases"][0]
    assert case["status"] == "error"
    error = case["trials"][0]["record"]["error"]
    assert "parameter 'temperature'" in error and "Only the default (1) value is supported" in error


def test_anthropic_extended_thinking_runs_tool_turns_and_judged_checks(repo, model_server, monkeypatch):
    server = model_server(SCRIPT, record=True)
    agent = "  provider: anthropic\n  model: claude-sonnet-4-6\n  params: {thinking: {budget_tokens: 2048}}"
    code, data = run(repo, server, monkeypatch, agent, "{provider: anthropic, model: claude-haiku-4-5}")
    assert code == 0, data["suites"][0]["cases"]
    assert server.status_counts.get("400") is None
    agent_bodies = [r["body"] for r in server.requests if r["body"]["model"] == "claude-sonnet-4-6"]
    assert all(b["thinking"] == {"type": "enabled", "budget_tokens": 2048} for b in agent_bodies)
    assert all(b["max_tokens"] > 2048 and "temperature" not in b.get("extra_body", b) for b in agent_bodies)
    judge_bodies = [r["body"] for r in server.requests if r["body"]["model"] == "claude-haiku-4-5"]
    assert judge_bodies and all("thinking" not in b and b["temperature"] == 0 for b in judge_bodies)
    # The thinking is shown in the transcript and never part of the scored output.
    record = data["suites"][0]["cases"][0]["trials"][0]["record"]
    thinking = [m["thinking"] for m in record["messages"] if m.get("thinking")]
    assert thinking and "I should decide which tool fits" in thinking[0]
    assert record["output"] == "It is 18 degrees."


def test_a_thinking_turn_sent_back_without_its_thinking_block_is_refused(model_server):
    """The scripted server holds the gate to the Messages API's rule (proves the test above)."""
    import anthropic

    server = model_server(SCRIPT)
    client = anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="k", max_retries=0)
    messages = [
        {"role": "user", "content": "What's the weather in Paris?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "{}"}]},
    ]
    with pytest.raises(anthropic.BadRequestError, match="must start with a thinking block"):
        client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=4096,
            thinking={"type": "enabled", "budget_tokens": 2048},
            messages=messages,
        )


@pytest.mark.parametrize(
    ("agent", "message", "line"),
    [
        (
            "  provider: anthropic\n  model: m\n  params:\n    max_tokens: 2000\n"
            "    thinking: {budget_tokens: 4000}",
            "budget_tokens (4000) must be below max_tokens (2000)",
            8,
        ),
        (
            "  provider: anthropic\n  model: m\n  params:\n    thinking: {budget_tokens: 2048}\n"
            "    temperature: 0",
            "with thinking, temperature may only be 1",
            8,
        ),
        (
            "  provider: anthropic\n  model: m\n  params:\n    reasoning_effort: low",
            "reasoning_effort is an OpenAI",
            7,
        ),
        (
            "  provider: openai\n  model: m\n  api: responses\n  params:\n    stop: END",
            "Responses API has no stop",
            8,
        ),
        (
            "  provider: openai\n  model: m\n  params:\n    max_tokens: 5\n    max_output_tokens: 5",
            "one output",
            8,
        ),
    ],
)
def test_settings_an_api_refuses_together_are_validate_errors_at_their_line(
    repo, capsys, agent, message, line
):
    (repo / "suites" / "weather.suite.yaml").write_text(
        suite_text(agent, "{provider: openai, model: gpt-4o}")
    )
    assert cli_main(["validate", str(repo / "suites")]) == 2
    out = capsys.readouterr()
    text = out.out + out.err
    assert message in text
    assert f"weather.suite.yaml:{line}:" in text


def test_every_new_parameter_validates_and_reaches_the_request(repo, model_server, monkeypatch):
    server = model_server(SCRIPT, record=True)
    agent = (
        "  provider: openai\n  model: qwen3\n  params:\n    top_p: 0.9\n    stop: ['###']\n"
        "    max_completion_tokens: 400\n"
        "    extra_body: {top_k: 20, chat_template_kwargs: {enable_thinking: false}}"
    )
    code, _ = run(repo, server, monkeypatch, agent, "{provider: openai, model: gpt-4o-mini}")
    assert code == 0
    body = next(r["body"] for r in server.requests if r["body"]["model"] == "qwen3")
    assert body["top_p"] == 0.9 and body["stop"] == ["###"] and body["max_completion_tokens"] == 400
    assert body["top_k"] == 20 and body["chat_template_kwargs"] == {"enable_thinking": False}


def test_max_cost_with_an_unpriced_model_exits_2_before_any_request(repo, model_server, monkeypatch, capsys):
    server = model_server(SCRIPT)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    agent = "  provider: openai\n  model: my-azure-deployment"
    (repo / "suites" / "weather.suite.yaml").write_text(
        suite_text(agent, "{provider: openai, model: gpt-4o}")
    )
    assert cli_main(["run", "--root", str(repo), "--max-cost", "1"]) == 2
    err = capsys.readouterr().err
    assert "the agent model 'my-azure-deployment' (openai) has no known price" in err
    assert "--prices FILE" in err
    assert server.request_count == 0
    # Given its price, the run goes ahead and the reports say where each price came from.
    (repo / "prices.yaml").write_text("my-azure-deployment: {input: 2.5, output: 10}\n")
    out = repo / "r.json"
    code = cli_main(
        [
            "run",
            "--root",
            str(repo),
            "--max-cost",
            "1",
            "--prices",
            str(repo / "prices.yaml"),
            "--json",
            str(out),
            "--markdown",
            str(repo / "r.md"),
        ]
    )
    assert code == 0
    assert server.request_count > 0
    prices = json.loads(out.read_text())["settings"]["prices"]
    assert prices["openai/my-azure-deployment"]["source"].endswith("prices.yaml:1")
    assert prices["openai/gpt-4o"]["source"] == "built-in table"
    assert "prices from: " in capsys.readouterr().out
    markdown = (repo / "r.md").read_text()
    assert "`openai/my-azure-deployment` 2.50 / 10.00" in markdown and "prices.yaml:1" in markdown


def test_a_bad_prices_file_exits_2_naming_its_line(repo, capsys):
    (repo / "suites" / "weather.suite.yaml").write_text(
        suite_text("  provider: openai\n  model: gpt-4o", "{provider: openai, model: gpt-4o}")
    )
    (repo / "prices.yaml").write_text("gpt-4o: {input: cheap, output: 1}\n")
    assert cli_main(["run", "--root", str(repo), "--prices", str(repo / "prices.yaml")]) == 2
    assert "prices.yaml:1" in capsys.readouterr().err


MCP_TOOLS_LIST = """{
  "jsonrpc": "2.0",
  "id": 2,
  "result": {
    "tools": [
      {
        "name": "get_weather",
        "title": "Weather",
        "description": "Current weather for a city.",
        "inputSchema": {
          "type": "object",
          "properties": {
            "city": {"type": "string"}
          },
          "required": ["city"]
        },
        "annotations": {"readOnlyHint": true}
      }
    ],
    "nextCursor": null
  }
}
"""


def test_an_mcp_tools_list_file_validates_runs_and_gets_advice_on_its_lines(
    repo, model_server, monkeypatch, capsys
):
    from gate.analysis.analyse import analyse
    from gate.files.results_file import load_results

    (repo / "tools" / "mcp.json").write_text(MCP_TOOLS_LIST)
    script = {
        "rules": [
            {
                "when": {"last_user": "(?i)weather in (?P<city>[A-Za-z]+)", "turn": 1},
                "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}, Europe"}}],
            },
            {"when": {"after_tool": "get_weather"}, "text": "It is {result.temp_c} degrees."},
        ]
    }
    server = model_server(script)
    suite = suite_text(
        "  provider: anthropic\n  model: claude-haiku-4-5", "{provider: openai, model: gpt-4o}"
    )
    suite = suite.replace("../tools/weather.json", "../tools/mcp.json").replace("get_forecast", "get_weather")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    (repo / "suites" / "weather.suite.yaml").write_text(suite)
    assert cli_main(["validate", str(repo / "tools" / "mcp.json"), str(repo / "suites")]) == 0
    out = repo / "r.json"
    assert cli_main(["run", "--root", str(repo), "--json", str(out)]) == 1
    body = next(r["body"] for r in server.requests)
    assert body["tools"][0]["input_schema"]["properties"] == {"city": {"type": "string"}}
    assert set(body["tools"][0]) == {"name", "description", "input_schema"}  # annotations are not sent
    recommendations = analyse(load_results(str(out))).recommendations
    city = [r for r in recommendations if r.argument == "city"]
    assert city and city[0].file.endswith("tools/mcp.json") and city[0].line == 13


def test_mcp_tool_problems_are_located(repo, capsys):
    (repo / "tools" / "mcp.json").write_text(
        '{"tools": [{"name": "t", "inputSchema": {"type": "object"}, "annotations": [1], "hint": 2}]}'
    )
    assert cli_main(["validate", str(repo / "tools" / "mcp.json")]) == 2
    err = capsys.readouterr()
    text = err.out + err.err
    assert "'annotations' must be a mapping" in text and "unknown key 'hint' in MCP tool" in text


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ("{reasoning_effort: high}", "parameter 'reasoning_effort'"),
        ("{temperature: 0.5}", None),  # a chat model takes a temperature
    ],
)
def test_reasoning_controls_on_a_chat_model_are_refused_by_name(
    repo, model_server, monkeypatch, params, named
):
    server = model_server(SCRIPT)
    agent = f"  provider: openai\n  model: gpt-4o\n  params: {params}"
    code, data = run(repo, server, monkeypatch, agent, "{provider: openai, model: gpt-4o-mini}")
    error = data["suites"][0]["cases"][0]["trials"][0]["record"]["error"]
    if named:
        assert code == 3 and named in error
    else:
        assert code == 0 and error is None
