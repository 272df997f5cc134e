"""The provider adapters, through the real openai / anthropic SDKs against the scripted server:
requests are translated as the APIs expect, replies (also malformed ones) come back neutral, and
HTTP failures become ProviderErrors of the right kind."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest

from gate.providers import make_provider
from gate.providers.base import ModelRequest, ProviderError
from gate.results.messages import AssistantMessage, ToolCall, ToolResult, UserMessage
from gate.suite.model import ModelParams
from tests.builders import WEATHER_TOOLS

PARALLEL = {
    "rules": [
        {
            "when": {"last_user": "both", "turn": 1},
            "tool_calls": [
                {"name": "get_weather", "arguments": {"city": "Paris"}},
                {"name": "get_forecast", "arguments": {"city": "Rome", "days": 3}},
            ],
        },
        {
            "when": {"last_user": "broken", "turn": 1},
            "tool_calls": [{"name": "get_weather", "raw_arguments": '{"city": "Par'}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "Weather result seen: {result}"},
    ],
    "default": {"text": "plain answer"},
}


@pytest.fixture(autouse=True)
def _keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-openai")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-dummy")


def _point(monkeypatch, server) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)


def _request(provider: str, messages, **params) -> ModelRequest:
    return ModelRequest(
        provider=provider,
        model="test-model",
        system="You are a weather assistant.",
        messages=tuple(messages),
        tools=WEATHER_TOOLS,
        params=ModelParams(**params),
    )


def _complete(provider_name: str, request: ModelRequest):
    async def go():
        provider = make_provider(provider_name, timeout=10)
        try:
            return await provider.complete(request)
        finally:
            await provider.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_tool_call_then_final_answer_with_the_tool_result_fed_back(provider, model_server, monkeypatch):
    server = model_server("weather.yaml")
    _point(monkeypatch, server)
    first = _complete(provider, _request(provider, [UserMessage("What's the weather in Paris?")]))
    assert [(c.name, json.loads(c.arguments)) for c in first.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert first.usage.input_tokens > 0 and first.usage.output_tokens > 0
    assert first.request_id
    call = first.tool_calls[0]
    second = _complete(
        provider,
        _request(
            provider,
            [
                UserMessage("What's the weather in Paris?"),
                AssistantMessage(first.text, tool_calls=(ToolCall(call.id, call.name, call.arguments),)),
                ToolResult(call.id, call.name, {"temp_c": 18, "sky": "cloudy"}),
            ],
        ),
    )
    assert second.tool_calls == ()
    assert second.text == "It is 18 degrees and cloudy."
    assert server.request_count == 2


def test_openai_request_carries_tools_choice_and_params(model_server, monkeypatch):
    server = model_server(PARALLEL)
    _point(monkeypatch, server)
    reply = _complete(
        "openai",
        _request(
            "openai",
            [UserMessage("both please")],
            temperature=0.2,
            max_tokens=99,
            tool_choice="get_weather",
            parallel_tool_calls=False,
            seed=7,
        ),
    )
    body = server.requests[-1]["body"]
    assert body["messages"][0] == {"role": "system", "content": "You are a weather assistant."}
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather", "get_forecast", "search"]
    assert body["tools"][0]["type"] == "function"
    assert body["tools"][0]["function"]["parameters"]["required"] == ["city"]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert body["parallel_tool_calls"] is False
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.2, 99, 7)
    # Both parallel calls of the one reply come back, in order, with distinct ids.
    assert [c.name for c in reply.tool_calls] == ["get_weather", "get_forecast"]
    assert len({c.id for c in reply.tool_calls}) == 2


@pytest.mark.parametrize("choice, expected", [("auto", "auto"), ("required", "required"), ("none", "none")])
def test_openai_tool_choice_keywords_pass_through(choice, expected, model_server, monkeypatch):
    server = model_server(PARALLEL)
    _point(monkeypatch, server)
    _complete("openai", _request("openai", [UserMessage("hi")], tool_choice=choice))
    assert server.requests[-1]["body"]["tool_choice"] == expected


@pytest.mark.parametrize(
    "choice, parallel, expected",
    [
        ("auto", None, {"type": "auto"}),
        ("required", None, {"type": "any"}),
        ("none", None, {"type": "none"}),
        ("get_forecast", None, {"type": "tool", "name": "get_forecast"}),
        ("auto", False, {"type": "auto", "disable_parallel_tool_use": True}),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
    ],
)
def test_anthropic_tool_choice_mapping(choice, parallel, expected, model_server, monkeypatch):
    server = model_server(PARALLEL)
    _point(monkeypatch, server)
    _complete(
        "anthropic",
        _request(
            "anthropic",
            [UserMessage("hi")],
            tool_choice=choice,
            parallel_tool_calls=parallel,
            temperature=0.3,
        ),
    )
    body = server.requests[-1]["body"]
    assert body["tool_choice"] == expected
    assert body["temperature"] == 0.3
    assert body["system"] == "You are a weather assistant."
    assert body["max_tokens"] == 1024  # required by the API: the default when the suite sets none
    assert body["tools"][0] == {
        "name": "get_weather",
        "description": WEATHER_TOOLS[0].description,
        "input_schema": WEATHER_TOOLS[0].parameters,
    }


def test_anthropic_tool_results_are_one_user_turn_with_is_error(model_server, monkeypatch):
    server = model_server(PARALLEL)
    _point(monkeypatch, server)
    reply = _complete(
        "anthropic",
        _request(
            "anthropic",
            [
                UserMessage("both please"),
                AssistantMessage(
                    "",
                    tool_calls=(
                        ToolCall("t1", "get_weather", '{"city": "Paris"}'),
                        ToolCall("t2", "get_forecast", "not json"),
                    ),
                ),
                ToolResult("t1", "get_weather", {"temp_c": 18}),
                ToolResult("t2", "get_forecast", "service down", is_error=True),
            ],
        ),
    )
    messages = server.requests[-1]["body"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    uses = messages[1]["content"]
    assert uses[0] == {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}
    assert uses[1]["input"] == {}  # arguments that were not JSON are sent back as an empty object
    results = messages[2]["content"]
    assert results[0] == {"type": "tool_result", "tool_use_id": "t1", "content": '{"temp_c": 18}'}
    assert results[1] == {
        "type": "tool_result",
        "tool_use_id": "t2",
        "content": "service down",
        "is_error": True,
    }
    assert reply.text.startswith("Weather result seen")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_parallel_calls_and_invalid_argument_text_are_kept(provider, model_server, monkeypatch):
    server = model_server(PARALLEL)
    _point(monkeypatch, server)
    both = _complete(provider, _request(provider, [UserMessage("both please")]))
    assert [json.loads(c.arguments) for c in both.tool_calls] == [
        {"city": "Paris"},
        {"city": "Rome", "days": 3},
    ]
    if provider == "openai":  # only OpenAI-style APIs can send argument text that is not JSON
        broken = _complete(provider, _request(provider, [UserMessage("broken")]))
        assert broken.tool_calls[0].arguments == '{"city": "Par'


def test_openai_invalid_arguments_fault_never_crashes(model_server, monkeypatch):
    server = model_server(PARALLEL, faults=[{"fault": {"kind": "invalid_arguments"}, "every": 1}])
    _point(monkeypatch, server)
    reply = _complete("openai", _request("openai", [UserMessage("both please")]))
    assert reply.tool_calls
    with pytest.raises(ValueError):
        json.loads(reply.tool_calls[0].arguments)


@pytest.mark.parametrize("provider", ["openai", "anthropic", "openai-responses"])
@pytest.mark.parametrize(
    "fault, kind, fatal, retryable",
    [
        ({"kind": "status", "status": 401}, "auth", True, False),
        ({"kind": "status", "status": 404}, "bad_request", True, False),
        ({"kind": "status", "status": 400}, "bad_request", False, False),
        ({"kind": "status", "status": 503}, "server", False, True),
        ({"kind": "status", "status": 429, "retry_after": 2}, "rate_limit", False, True),
        ({"kind": "drop"}, "connection", False, True),
        ({"kind": "truncated_json"}, "malformed", False, True),
    ],
)
def test_http_failures_become_provider_errors(
    provider, fault, kind, fatal, retryable, model_server, monkeypatch
):
    server = model_server(PARALLEL, faults=[{"fault": fault, "every": 1}])
    _point(monkeypatch, server)
    name, _, api = provider.partition("-")
    request = dataclasses.replace(_request(name, [UserMessage("hi")]), api="responses" if api else "chat")
    with pytest.raises(ProviderError) as info:
        _complete(name, request)
    assert server.requests[0]["path"] == ("/v1/responses" if api else server.requests[0]["path"])
    err = info.value
    assert (err.kind, err.fatal, err.retryable) == (kind, fatal, retryable)
    if fault.get("retry_after"):
        assert err.retry_after == 2
    assert "sk-test-dummy" not in str(err) and "sk-ant-test" not in str(err)


def test_timeout_is_a_retryable_timeout_error(model_server, monkeypatch):
    server = model_server(PARALLEL, latency=1.0)
    _point(monkeypatch, server)

    async def go():
        provider = make_provider("openai", timeout=0.2)
        try:
            await provider.complete(_request("openai", [UserMessage("hi")]))
        finally:
            await provider.aclose()

    with pytest.raises(ProviderError) as info:
        asyncio.run(go())
    assert (info.value.kind, info.value.retryable) == ("timeout", True)


@pytest.mark.parametrize(
    "provider, variable", [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_missing_api_key_is_a_fatal_auth_error(provider, variable, model_server, monkeypatch, tmp_path):
    server = model_server(PARALLEL)
    _point(monkeypatch, server)
    monkeypatch.delenv(variable)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path))  # no profile on disk either
    with pytest.raises(ProviderError) as info:
        _complete(provider, _request(provider, [UserMessage("hi")]))
    assert (info.value.kind, info.value.fatal) == ("auth", True)
    assert server.request_count == 0


def test_creating_a_provider_imports_no_sdk_until_a_request():
    import subprocess
    import sys

    code = (
        "import sys; from gate.providers import make_provider; make_provider('openai'); "
        "make_provider('anthropic'); "
        "print('openai' in sys.modules, 'anthropic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.parametrize(
    "model, field",
    [("gpt-4o-mini", "max_tokens"), ("o3-mini", "max_completion_tokens"), ("gpt-5", "max_completion_tokens")],
)
def test_openai_token_limit_field_follows_the_model(model, field, model_server, monkeypatch):
    server = model_server(PARALLEL)
    _point(monkeypatch, server)
    request = dataclasses.replace(_request("openai", [UserMessage("hi")], max_tokens=64), model=model)
    _complete("openai", request)
    body = server.requests[-1]["body"]
    assert body[field] == 64 and len({"max_tokens", "max_completion_tokens"} & set(body)) == 1


def test_responses_api_parallel_calls_and_results_round_trip(model_server, monkeypatch):
    server = model_server(PARALLEL)
    _point(monkeypatch, server)
    ask = dataclasses.replace(
        _request("openai", [UserMessage("both please")], max_tokens=50), api="responses"
    )
    first = _complete("openai", ask)
    assert [(c.name, json.loads(c.arguments)) for c in first.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_forecast", {"city": "Rome", "days": 3}),
    ]
    assert first.usage.input_tokens > 0 and first.stop_reason == "tool_calls"
    calls = first.tool_calls
    follow = dataclasses.replace(
        ask,
        messages=(
            *ask.messages,
            AssistantMessage("", tool_calls=calls),
            ToolResult(calls[0].id, "get_weather", {"temp": 20}),
            ToolResult(calls[1].id, "get_forecast", "sunny"),
        ),
    )
    second = _complete("openai", follow)
    assert second.text == 'Weather result seen: {"temp": 20}'
    body = server.requests[-1]["body"]
    assert body["max_output_tokens"] == 50 and body["instructions"] == "You are a weather assistant."
    assert [i["type"] for i in body["input"][1:]] == [
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]
    assert body["tools"][0] == {
        "type": "function",
        "name": "get_weather",
        "description": body["tools"][0]["description"],
        "parameters": body["tools"][0]["parameters"],
        "strict": False,
    }
