"""The scripted model server answers the real openai and anthropic SDKs correctly, with the
configured latency, counts what it receives, and produces every fault on demand."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request

import anthropic
import openai
import pytest

from tests.conftest import ROOT
from tests.support.model_server import Fault, FaultSchedule, Rule, ScriptedCall

WEATHER_TOOLS_OPENAI = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_forecast",
            "description": "Forecast.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    },
]
WEATHER_TOOLS_ANTHROPIC = [
    {"name": t["function"]["name"], "description": "d", "input_schema": t["function"]["parameters"]}
    for t in WEATHER_TOOLS_OPENAI
]


def oa(server, **kwargs) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.openai_base_url, api_key="sk-secret-test", max_retries=0, **kwargs)


def an(server, **kwargs) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=server.anthropic_base_url, api_key="sk-ant-secret", max_retries=0, **kwargs
    )


def test_openai_tool_call_then_final_answer_from_the_tool_result(model_server):
    server = model_server("weather.yaml")
    client = oa(server)
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What's the weather in Paris?"},
    ]
    first = client.chat.completions.create(model="gpt-test", messages=messages, tools=WEATHER_TOOLS_OPENAI)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert call.type == "function" and call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert first.id and call.id and first.model == "gpt-test"
    assert (
        first.usage.prompt_tokens > 0
        and first.usage.total_tokens == first.usage.prompt_tokens + first.usage.completion_tokens
    )

    messages += [
        choice.message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"temp_c": 18, "sky": "cloudy"})},
    ]
    second = client.chat.completions.create(model="gpt-test", messages=messages, tools=WEATHER_TOOLS_OPENAI)
    assert second.choices[0].finish_reason == "stop"
    assert second.choices[0].message.content == "It is 18 degrees and cloudy."
    assert second.choices[0].message.tool_calls is None


def test_typed_placeholders_and_whole_result(model_server):
    server = model_server("weather.yaml")
    client = oa(server)
    messages = [{"role": "user", "content": "Forecast for Oslo for 3 days please"}]
    first = client.chat.completions.create(model="m", messages=messages, tools=WEATHER_TOOLS_OPENAI)
    call = first.choices[0].message.tool_calls[0]
    assert json.loads(call.function.arguments) == {"city": "Oslo", "days": 3}
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps([1, 2])},
    ]
    second = client.chat.completions.create(model="m", messages=messages, tools=WEATHER_TOOLS_OPENAI)
    assert second.choices[0].message.content == "Forecast: [1, 2]"


def test_anthropic_tool_use_then_final_answer_and_forced_judge_tool(model_server):
    server = model_server("weather.yaml")
    client = an(server)
    messages = [{"role": "user", "content": "weather in Rome"}]
    first = client.messages.create(
        model="claude-test",
        max_tokens=200,
        system="Be brief.",
        messages=messages,
        tools=WEATHER_TOOLS_ANTHROPIC,
    )
    assert first.stop_reason == "tool_use" and first.type == "message" and first.role == "assistant"
    (block,) = first.content
    assert block.type == "tool_use" and block.name == "get_weather" and block.input == {"city": "Rome"}
    assert first.usage.input_tokens > 0 and first.usage.output_tokens > 0

    messages += [
        {"role": "assistant", "content": [block.model_dump(exclude_none=True)]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": block.id, "content": '{"temp_c": 21, "sky": "clear"}'}
            ],
        },
    ]
    second = client.messages.create(
        model="claude-test", max_tokens=200, messages=messages, tools=WEATHER_TOOLS_ANTHROPIC
    )
    assert second.stop_reason == "end_turn"
    assert [b.type for b in second.content] == ["text"]
    assert second.content[0].text == "It is 21 degrees and clear."

    grade_tool = {"name": "grade", "description": "verdict", "input_schema": {"type": "object"}}
    judged = client.messages.create(
        model="judge",
        max_tokens=200,
        messages=[{"role": "user", "content": "Does the answer meet the criterion?"}],
        tools=[grade_tool],
        tool_choice={"type": "tool", "name": "grade"},
    )
    assert judged.content[0].name == "grade"
    assert judged.content[0].input["verdict"] == "yes"


def test_openai_forced_tool_and_default_reply(model_server):
    server = model_server("weather.yaml")
    client = oa(server)
    grade = {"type": "function", "function": {"name": "grade", "parameters": {"type": "object"}}}
    judged = client.chat.completions.create(
        model="judge",
        messages=[{"role": "user", "content": "grade this"}],
        tools=[grade],
        tool_choice={"type": "function", "function": {"name": "grade"}},
    )
    call = judged.choices[0].message.tool_calls[0]
    assert call.function.name == "grade" and json.loads(call.function.arguments)["verdict"] == "yes"
    other = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "tell me a joke"}]
    )
    assert other.choices[0].message.content == "I can only answer weather questions."


def test_records_requests_without_credentials(model_server):
    server = model_server({"rules": [{"when": {"system": "pirate"}, "text": "arr"}]})
    reply = oa(server).chat.completions.create(
        model="m",
        messages=[{"role": "system", "content": "You are a pirate."}, {"role": "user", "content": "hi"}],
    )
    assert reply.choices[0].message.content == "arr"
    an(server).messages.create(model="c", max_tokens=5, messages=[{"role": "user", "content": "hi"}])
    assert server.request_count == 2
    (first, second) = server.requests
    assert first["path"] == "/v1/chat/completions" and second["path"] == "/v1/messages"
    assert first["body"]["messages"][1]["content"] == "hi"
    dumped = json.dumps(server.requests)
    assert "sk-secret-test" not in dumped and "sk-ant-secret" not in dumped
    assert "authorization" not in first["headers"] and "x-api-key" not in second["headers"]
    assert server.status_counts == {200: 2}
    server.reset_stats()
    assert server.request_count == 0 and server.requests == [] and server.status_counts == {}


def test_sixty_four_concurrent_requests_are_served_concurrently(model_server):
    server = model_server("bench.yaml", latency=0.3, record=False)

    async def go() -> list[str]:
        client = openai.AsyncOpenAI(base_url=server.openai_base_url, api_key="x", max_retries=0)
        async with client:
            replies = await asyncio.gather(
                *(
                    client.chat.completions.create(
                        model="m", messages=[{"role": "user", "content": f"case {i}"}]
                    )
                    for i in range(64)
                )
            )
        return [r.choices[0].message.tool_calls[0].function.arguments for r in replies]

    started = time.perf_counter()
    arguments = asyncio.run(go())
    elapsed = time.perf_counter() - started
    assert sorted(json.loads(a)["key"] for a in arguments) == sorted(f"k{i}" for i in range(64))
    # All 64 were in the server at once: the decisive check, which no machine's load can change (a bound
    # on the wall time failed on a loaded machine; the throughput itself is bench/'s to measure).
    assert server.max_in_flight == 64
    assert server.request_count == 64
    assert elapsed >= 0.3  # each waited its latency


def test_latency_is_applied_per_request(model_server):
    server = model_server(None, latency=0.2)
    started = time.perf_counter()
    reply = oa(server).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert time.perf_counter() - started >= 0.2
    assert reply.choices[0].message.content == "OK"


@pytest.mark.parametrize(
    ("status", "openai_error", "anthropic_error"),
    [
        (429, openai.RateLimitError, anthropic.RateLimitError),
        (500, openai.InternalServerError, anthropic.InternalServerError),
        (502, openai.InternalServerError, anthropic.InternalServerError),
        (503, openai.InternalServerError, anthropic.InternalServerError),
        (401, openai.AuthenticationError, anthropic.AuthenticationError),
    ],
)
def test_status_faults_reach_both_sdks_as_their_errors(model_server, status, openai_error, anthropic_error):
    server = model_server(
        {"default": {"text": "never", "fault": {"kind": "status", "status": status, "retry_after": 2}}}
    )
    with pytest.raises(openai_error) as caught:
        oa(server).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert caught.value.status_code == status
    assert caught.value.response.headers["retry-after"] == "2"
    with pytest.raises(anthropic_error) as caught_a:
        an(server).messages.create(model="c", max_tokens=5, messages=[{"role": "user", "content": "x"}])
    assert caught_a.value.status_code == status
    assert server.status_counts == {status: 2}


def test_retry_after_ms_header(model_server):
    fault = Fault(kind="status", status=429, retry_after=0.25, retry_after_ms=True)
    server = model_server([Rule(fault=fault)])
    with pytest.raises(openai.RateLimitError) as caught:
        oa(server).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert caught.value.response.headers["retry-after-ms"] == "250"
    assert "retry-after" not in caught.value.response.headers


def test_rate_limit_schedule_every_nth_request(model_server):
    server = model_server(
        None, faults=[FaultSchedule(Fault(kind="status", status=429, retry_after=1), every=3)]
    )
    client = oa(server)
    outcomes = []
    for _ in range(9):
        try:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
            outcomes.append("ok")
        except openai.RateLimitError:
            outcomes.append("429")
    assert outcomes == ["ok", "ok", "429"] * 3
    assert server.status_counts == {200: 6, 429: 3}


def test_first_k_schedule_and_rule_times(model_server):
    script = [
        Rule(last_user="flaky", times=2, fault=Fault(kind="status", status=503)),
        Rule(last_user="flaky", text="recovered"),
    ]
    server = model_server(script, faults=[{"first": 1, "fault": {"kind": "status", "status": 500}}])
    client = oa(server)
    results = []
    for _ in range(4):
        try:
            results.append(
                client.chat.completions.create(model="m", messages=[{"role": "user", "content": "flaky"}])
                .choices[0]
                .message.content
            )
        except openai.InternalServerError as exc:
            results.append(exc.status_code)
    # request 1: scheduled 500 (uses the rule once), request 2: rule's 503, then the rule is used up.
    assert results == [500, 503, "recovered", "recovered"]


def test_delay_beyond_client_timeout_is_a_timeout(model_server):
    server = model_server({"default": {"text": "late", "fault": {"kind": "delay", "seconds": 2}}})
    started = time.perf_counter()
    with pytest.raises(openai.APITimeoutError):
        oa(server, timeout=0.3).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )
    assert time.perf_counter() - started < 1.5


def test_dropped_connection(model_server):
    server = model_server({"default": {"fault": {"kind": "drop"}}})
    with pytest.raises(openai.APIConnectionError):
        oa(server).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(anthropic.APIConnectionError):
        an(server).messages.create(model="c", max_tokens=5, messages=[{"role": "user", "content": "x"}])
    assert server.status_counts == {"dropped": 2}


@pytest.mark.parametrize("kind", ["empty_body", "truncated_json"])
def test_broken_bodies_fail_to_parse(model_server, kind):
    server = model_server({"default": {"text": "hello there", "fault": {"kind": kind}}})
    with pytest.raises(ValueError):
        oa(server).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(ValueError):
        an(server).messages.create(model="c", max_tokens=5, messages=[{"role": "user", "content": "x"}])


def test_invalid_arguments_and_unknown_tool_and_huge_text(model_server):
    calls = (ScriptedCall(name="get_weather", arguments={"city": "Paris"}),)
    script = [
        Rule(last_user="bad args", tool_calls=calls, fault=Fault(kind="invalid_arguments")),
        Rule(last_user="unknown", tool_calls=calls, fault=Fault(kind="unknown_tool")),
        Rule(last_user="raw", tool_calls=(ScriptedCall(name="get_weather", raw_arguments="{city: Paris"),)),
        Rule(last_user="huge", fault=Fault(kind="huge_text", size=200_000)),
    ]
    server = model_server(script)
    client = oa(server)

    def ask(text: str):
        return (
            client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": text}], tools=WEATHER_TOOLS_OPENAI
            )
            .choices[0]
            .message
        )

    bad = ask("bad args").tool_calls[0]
    with pytest.raises(ValueError):
        json.loads(bad.function.arguments)
    unknown = ask("unknown").tool_calls[0]
    assert unknown.function.name not in {"get_weather", "get_forecast"}
    assert ask("raw").tool_calls[0].function.arguments == "{city: Paris"
    assert len(ask("huge").content) == 200_000

    anthropic_bad = an(server).messages.create(
        model="c",
        max_tokens=5,
        messages=[{"role": "user", "content": "bad args"}],
        tools=WEATHER_TOOLS_ANTHROPIC,
    )
    assert anthropic_bad.content[0].type == "tool_use" and not isinstance(
        anthropic_bad.content[0].input, dict
    )


def test_standalone_process_prints_ready_serves_and_reports_stats(tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"default": {"text": "from the process"}}))
    process = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests/support/model_server.py"),
            "--script",
            str(script),
            "--rate-limit-every",
            "2",
            "--retry-after",
            "1.5",
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline().split()
        assert line[0] == "READY"
        port = int(line[1])
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0)
        assert (
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])
            .choices[0]
            .message.content
            == "from the process"
        )
        with pytest.raises(openai.RateLimitError) as caught:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "b"}])
        assert caught.value.response.headers["retry-after"] == "1.5"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stats") as response:
            stats = json.load(response)
        assert stats["request_count"] == 2
        assert stats["status_counts"] == {"200": 1, "429": 1}
        assert stats["max_in_flight"] == 1
        urllib.request.urlopen(
            urllib.request.Request(f"http://127.0.0.1:{port}/_reset", data=b"", method="POST")
        ).close()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stats") as response:
            assert json.load(response)["request_count"] == 0
    finally:
        process.terminate()
        process.wait(5)


# --- behaving like a real server (llama.cpp's llama-server) -------------------------------------------

TWO_CALLS = {
    "rules": [
        {
            "when": {"last_user": "Paris"},
            "text": "Checking.",
            "tool_calls": [
                {"name": "get_weather", "arguments": {"city": "Paris"}},
                {"name": "get_forecast", "arguments": {"city": "Paris", "days": 3}},
            ],
        }
    ]
}
PARIS = [{"role": "user", "content": "Weather and forecast for Paris"}]


def test_a_reply_over_the_token_limit_is_cut_with_each_apis_finish_reason(model_server):
    server = model_server(TWO_CALLS, cut_at_limit=True)
    # 14 tokens = 56 characters: "Checking." and the first call fit, the second call's arguments are cut.
    chat = oa(server).chat.completions.create(
        model="m", messages=PARIS, tools=WEATHER_TOOLS_OPENAI, max_tokens=14
    )
    choice = chat.choices[0]
    assert choice.finish_reason == "length" and chat.usage.completion_tokens <= 14
    first, second = choice.message.tool_calls
    assert json.loads(first.function.arguments) == {"city": "Paris"}
    assert second.function.name == "get_forecast" and second.function.arguments == '{"city": "Paris"'[:7]
    with pytest.raises(ValueError):
        json.loads(second.function.arguments)

    message = an(server).messages.create(
        model="c", max_tokens=14, messages=PARIS, tools=WEATHER_TOOLS_ANTHROPIC
    )
    assert message.stop_reason == "max_tokens"
    assert [b.input for b in message.content if b.type == "tool_use"] == [{"city": "Paris"}, {}]

    response = oa(server).responses.create(
        model="m",
        input=PARIS,
        tools=[{"type": "function", **WEATHER_TOOLS_ANTHROPIC[0]}],
        max_output_tokens=14,
    )
    assert response.status == "incomplete" and response.incomplete_details.reason == "max_output_tokens"
    assert [item.status for item in response.output if item.type == "function_call"] == [
        "completed",
        "incomplete",
    ]

    text_only = model_server({"default": {"text": "word " * 100}}, cut_at_limit=True)
    cut = oa(text_only).chat.completions.create(model="m", messages=PARIS, max_tokens=5)
    assert cut.choices[0].finish_reason == "length" and cut.choices[0].message.content == ("word " * 4)
    whole = oa(text_only).chat.completions.create(model="m", messages=PARIS, max_tokens=500)
    assert whole.choices[0].finish_reason == "stop"


def _history(arguments: str) -> list[dict[str, object]]:
    return [
        *PARIS,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    ]


def test_invalid_arguments_echoed_in_the_history_get_a_500_like_llama_cpp(model_server):
    server = model_server(TWO_CALLS, refuse_invalid_history=True)
    client = oa(server)
    with pytest.raises(openai.InternalServerError) as refused:
        client.chat.completions.create(model="m", messages=_history("{"), tools=WEATHER_TOOLS_OPENAI)
    assert "Failed to parse tool call arguments as JSON" in str(refused.value)
    client.chat.completions.create(model="m", messages=_history("{}"), tools=WEATHER_TOOLS_OPENAI)
    items = [
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"city'},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
    ]
    with pytest.raises(openai.InternalServerError):
        client.responses.create(model="m", input=[*PARIS, *items])
    assert server.status_counts == {500: 2, 200: 1}


def test_a_named_tool_choice_is_ignored_and_required_forces_the_only_tool(model_server):
    script = {
        "rules": [{"when": {"forced_tool": "grade"}, "tool_calls": [{"arguments": {"verdict": "yes"}}]}]
    }
    server = model_server(script, ignore_named_tool_choice=True)
    grade = {"type": "function", "function": {"name": "grade", "parameters": {"type": "object"}}}
    ask = [{"role": "user", "content": "grade this"}]
    named = oa(server).chat.completions.create(
        model="judge",
        messages=ask,
        tools=[grade],
        tool_choice={"type": "function", "function": {"name": "grade"}},
    )
    assert named.choices[0].message.tool_calls is None  # llama.cpp: "Wrong type supplied", falls back to auto
    required = oa(server).chat.completions.create(
        model="judge", messages=ask, tools=[grade], tool_choice="required"
    )
    assert required.choices[0].message.tool_calls[0].function.name == "grade"
    anthropic_grade = {"name": "grade", "description": "d", "input_schema": {"type": "object"}}
    forced = an(server).messages.create(
        model="judge", max_tokens=50, messages=ask, tools=[anthropic_grade], tool_choice={"type": "any"}
    )
    assert forced.content[0].type == "tool_use" and forced.content[0].name == "grade"

    strict = model_server(script, refuse_required_tool_choice=True)
    with pytest.raises(openai.BadRequestError) as refused:
        oa(strict).chat.completions.create(model="judge", messages=ask, tools=[grade], tool_choice="required")
    assert refused.value.body["param"] == "tool_choice"


def test_replies_name_the_model_the_server_serves(model_server):
    server = model_server(None, served_model="gemma-3-270m-it-Q4_K_M.gguf")
    reply = oa(server).chat.completions.create(model="gpt-4o-mini", messages=PARIS)
    assert reply.model == "gemma-3-270m-it-Q4_K_M.gguf"
    message = an(server).messages.create(model="claude-3-5-haiku-latest", max_tokens=20, messages=PARIS)
    assert message.model == "gemma-3-270m-it-Q4_K_M.gguf"
