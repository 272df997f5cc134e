"""The recording model proxy of a trial, read by the official SDKs as they read the real APIs: Chat
Completions, the Responses API and Anthropic Messages, each plain and streamed; what it refuses."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import anthropic
import openai
import pytest

from gate.episode.episode import Episode
from gate.programs.host import ProgramHost, TrialRoute
from gate.programs.mock_mcp_server import MockMcpSession
from gate.programs.model_proxy import TrialProxy
from gate.providers.base import BudgetReached, ModelReply, ModelRequest, ProviderError
from gate.results.messages import AssistantMessage, ToolCall, ToolResult
from gate.results.run_record import Usage
from gate.suite.mocks import MockSession
from gate.suite.model import Mocks, ModelParams
from gate.util.redact import Redactor
from tests.builders import case as make_case
from tests.builders import suite as make_suite

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
CALL = ModelReply(
    "",
    (ToolCall("call_1", "get_weather", '{"city": "Paris"}'),),
    Usage(30, 7),
    "tool_calls",
    latency_ms=1.0,
)
TEXT = ModelReply(
    "It is 18 degrees in Paris.", (), Usage(40, 9), "stop", latency_ms=1.0, cached_input_tokens=10
)


NO_SECRETS = Redactor(())


class Scripted:
    """The runner's model path for a trial: answers in turn, and keeps what it was asked."""

    def __init__(self, *answers: ModelReply | Exception):
        self.answers = list(answers)
        self.requests: list[ModelRequest] = []

    async def __call__(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def serve(
    model: Scripted,
    test: Callable[[TrialRoute, TrialProxy], Awaitable[None]],
    max_turns: int = 8,
    redactor: Redactor = NO_SECRETS,
    max_tool_calls: int = 16,
) -> TrialProxy:
    async def main() -> TrialProxy:
        host = ProgramHost(redactor)
        case = dataclasses.replace(make_case("c1", "hi"), max_turns=max_turns, max_tool_calls=max_tool_calls)
        proxy = TrialProxy("trial-token", model, Episode(make_suite(), case, 0, model), host.redactor)
        route = await host.open_trial(proxy, MockMcpSession((), MockSession(Mocks(), ()), False))
        try:
            await test(route, proxy)
        finally:
            await host.close()
        return proxy

    return asyncio.run(main())


def oai(route: TrialRoute, key: str = "") -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=route.openai_base_url, api_key=key or route.token, max_retries=2)


TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_weather", "description": "Weather now.", "parameters": WEATHER},
    }
]


