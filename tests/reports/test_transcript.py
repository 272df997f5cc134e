"""The plain-text transcript (JUnit ``system-out``, the Markdown report's failed cases): every kind of
message in order, the trial's own calls with their results where they were made, the case's given
history marked as such, and an agent program's log after what was said."""

from __future__ import annotations

import dataclasses

from gate.reports.transcript import transcript
from gate.results.messages import AssistantMessage, SystemMessage, ToolCall, ToolResult, UserMessage
from tests.results_factory import call, case, record, trial


def test_every_kind_of_message_is_shown_in_order_and_the_log_after_them():
    made = call("get_weather", {"city": "Rome"}, result={"temp_c": 25})
    base = record("And Rome?", [made], output="It is 25 °C.")
    own = base.calls[0]
    messages = (
        SystemMessage("You are a weather assistant."),
        UserMessage("Weather in Paris?"),
        AssistantMessage("", (ToolCall("g1", "get_weather", '{"city": "Paris"}'),), given=True),
        ToolResult("g1", "get_weather", '{"temp_c": 18}', is_error=True, given=True),
        UserMessage("And Rome?", simulated=True),
        AssistantMessage("Looking.", (ToolCall(own.id, own.name, own.raw_arguments),), thinking="Rome next."),
        ToolResult(own.id, own.name, {"temp_c": 25}),
        AssistantMessage("It is 25 °C."),
    )
    rec = dataclasses.replace(base, messages=messages, log="warning: slow cache")
    text = transcript(case("c", trials=[trial(rec=rec)]))
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("[system]"))
    assert lines[start:] == [
        "[system] You are a weather assistant.",
        "[user] Weather in Paris?",
        '[given call] get_weather({"city": "Paris"})',
        '  -> error given result: {"temp_c": 18}',
        "[user] And Rome?",
        "[assistant thinking] Rome next.",
        "[assistant] Looking.",
        '[call] get_weather({"city": "Rome"})',
        '  -> matched mock: {"temp_c": 25}',
        "[assistant] It is 25 °C.",
        "[program log] warning: slow cache",
        "[output] It is 25 °C.",
    ]


def test_a_reply_cut_at_its_token_limit_says_so():
    cut = AssistantMessage("It is 2", finish_reason="length")
    rec = dataclasses.replace(record("Weather?"), messages=(UserMessage("Weather?"), cut), output="")
    assert "[assistant, cut at the token limit (length)] It is 2" in transcript(
        case("c", trials=[trial(rec=rec)])
    )
