"""One trial end to end: the agent loop drives the real SDKs against the scripted server, answers
tool calls from the mocks, feeds results back, and records what happened."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest

from gate.providers import make_provider
from gate.providers.base import ProviderError
from gate.results.messages import AssistantMessage, ToolCall, ToolResult
from gate.results.run_record import parse_arguments
from gate.run.agent_loop import run_trial
from gate.scoring.trial import score_trial
from gate.suite.matcher_tree import parse_matchers
from gate.suite.model import Agent, MockRule, Mocks, ModelParams, Prompt, Source
from tests import builders

WEATHER_MOCKS = Mocks(
    tools={
        "get_weather": (
            MockRule(
                when=parse_matchers({"city": {"normalized": "paris"}}),
                returns={"temp_c": 18, "sky": "cloudy"},
            ),
            MockRule(when=None, returns={"temp_c": 30, "sky": "clear"}),
        ),
        "get_forecast": (MockRule(when=None, error="forecast service unavailable"),),
    }
)

LOOPING = {
    "rules": [
        {
            "when": {"last_user": "loop"},
            "tool_calls": [{"name": "search", "arguments": {"query": "turn {turn}"}}],
        },
        {
            "when": {"last_user": "burst"},
            "tool_calls": [
                {"name": "search", "arguments": {"query": "a"}},
                {"name": "search", "arguments": {"query": "b"}},
                {"name": "search", "arguments": {"query": "c"}},
            ],
        },
        {
            "when": {"last_user": "both", "turn": 1},
            "tool_calls": [
                {"name": "get_weather", "arguments": {"city": "Paris"}},
                {"name": "get_forecast", "arguments": {"city": "Paris", "days": 2}},
            ],
        },
        {
            "when": {"last_user": "broken", "turn": 1},
            "tool_calls": [{"name": "get_weather", "raw_arguments": "{city: Paris"}],
        },
        {
            "when": {"last_user": "two calls", "turn": 1},
            "tool_calls": [
                {"name": "search", "arguments": {"query": "a"}},
                {"name": "search", "arguments": {"query": "b"}},
            ],
        },
        {"when": {"after_tool": "get_weather"}, "text": "Seen {result}"},
    ],
    "default": {"text": "final"},
}


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")


def _suite(provider: str, *cases, model: str = "test-model", **kw):
    suite = builders.suite(*cases, mocks=WEATHER_MOCKS, **kw)
    agent = Agent(
        provider,
        model,
        ModelParams(temperature=0),
        Prompt("You are a weather assistant.", Source("s.yaml", 3, 1)),
        suite.agent.tools,
    )
    return dataclasses.replace(suite, agent=agent)


def _run(server, monkeypatch, suite, case, index=0):
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)

    async def go():
        provider = make_provider(suite.agent.provider, timeout=10)
        try:
            return await run_trial(suite, case, index, provider.complete)
        finally:
            await provider.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_tool_call_mock_result_and_final_answer(provider, model_server, monkeypatch):
    server = model_server("weather.yaml")
    case = builders.case(input="What's the weather in Paris?")
    record = _run(server, monkeypatch, _suite(provider, case), case)
    assert record.error is None and record.stop_reason == "final_answer"
    assert record.output == "It is 18 degrees and cloudy."
    assert record.turns == 2 and server.request_count == 2
    (call,) = record.calls
    assert (call.name, call.arguments, call.arguments_error, call.turn) == (
        "get_weather",
        {"city": "Paris"},
        None,
        1,
    )
    assert json.loads(call.raw_arguments) == {"city": "Paris"}
    assert (call.mock, call.result, call.is_error) == ("matched", {"temp_c": 18, "sky": "cloudy"}, False)
    assert [m.role for m in record.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert record.messages[2] == AssistantMessage("", (ToolCall(call.id, "get_weather", call.raw_arguments),))
    assert record.messages[3] == ToolResult(call.id, "get_weather", {"temp_c": 18, "sky": "cloudy"})
    assert record.messages[-1] == AssistantMessage(record.output)
    assert record.input == "What's the weather in Paris?"
    assert record.usage.input_tokens > 0 and record.usage.output_tokens > 0
    assert record.latency_ms > 0
    assert record.extra == {}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_parallel_calls_in_one_turn_are_all_answered(provider, model_server, monkeypatch):
    server = model_server(LOOPING)
    case = builders.case(input="both please")
    record = _run(server, monkeypatch, _suite(provider, case), case)
    assert [(c.name, c.turn, c.mock, c.is_error) for c in record.calls] == [
        ("get_weather", 1, "matched", False),
        ("get_forecast", 1, "error", True),
    ]
    assert record.calls[1].result == "forecast service unavailable"
    # Both results went back in the second request, the error marked as such.
    body = server.requests[-1]["body"]
    if provider == "anthropic":
        results = body["messages"][-1]["content"]
        assert [r["type"] for r in results] == ["tool_result", "tool_result"]
        assert results[1]["is_error"] is True
    else:
        tools = [m for m in body["messages"] if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tools] == [c.id for c in record.calls]
        assert "forecast service unavailable" in tools[1]["content"]
    assert record.output.startswith("Seen")


def test_unparseable_arguments_are_recorded_and_still_answered(model_server, monkeypatch):
    server = model_server(LOOPING)
    case = builders.case(input="broken")
    record = _run(server, monkeypatch, _suite("openai", case), case)
    (call,) = record.calls
    assert call.raw_arguments == "{city: Paris"
    assert call.arguments is None and "not valid JSON" in call.arguments_error
    assert call.mock == "fallback"  # the rule without `when` still answers
    assert record.stop_reason == "final_answer" and record.turns == 2


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_arguments_holding_nan_or_infinity_are_not_json(constant):
    # Python's parser accepts them; a range or a schema maximum would then pass NaN (NaN > 1 is false).
    arguments, error = parse_arguments('{"value": ' + constant + "}")
    assert arguments is None
    assert error == f"arguments are not valid JSON: {constant} is not a JSON value"


def test_max_turns_stops_the_loop(model_server, monkeypatch):
    server = model_server(LOOPING)
    case = builders.case(input="loop forever", max_turns=3)
    record = _run(server, monkeypatch, _suite("openai", case), case)
    assert record.stop_reason == "max_turns"
    assert record.turns == 3 and server.request_count == 3
    assert [c.arguments["query"] for c in record.calls] == ["turn 1", "turn 2", "turn 3"]


def test_max_tool_calls_stops_the_loop(model_server, monkeypatch):
    server = model_server(LOOPING)
    case = builders.case(input="burst", max_tool_calls=2)
    record = _run(server, monkeypatch, _suite("openai", case), case)
    assert record.stop_reason == "max_tool_calls"
    assert len(record.calls) == 3 and record.turns == 1  # every call of the reply is recorded
    assert all(c.mock == "unmocked" for c in record.calls)


def test_exactly_max_tool_calls_is_within_budget_and_the_final_answer_is_still_asked(
    model_server, monkeypatch
):
    server = model_server(LOOPING)
    case = builders.case(input="two calls", max_tool_calls=2, max_turns=2)
    suite = _suite("openai", case)
    record = _run(server, monkeypatch, suite, case)
    assert (record.stop_reason, record.turns, record.output) == ("final_answer", 2, "final")
    assert len(record.calls) == 2 and server.request_count == 2
    result = score_trial(suite, case, record, 0, {})
    assert result.status == "passed" and not result.failures  # exactly the budgets: within both


def test_cost_is_estimated_for_a_known_model(model_server, monkeypatch):
    server = model_server("weather.yaml")
    case = builders.case(input="What's the weather in Paris?")
    record = _run(server, monkeypatch, _suite("openai", case, model="gpt-4o-mini"), case)
    expected = (record.usage.input_tokens * 0.15 + record.usage.output_tokens * 0.60) / 1e6
    assert record.cost_usd == pytest.approx(expected)
    unknown = _run(server, monkeypatch, _suite("openai", case), case)
    assert unknown.cost_usd is None


def test_provider_error_is_recorded_not_raised(model_server, monkeypatch):
    server = model_server(
        "weather.yaml",
        faults=[{"fault": {"kind": "status", "status": 400, "message": "bad tool schema"}, "every": 1}],
    )
    case = builders.case(input="What's the weather in Paris?")
    record = _run(server, monkeypatch, _suite("openai", case), case)
    assert record.stop_reason == "provider_error"
    assert "bad tool schema" in record.error
    assert record.turns == 0 and record.calls == ()


def test_fatal_provider_error_propagates(model_server, monkeypatch):
    server = model_server("weather.yaml", faults=[{"fault": {"kind": "status", "status": 401}, "every": 1}])
    case = builders.case(input="What's the weather in Paris?")
    with pytest.raises(ProviderError) as info:
        _run(server, monkeypatch, _suite("anthropic", case), case)
    assert info.value.fatal and info.value.kind == "auth"


def test_latency_excludes_time_waiting_outside_the_provider(model_server, monkeypatch):
    """Time spent queued for a concurrency slot is not the agent's latency."""
    server = model_server("weather.yaml", latency=0.05)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    case = builders.case(input="What's the weather in Paris?")
    suite = _suite("openai", case)

    async def go():
        provider = make_provider("openai", timeout=10)

        async def slow_queue(request):
            await asyncio.sleep(0.3)  # e.g. waiting for a slot
            return await provider.complete(request)

        try:
            return await run_trial(suite, case, 0, slow_queue)
        finally:
            await provider.aclose()

    record = asyncio.run(go())
    assert 100 <= record.latency_ms < 400  # two answers of ~50 ms, not 2 x 300 ms of queueing


