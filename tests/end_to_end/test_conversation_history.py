"""A case that starts mid-task: its conversation holds an earlier tool call and its result, sent to
every provider and API in that API's own form (through the real SDKs to the scripted server), shown
in the transcript as given, and never scored as the agent's own call."""

from __future__ import annotations

import json

import pytest

from gate.cli import main as cli_main
from tests.builders import WEATHER_FUNCTION

SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "(?i)tomorrow", "turn": 3},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Rome"}}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "It is {result.temp_c} degrees."},
    ],
    "default": {"text": "I do not know."},
}

SUITE = """\
version: 1
name: weather
agent: {{provider: {provider}, {api}model: test-model, tools: [{{file: weather.json}}]}}
mocks: {{tools: {{get_weather: [{{returns: {{temp_c: 21}}}}]}}}}
cases:
  - id: continue-from-the-result
    conversation:
      - {{role: user, content: Weather in Paris?}}
      - role: assistant
        tool_calls: [{{name: get_weather, arguments: {{city: Paris}}}}]
      - {{role: tool, content: {{temp_c: 18}}}}
    expect: {{no_calls: true, output: {{contains: "18"}}}}
  - id: next-question
    conversation:
      - {{role: user, content: Weather in Paris?}}
      - role: assistant
        content: Let me check.
        tool_calls: [{{id: earlier, name: get_weather, arguments: {{city: Paris}}}}]
      - {{role: tool, tool_call_id: earlier, content: '{{"temp_c": 18}}'}}
      - {{role: assistant, content: It is 18 degrees.}}
      - {{role: user, content: And tomorrow in Rome?}}
    expect:
      calls: [{{tool: get_weather, args: {{city: Rome}}}}]
      output: {{contains: "21"}}
"""


def _history_as_sent(api: str, body: dict) -> list:
    """The earlier call and its result as the request carried them, in the API's own terms."""
    if api == "chat":
        messages = body["messages"]
        call = next(m for m in messages if m.get("tool_calls"))
        result = next(m for m in messages if m["role"] == "tool")
        function = call["tool_calls"][0]["function"]
        return [
            call["tool_calls"][0]["id"],
            function["name"],
            json.loads(function["arguments"]),
            result["tool_call_id"],
            json.loads(result["content"]),
        ]
    if api == "responses":
        call = next(i for i in body["input"] if i.get("type") == "function_call")
        result = next(i for i in body["input"] if i.get("type") == "function_call_output")
        return [
            call["call_id"],
            call["name"],
            json.loads(call["arguments"]),
            result["call_id"],
            json.loads(result["output"]),
        ]
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    use = next(b for b in blocks if b["type"] == "tool_use")
    result = next(b for b in blocks if b["type"] == "tool_result")
    return [use["id"], use["name"], use["input"], result["tool_use_id"], json.loads(result["content"])]


@pytest.mark.parametrize(
    ("provider", "api"), [("openai", "chat"), ("openai", "responses"), ("anthropic", "")]
)
def test_a_mid_task_conversation_reaches_every_api_in_its_own_form(
    provider, api, tmp_path, model_server, monkeypatch, capsys
):
    server = model_server(SCRIPT)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-1234567890")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key-1234567890")
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
    (tmp_path / ".git").mkdir()
    (tmp_path / "weather.json").write_text(json.dumps([WEATHER_FUNCTION]))
    api_key = f"api: {api}, " if api == "responses" else ""
    (tmp_path / "w.suite.yaml").write_text(SUITE.format(provider=provider, api=api_key))
    results_path = tmp_path / "r.json"
    code = cli_main(["run", "--root", str(tmp_path), "-q", "--json", str(results_path)])
    assert code == 0, capsys.readouterr().out

    # Every request carries the earlier call and its result: the first case's one request, and both
    # of the second case's (its own Rome call comes after the given one). The cases run concurrently,
    # so the requests arrive in any order: compared as a sorted list, never by position.
    sent = sorted(_history_as_sent(api or "anthropic", r["body"]) for r in server.requests)
    assert sent == [
        ["call_1", "get_weather", {"city": "Paris"}, "call_1", {"temp_c": 18}],
        ["earlier", "get_weather", {"city": "Paris"}, "earlier", {"temp_c": 18}],
        ["earlier", "get_weather", {"city": "Paris"}, "earlier", {"temp_c": 18}],
    ]

    cases = json.loads(results_path.read_text())["suites"][0]["cases"]
    continued = cases[0]["trials"][0]["record"]
    assert continued["calls"] == []  # the earlier call is history, not the agent's
    assert continued["output"] == "It is 18 degrees."
    given = [m for m in continued["messages"] if m.get("given")]
    assert given == [
        {
            "role": "assistant",
            "content": "",
            "given": True,
            "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}'}],
        },
        {
            "role": "tool",
            "content": '{"temp_c": 18}',
            "call_id": "call_1",
            "name": "get_weather",
            "given": True,
        },
    ]
    asked = cases[1]["trials"][0]["record"]
    assert [c["arguments"] for c in asked["calls"]] == [{"city": "Rome"}]