def test_chat_completions_plain_and_streamed_and_the_request_goes_upstream_as_written() -> None:
    model = Scripted(CALL, TEXT)

    async def test(route: TrialRoute, proxy: TrialProxy) -> None:
        client = oai(route)
        messages: list[Any] = [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris?"},
        ]
        first = await client.chat.completions.create(
            model="gpt-4.1-mini", messages=messages, tools=TOOLS, response_format={"type": "text"}
        )
        call = first.choices[0].message.tool_calls[0]
        assert (call.id, call.function.name, call.function.arguments) == (
            "call_1",
            "get_weather",
            '{"city": "Paris"}',
        )
        assert first.choices[0].finish_reason == "tool_calls" and first.usage.prompt_tokens == 30
        messages += [first.choices[0].message.model_dump(exclude_none=True)]
        messages += [{"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 18}'}]
        stream = client.chat.completions.stream(
            model="gpt-4.1-mini", messages=messages, tools=TOOLS, stream_options={"include_usage": True}
        )
        async with stream as events:
            final = await events.get_final_completion()
        assert final.choices[0].message.content == "It is 18 degrees in Paris."
        assert final.usage is not None and final.usage.completion_tokens == 9

    proxy = serve(model, test)
    sent = model.requests[0]
    assert sent.provider == "openai" and sent.api == "chat" and sent.model == "gpt-4.1-mini"
    assert sent.wire is not None and sent.wire["response_format"] == {
        "type": "text"
    }  # as the program wrote it
    assert sent.system == "Be brief." and [t.name for t in sent.tools] == ["get_weather"]
    second = model.requests[1]
    assert second.wire is not None and "stream" not in second.wire and "stream_options" not in second.wire
    assert second.messages[-1] == ToolResult("call_1", "get_weather", '{"temp_c": 18}')
    assert [e.request.stream for e in proxy.exchanges] == [False, True]


def test_the_responses_api_plain_and_streamed() -> None:
    model = Scripted(CALL, TEXT)

    async def test(route: TrialRoute, proxy: TrialProxy) -> None:
        client = oai(route)
        tools: Any = [{"type": "function", "name": "get_weather", "parameters": WEATHER, "strict": False}]
        first = await client.responses.create(model="gpt-4.1-mini", input="Weather in Paris?", tools=tools)
        [item] = first.output
        assert (
            item.type == "function_call"
            and item.call_id == "call_1"
            and item.arguments == '{"city": "Paris"}'
        )
        follow: Any = [
            {"role": "user", "content": "Weather in Paris?"},
            item.model_dump(exclude_none=True),
            {"type": "function_call_output", "call_id": "call_1", "output": '{"temp_c": 18}'},
        ]
        async with client.responses.stream(model="gpt-4.1-mini", input=follow, tools=tools) as events:
            deltas = [e.delta async for e in events if e.type == "response.output_text.delta"]
            final = await events.get_final_response()
        assert "".join(deltas) == final.output_text == "It is 18 degrees in Paris."
        assert final.usage is not None and final.usage.input_tokens == 40

    serve(model, test)
    follow = model.requests[1]
    assert follow.api == "responses"
    assert follow.messages[1] == AssistantMessage(
        "", (ToolCall("call_1", "get_weather", '{"city": "Paris"}'),)
    )
    assert follow.messages[2] == ToolResult("call_1", "get_weather", '{"temp_c": 18}')


def test_anthropic_messages_plain_and_streamed_with_the_beta_header_forwarded() -> None:
    model = Scripted(CALL, TEXT)

    async def test(route: TrialRoute, proxy: TrialProxy) -> None:
        client = anthropic.AsyncAnthropic(
            base_url=route.anthropic_base_url, api_key=route.token, max_retries=0
        )
        tools: Any = [{"name": "get_weather", "description": "Weather now.", "input_schema": WEATHER}]
        first = await client.messages.create(
            model="claude-haiku-4-5",
            max_tokens=200,
            system="Be brief.",
            messages=[{"role": "user", "content": "Weather in Paris?"}],
            tools=tools,
            extra_headers={"anthropic-beta": "token-efficient-tools-2025-02-19"},
        )
        use = first.content[0]
        assert use.type == "tool_use" and use.input == {"city": "Paris"} and first.stop_reason == "tool_use"
        follow: Any = [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": [use.model_dump()]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "18 C"}]},
        ]
        async with client.messages.stream(
            model="claude-haiku-4-5", max_tokens=200, messages=follow, tools=tools
        ) as events:
            text = "".join([t async for t in events.text_stream])
            final = await events.get_final_message()
        assert text == "It is 18 degrees in Paris." and final.stop_reason == "end_turn"
        assert final.usage.output_tokens == 9 and final.usage.cache_read_input_tokens == 10

    serve(model, test)
    first, follow = model.requests
    assert first.provider == "anthropic" and first.wire_headers == (
        ("anthropic-beta", "token-efficient-tools-2025-02-19"),
    )
    assert first.cache_key_material()["headers"] == {"anthropic-beta": "token-efficient-tools-2025-02-19"}
    assert follow.messages[-1] == ToolResult("call_1", "get_weather", "18 C")


def test_a_wrong_token_is_refused_once_without_the_sdk_retrying() -> None:
    model = Scripted()

    async def test(route: TrialRoute, proxy: TrialProxy) -> None:
        with pytest.raises(openai.AuthenticationError, match="not this trial's token"):
            await oai(route, key="sk-guess").chat.completions.create(model="m", messages=[])

    proxy = serve(model, test)
    assert model.requests == [] and proxy.exchanges == []


def test_a_provider_failure_makes_the_trial_an_error_and_the_sdk_does_not_retry_it() -> None:
    model = Scripted(ProviderError("server", "upstream down", retryable=True, status=503))

    async def test(route: TrialRoute, proxy: TrialProxy) -> None:
        with pytest.raises(openai.InternalServerError, match="upstream down"):
            await oai(route).chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])

    proxy = serve(model, test)
    assert len(model.requests) == 1  # max_retries=2, yet one request: x-should-retry: false
    assert proxy.episode.stop_reason == "provider_error" and "upstream down" in (proxy.episode.error or "")


def test_budgets_turns_and_server_side_state_are_refused_with_their_reason() -> None:
    model = Scripted(TEXT, BudgetReached("not run: budget reached: $1.0000 of $1 (--max-cost)"))

    async def test(route: TrialRoute, proxy: TrialProxy) -> None:
        client = oai(route)
        with pytest.raises(openai.BadRequestError, match="previous_response_id"):
            await client.responses.create(model="m", input="hi", previous_response_id="resp_1")
        await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(openai.RateLimitError, match="max-cost"):
            await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "again"}])

    proxy = serve(model, test)
    assert proxy.episode.stop_reason == "budget" and "--max-cost" in (proxy.episode.error or "")

    over = Scripted(TEXT)

    async def turns(route: TrialRoute, proxy: TrialProxy) -> None:
        client = oai(route)
        await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "one"}])
        with pytest.raises(openai.RateLimitError, match="max_turns"):
            await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "two"}])

    assert serve(over, turns, max_turns=1).episode.stop_reason == "max_turns"