def test_stop_reasons_are_one_closed_set_shared_with_the_results_schema():
    from pathlib import Path

    from gate.results.run_record import STOP_REASONS, RunRecord
    from gate.results_json.read_back import record_from_dict

    schema = json.loads((Path(__file__).parents[2] / "schemas" / "results.schema.json").read_text())
    record_schema = json.dumps(schema)
    assert json.dumps(list(STOP_REASONS)) in record_schema  # the schema's enum is the Literal's values
    plain = dataclasses.asdict(
        RunRecord(input="hi", messages=(), calls=(), output="", turns=0, latency_ms=0.0)
    )
    for reason in STOP_REASONS:
        assert record_from_dict({**plain, "stop_reason": reason}).stop_reason == reason
    with pytest.raises(ValueError, match="unknown stop_reason 'gave_up'"):
        record_from_dict({**plain, "stop_reason": "gave_up"})


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_hallucinated_tool_is_answered_unknown_tool_not_the_unmocked_default(
    provider, model_server, monkeypatch
):
    server = model_server(
        {
            "rules": [
                {"when": {"after_tool": "list_forecasts"}, "text": "The tool said: {result}"},
                {
                    "when": {"turn": 1},
                    "tool_calls": [{"name": "list_forecasts", "arguments": {"city": "Oslo"}}],
                },
            ]
        }
    )
    case = builders.case(input="Forecasts for Oslo?")
    suite = _suite(provider, case)
    suite = dataclasses.replace(
        suite, mocks=dataclasses.replace(suite.mocks, unmocked=MockRule(None, {"status": "queued"}))
    )
    record = _run(server, monkeypatch, suite, case)
    (call,) = record.calls
    assert (call.mock, call.is_error) == ("unknown_tool", True)
    assert call.result.startswith(
        "Error: unknown tool 'list_forecasts': the available tools are get_forecast"
    )
    tool_message = next(m for m in record.messages if isinstance(m, ToolResult))
    assert tool_message.is_error and "unknown tool 'list_forecasts'" in tool_message.text
    assert "unknown tool 'list_forecasts'" in record.output  # what the model was sent back
    assert "queued" not in record.output
