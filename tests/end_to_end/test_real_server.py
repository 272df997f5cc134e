"""What a real model server does that the gate must meet: through ``tool-eval-gate run``, the real SDKs
and the scripted server made to behave as llama.cpp's ``llama-server`` does (``LLAMA_CPP``): replies cut
at the output-token limit with each API's finish reason, HTTP 500 for a history holding tool-call
arguments that are not JSON, a named ``tool_choice`` ignored, the served model named in every reply.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gate.cli import main as cli_main
from tests.builders import WEATHER_FUNCTION
from tests.conftest import ROOT
from tests.support.model_server import LLAMA_CPP

SCHEMA = json.loads((ROOT / "schemas" / "results.schema.json").read_text())
TOOLS = [
    WEATHER_FUNCTION,
    {
        "type": "function",
        "function": {
            "name": "get_forecast",
            "description": "Forecast for a city, for 1 to 7 days.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city", "days"],
                "additionalProperties": False,
            },
        },
    },
]
# (provider, api): the three APIs a real server speaks.
APIS = [("openai", "chat"), ("openai", "responses"), ("anthropic", "chat")]
API_IDS = ["chat-completions", "responses", "anthropic-messages"]
VERDICT_YES = {
    "when": {"forced_tool": "submit_verdict"},
    "tool_calls": [{"arguments": {"verdict": "yes", "rationale": "The criterion is met."}}],
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "suites").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(json.dumps(TOOLS))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-real-server")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-real-server")
    monkeypatch.setenv("CI", "true")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_suite(
    repo: Path,
    provider: str,
    api: str,
    cases: list[dict[str, Any]],
    params: dict[str, Any] | None = None,
    **extra: Any,
) -> None:
    """A suite (JSON is YAML) whose agent and judge use ``provider`` and ``api``."""
    agent: dict[str, Any] = {
        "provider": provider,
        "model": "gpt-4o-mini" if provider == "openai" else "claude-3-5-haiku-latest",
        "system_prompt": "You are a weather assistant.",
        "tools": [{"file": "../tools/weather.json"}],
        "params": params or {},
    }
    if api != "chat":
        agent["api"] = api
    judge = {"provider": provider, "model": agent["model"], **({"api": api} if api != "chat" else {})}
    suite = {
        "version": 1,
        "name": "real",
        "agent": agent,
        "judge": judge,
        "mocks": {
            "tools": {"get_weather": [{"returns": {"temp_c": 18}}], "get_forecast": [{"returns": [1]}]}
        },
        "threshold": 0.9,
        "cases": cases,
        **extra,
    }
    (repo / "suites" / "real.suite.yaml").write_text(json.dumps(suite, indent=1))


def run_gate(repo: Path, server: Any, *extra: str) -> tuple[int, dict[str, Any], ET.Element, str]:
    """Run the gate on the suite against ``server``: the exit code, the JSON results (checked against
    the schema), the JUnit root and the Markdown report."""
    import os

    os.environ["OPENAI_BASE_URL"] = server.openai_base_url
    os.environ["ANTHROPIC_BASE_URL"] = server.anthropic_base_url
    out = repo / "out"
    code = cli_main(
        [
            "run",
            "suites",
            "--quiet",
            "--concurrency",
            "1",
            "--json",
            str(out / "results.json"),
            "--junit",
            str(out / "junit.xml"),
            "--markdown",
            str(out / "report.md"),
            *extra,
        ]
    )
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(results, SCHEMA)
    return (
        code,
        results,
        ET.parse(out / "junit.xml").getroot(),
        (out / "report.md").read_text(encoding="utf-8"),
    )


def case_of(results: dict[str, Any], case_id: str) -> dict[str, Any]:
    return next(c for s in results["suites"] for c in s["cases"] if c["case_id"] == case_id)


def reasons(case: dict[str, Any]) -> list[str]:
    return [f["reason"] for t in case["trials"] for f in t["failures"]]


def judge_requests(server: Any) -> list[dict[str, Any]]:
    return [r["body"] for r in server.requests if "submit_verdict" in json.dumps(r["body"].get("tools", []))]


# --- a cut-off reply is named as such ---------------------------------------------------------------

CUT_SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "Paris"},
            "text": "Checking.",
            "tool_calls": [
                {"name": "get_weather", "arguments": {"city": "Paris"}},
                {"name": "get_forecast", "arguments": {"city": "Paris", "days": 3}},
            ],
        },
        {"when": {"last_user": "story"}, "text": "Once upon a time " * 20},
    ],
}
CUT_CASES = [
    {
        "id": "two-calls",
        "input": "Weather and forecast for Paris?",
        "expect": {
            "calls": [{"tool": "get_weather", "args": {"city": "Paris"}}, {"tool": "get_forecast"}],
        },
    },
    {"id": "story", "input": "Tell me a story", "expect": {"no_calls": True, "output": {"contains": "Once"}}},
]


@pytest.mark.parametrize(("provider", "api"), APIS, ids=API_IDS)
def test_a_reply_cut_at_max_tokens_is_its_own_reason_not_the_agents_failure(
    repo, model_server, capsys, provider, api
):
    server = model_server(CUT_SCRIPT, **LLAMA_CPP)
    # 14 tokens: "Checking." and the first call fit, the second call's arguments are cut (a text of
    # 340 characters is cut too). Before: "invalid arguments JSON" with advice to simplify get_forecast's
    # parameters (on Anthropic a schema violation of {}), and the cut story passed as a final answer.
    write_suite(repo, provider, api, CUT_CASES, params={"max_tokens": 14})
    code, results, junit, markdown = run_gate(repo, server)
    why = "the reply was cut at max_tokens=14: raise it (agent.params.max_tokens)"
    for case_id in ("two-calls", "story"):
        case = case_of(results, case_id)
        assert case["status"] == "error", case_id
        (trial,) = case["trials"]
        assert [(f["reason"], f["message"]) for f in trial["failures"]] == [("reply_cut", why)]
        record = trial["record"]
        assert record["stop_reason"] == "max_tokens" and record["error"] == why and record["output"] == ""
        (cut,) = [m for m in record["messages"] if m.get("finish_reason")]
        assert cut["finish_reason"] in ("length", "max_tokens", "max_output_tokens")
    calls = case_of(results, "two-calls")["trials"][0]["record"]["calls"]
    assert [(c["name"], c["mock"]) for c in calls] == [("get_weather", "none"), ("get_forecast", "none")]
    assert code == 3  # no case could be evaluated
    # Every output names it; no output advises on a tool definition from a cut call.
    assert "reply cut at the token limit" in markdown and why in markdown
    assert "get_forecast" not in markdown.split("### Suites")[-1].split("<details>")[0]
    errors = [e.get("message") for e in junit.iter("error")]
    assert len(errors) == 2 and all(why in (m or "") for m in errors)
    assert "cut at the token limit" in "".join(t.text or "" for t in junit.iter("system-out"))
    assert why in capsys.readouterr().out
    assert not judge_requests(server)


# --- the agent's bad arguments are scored, not echoed -----------------------------------------------

BROKEN_ARGUMENTS = {
    "rules": [
        {"when": {"turn": 1}, "tool_calls": [{"name": "get_weather", "raw_arguments": '{"city": "Paris"'}]},
        {"when": {"after_tool": "get_weather"}, "text": "It is {result.temp_c} degrees."},
    ],
}


@pytest.mark.parametrize(("provider", "api"), APIS, ids=API_IDS)
def test_invalid_arguments_are_sent_back_as_an_empty_object_and_scored(repo, model_server, provider, api):
    server = model_server(BROKEN_ARGUMENTS, **LLAMA_CPP)
    cases = [
        {
            "id": "paris",
            "input": "Weather in Paris?",
            "expect": {
                "calls": [{"tool": "get_weather", "args": {"city": "Paris"}}],
                "output": {"contains": "18"},
            },
        }
    ]
    write_suite(repo, provider, api, cases)
    code, results, _junit, _markdown = run_gate(repo, server)
    case = case_of(results, "paris")
    # Before: llama.cpp answered the echoed '{"city": "Paris"' with HTTP 500, retried six times: an
    # error, exit 3. Now the agent's mistake is its failure: invalid arguments, a hard condition.
    assert case["status"] == "failed" and "invalid_arguments" in reasons(case)
    assert code == 1 and 500 not in server.status_counts
    second = server.requests[1]["body"]
    if api == "responses":
        (sent,) = [i["arguments"] for i in second["input"] if i.get("type") == "function_call"]
    elif provider == "openai":
        (sent,) = [c["function"]["arguments"] for m in second["messages"] for c in m.get("tool_calls") or ()]
    else:
        (sent,) = [
            json.dumps(b["input"])
            for m in second["messages"]
            for b in m["content"]
            if b.get("type") == "tool_use"
        ]
    assert sent == "{}"
    (call,) = case["trials"][0]["record"]["calls"]
    assert call["raw_arguments"] == '{"city": "Paris"'  # the record keeps what the model sent


# --- the judge is forced in a form servers honour ---------------------------------------------------

ANSWER_18 = {"rules": [VERDICT_YES, {"when": {"turn": 1}, "text": "It is 18 degrees in Paris."}]}
JUDGED_CASES = [
    {
        "id": "states",
        "input": "Weather in Paris?",
        "expect": {"output": {"criteria": "States the temperature."}},
    },
    {"id": "names", "input": "And in Paris?", "expect": {"output": {"criteria": "Names the city."}}},
]


@pytest.mark.parametrize(("provider", "api"), APIS, ids=API_IDS)
def test_the_judge_is_forced_with_required_which_llama_cpp_honours(repo, model_server, provider, api):
    server = model_server(ANSWER_18, **LLAMA_CPP)  # a named tool_choice is ignored there: "auto"
    write_suite(repo, provider, api, JUDGED_CASES)
    code, results, _junit, _markdown = run_gate(repo, server)
    assert [case_of(results, c)["status"] for c in ("states", "names")] == ["passed", "passed"]
    assert code == 0
    forms = [body["tool_choice"] for body in judge_requests(server)]
    assert forms == ([{"type": "any"}] if provider == "anthropic" else ["required"]) * 2


def test_a_server_refusing_required_gets_the_named_form_from_then_on(repo, model_server):
    server = model_server(ANSWER_18, refuse_required_tool_choice=True)
    write_suite(repo, "openai", "chat", JUDGED_CASES)
    code, results, _junit, _markdown = run_gate(repo, server)
    assert code == 0 and case_of(results, "names")["status"] == "passed"
    forms = [body["tool_choice"] for body in judge_requests(server)]
    named = {"type": "function", "function": {"name": "submit_verdict"}}
    assert forms == ["required", named, named]  # refused once, then the form that works
    assert server.status_counts == {200: 4, 400: 1}


# --- no judge for an answer that never existed ------------------------------------------------------

CALLS_FOREVER = {
    "rules": [
        VERDICT_YES,
        {"when": {"last_user": "broken"}, "fault": {"kind": "status", "status": 400, "message": "bad input"}},
        {
            "when": {"turn": 1},
            "text": "Let me look.",
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}],
        },
        {
            "text": "Almost there.",
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Oslo", "days": 2}}],
        },
    ],
}


def test_no_judge_is_asked_about_an_answer_the_trial_never_gave(repo, model_server):
    server = model_server(CALLS_FOREVER)
    cases = [
        {
            "id": "over-budget",
            "input": "Weather in Oslo?",
            "max_tool_calls": 1,
            "expect": {"output": {"criteria": "States the temperature.", "contains": "Oslo"}},
        },
        {
            "id": "provider-error",
            "input": "a broken request",
            "expect": {"output": {"criteria": "Is polite."}},
        },
    ]
    write_suite(repo, "openai", "chat", cases)
    code, results, _junit, markdown = run_gate(repo, server)
    # Before: the judge graded '' (and said yes), and "Almost there." was the final answer.
    assert not judge_requests(server)
    over = case_of(results, "over-budget")
    assert over["status"] == "failed"
    (trial,) = over["trials"]
    assert trial["record"]["output"] == "" and trial["record"]["stop_reason"] == "max_tool_calls"
    (no_answer,) = [f for f in trial["failures"] if f["reason"] == "output_check_failed"]
    assert no_answer["message"].startswith("final answer: none (the trial stopped beyond max_tool_calls)")
    assert "criteria" in no_answer["message"] and 'contains "Oslo"' in no_answer["message"]
    assert all(not c["passed"] for c in trial["checks"] if c["kind"] in ("criteria", "output"))
    assert "(no final answer: the episode ended at max_tool_calls)" in markdown
    errored = case_of(results, "provider-error")
    assert errored["status"] == "error" and reasons(errored) == ["provider_error"]
    assert code == 1


# --- retries and timeouts are visible ---------------------------------------------------------------


def test_timeouts_and_rate_limits_are_counted_and_the_time_they_took_is_told(
    repo, model_server, capsys, fast_retries
):
    # The first attempt is refused (429), the next two get no answer within --timeout 0.5 (a model on
    # CPU), the fourth is answered. Before: "model requests: 4" and nothing else, in every output.
    slow = {"when": {"turn": 1}, "times": 3, "fault": {"kind": "delay", "seconds": 2}, "text": "late"}
    script = {"rules": [slow, {"when": {"turn": 1}, "text": "It is 18 degrees in Paris."}]}
    server = model_server(script, faults=[{"first": 1, "kind": "status", "status": 429, "retry_after": 0}])
    cases = [{"id": "paris", "input": "Weather in Paris?", "expect": {"output": {"contains": "18"}}}]
    write_suite(repo, "openai", "chat", cases)
    code, results, junit, markdown = run_gate(repo, server, "--timeout", "0.5")
    out = capsys.readouterr().out
    assert code == 0
    requests = results["suites"][0]["requests"]
    assert (requests["requests"], requests["attempts"]) == (1, 4)
    assert (requests["timeouts"], requests["rate_limited"], requests["failed"]) == (2, 1, 0)
    assert 900 <= requests["timeout_ms"] < 2000 and requests["answered_ms"] < requests["timeout_ms"]
    counted = "model requests: 1, 4 attempts (2 timed out, 1 rate limited (429); 3 retries)"
    advice = "went to 2 attempt(s) that timed out after about 0.5 s each: raise --timeout"
    assert counted in out and "in attempts that timed out" in out and "raise --timeout" in out
    assert counted.capitalize() in markdown and "> [!TIP]" in markdown and "raise --timeout" in markdown
    assert "| `real` | 1 | 4 | 2 | 1 | 0 |" in markdown  # where the time went, per suite
    props = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert (props["attempts"], props["retries"], props["timeouts"], props["rate_limited"]) == (
        "4",
        "3",
        "2",
        "1",
    )
    assert advice in props["advice"]


# --- a model's price is the price of the model that answered ----------------------------------------

GEMMA = "gemma-3-270m-it-Q4_K_M.gguf"


def test_a_local_model_serving_under_a_cloud_name_is_priced_as_unknown_not_as_the_cloud_model(
    repo, model_server, capsys
):
    server = model_server(ANSWER_18, **LLAMA_CPP)  # the suite says gpt-4o-mini; the server serves gemma
    write_suite(repo, "openai", "chat", JUDGED_CASES[:1])
    code, results, junit, markdown = run_gate(repo, server)
    out = capsys.readouterr().out
    assert code == 0
    # Before: $0.0001, priced as gpt-4o-mini (the suite's name) in every output.
    (suite,) = results["suites"]
    assert suite["requests"]["unpriced"] == 2 and suite["requests"]["cost_usd"] == 0  # agent and judge
    assert case_of(results, "states")["trials"][0]["record"]["cost_usd"] is None
    prices = results["settings"]["prices"]
    assert prices == {
        f"openai/{GEMMA}": {
            "source": "unknown: no price (give it with --prices)",
            "answered_for": "gpt-4o-mini",
        }
    }
    unknown = "estimated cost unknown (2 request(s) of a model with no known price)"
    assert unknown in out and f"no price for openai/{GEMMA}" in out
    assert "unknown (2 request(s) of a model with no known price) |" in markdown  # the suite's cost cell
    assert "$0.0001" not in markdown and "$0.0000" not in markdown
    assert {p.get("name"): p.get("value") for p in junit.iter("property")}["estimated_cost"].startswith(
        "unknown"
    )

    # A price the user gives (for the answering model, or for the name the suite asks for) is used.
    for key in ("gemma-3-270m*", "openai/gpt-4o-mini"):
        (repo / "prices.yaml").write_text(f'"{key}": {{input: 1.0, output: 2.0}}\n')
        code, results, _junit, markdown = run_gate(repo, server, "--prices", "prices.yaml")
        requests = results["suites"][0]["requests"]
        assert code == 0 and requests["unpriced"] == 0 and requests["cost_usd"] > 0, key
        assert "unknown" not in markdown.split("### Suites")[1].split("pass^k")[0], key


def test_max_cost_stops_when_the_answering_model_has_no_price(repo, model_server, capsys):
    server = model_server(ANSWER_18, **LLAMA_CPP)
    write_suite(repo, "openai", "chat", JUDGED_CASES)
    code, results, _junit, _markdown = run_gate(repo, server, "--max-cost", "1")
    assert code == 3 and not results["complete"]
    assert (
        f"--max-cost cannot cap the cost: the server answered with model '{GEMMA}'"
        in results["incomplete_reason"]
    )
    assert case_of(results, "names")["status"] == "error"  # not run: the budget cannot be kept
    assert server.request_count == 1


def test_one_run_total_in_every_output_the_judge_included(repo, model_server, capsys):
    server = model_server(ANSWER_18)  # the scripted server answers as the model asked for: priced
    write_suite(repo, "openai", "chat", JUDGED_CASES)
    code, results, junit, markdown = run_gate(repo, server)
    out = capsys.readouterr().out
    assert code == 0
    (suite,) = results["suites"]
    total = suite["requests"]["cost_usd"]
    agent = sum(t["record"]["cost_usd"] for c in suite["cases"] for t in c["trials"])
    assert total > agent > 0  # the judge's two requests cost too (before: Markdown showed the agent's alone)
    assert suite["requests"]["requests"] == 4 and total == pytest.approx(
        results["settings"]["estimated_cost_usd"], abs=1e-6
    )
    shown = f"${total:.4f}"
    assert f"model requests: 4, estimated cost {shown}" in out
    assert f"| {shown} |" in markdown and f"estimated cost {shown}." in markdown
    assert {p.get("name"): p.get("value") for p in junit.iter("property")}["estimated_cost"] == shown