def test_a_request_beyond_the_call_budget_or_after_the_trial_ended_is_refused() -> None:
    """As the model agent gets no reply after calls beyond max_tool_calls, a program's next request is
    refused; so is any request once the episode is over (a cut reply ended it: relayed all the same)."""
    two_calls = dataclasses.replace(CALL, tool_calls=CALL.tool_calls * 2)

    async def calls(route: TrialRoute, proxy: TrialProxy) -> None:
        client = oai(route)
        await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "one"}])
        with pytest.raises(openai.RateLimitError, match=r"allows 1 tool calls \(max_tool_calls\)"):
            await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "two"}])

    model = Scripted(two_calls, TEXT)
    assert serve(model, calls, max_tool_calls=1).episode.stop_reason == "max_tool_calls"
    assert len(model.requests) == 1

    cut = ModelReply("It is 1", (), Usage(3, 4), "length", latency_ms=1.0)

    async def cut_off(route: TrialRoute, proxy: TrialProxy) -> None:
        client = oai(route)
        body = {"model": "m", "messages": [{"role": "user", "content": "one"}], "max_tokens": 4}
        first = await client.chat.completions.create(**body)
        assert first.choices[0].finish_reason == "length" and first.choices[0].message.content == "It is 1"
        with pytest.raises(openai.RateLimitError, match=r"the trial has ended \(max tokens\)"):
            await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "two"}])

    model = Scripted(cut, TEXT)
    episode = serve(model, cut_off).episode
    assert (episode.stop_reason, episode.error) == (
        "max_tokens",
        "the reply was cut at max_tokens=4: raise it in the agent program's requests",
    )
    assert len(model.requests) == 1


def test_nothing_relayed_to_the_program_carries_a_credential_the_gate_holds() -> None:
    """An upstream that echoes the key into an answer (its text, a call's arguments, its id) or quotes
    it in an error: the program gets the answer masked, plain and streamed, and so does the record."""
    key = "gw-credential-5a9e1c7b"
    echoed = ModelReply(
        f"You sent {key}.", (ToolCall(f"call_{key}", "get_weather", json.dumps({"city": key})),), Usage(3, 4)
    )
    model = Scripted(
        echoed, echoed, ProviderError("bad_request", f"rejected (parameter {key!r})", status=400)
    )

    async def test(route: TrialRoute, proxy: TrialProxy) -> None:
        client = oai(route)
        messages: Any = [{"role": "user", "content": "hi"}]
        plain = await client.chat.completions.create(model="m", messages=messages)
        async with client.chat.completions.stream(model="m", messages=messages) as stream:
            streamed = await stream.get_final_completion()
        for answer in (plain, streamed):
            assert key not in answer.model_dump_json() and "You sent ***." in answer.model_dump_json()
        with pytest.raises(openai.BadRequestError) as refused:
            await client.chat.completions.create(model="m", messages=messages)
        assert key not in str(refused.value) and "(parameter '***')" in str(refused.value)

    proxy = serve(model, test, redactor=Redactor((key,)))
    assert all(key not in json.dumps(e.reply.to_dict()) for e in proxy.exchanges)


def test_the_cache_key_of_a_program_request_is_its_body_alone() -> None:
    wire = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "response_format": {"type": "text"},
    }
    request = ModelRequest("openai", "m", None, (), (), ModelParams(temperature=0.5), wire=wire)
    assert request.cache_key_material() == {"provider": "openai", "wire": wire}
    responses = ModelRequest("openai", "m", None, (), (), ModelParams(), api="responses", wire=wire)
    assert responses.cache_key_material() == {"api": "responses", "provider": "openai", "wire": wire}


@pytest.mark.parametrize(
    ("messages", "says"),
    [
        ([{}] * 150_000, "150,002 objects and lists (at most 100,000)"),  # 5 MB of {} took 515 MB
        ([{"role": "user", "content": ""}] * 120_000, "120,002 objects and lists"),
        (
            [{"role": "user", "content": [[[[[[[[[[]]]]]]]]]]}] * 2 + [{"role": "user", "content": "x" * 40}],
            None,
        ),
    ],
)
def test_a_body_denser_in_objects_than_any_model_request_is_refused_before_it_is_read(messages, says) -> None:
    """Memory grows with the objects a body holds, about 550 bytes each once read however short their
    text: a body holding more than any conversation does is refused (400) without being decoded."""
    model = Scripted(TEXT)

    async def test(route: TrialRoute, proxy: TrialProxy) -> None:
        client = oai(route)
        if says is None:
            await client.chat.completions.create(model="m", messages=messages)
            return
        with pytest.raises(openai.BadRequestError, match=re.escape(says)):
            await client.chat.completions.create(model="m", messages=messages)

    proxy = serve(model, test)
    assert len(model.requests) == (1 if says is None else 0)
    assert not proxy.episode.ended


def test_a_body_nested_past_any_model_request_is_refused() -> None:
    deep: Any = "x"
    for _ in range(200):
        deep = [deep]
    model = Scripted()

    async def test(route: TrialRoute, proxy: TrialProxy) -> None:
        with pytest.raises(openai.BadRequestError, match="nested deeper than 128 levels"):
            await oai(route).chat.completions.create(model="m", messages=[{"role": "user", "content": deep}])

    serve(model, test)
    assert model.requests == []
