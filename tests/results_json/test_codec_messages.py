"""The run record's typed messages through the results file: every kind of message is written in the
file's form and read back as the same message; an agent program's standard error is the record's
``log``, never a message (and an older file's ``program`` message is read as that log)."""

from __future__ import annotations

import dataclasses
import json

from gate.results.messages import (
    AssistantMessage,
    SystemMessage,
    ToolCall,
    ToolResult,
    UserMessage,
    message_json,
)
from gate.results.run_record import RecordedCall
from gate.results_json.codec import to_json
from gate.results_json.read_back import record_from_dict, results_from_dict
from tests.results_factory import case, record, run, suite

LOOKED_UP = RecordedCall("c7", "get_weather", '{"city": "Rome"}', {"city": "Rome"}, None, 1, {"temp_c": 25})

EVERY_KIND = (
    SystemMessage("You are a weather assistant."),
    UserMessage("Weather in Paris?"),
    AssistantMessage("", (ToolCall("call_1", "get_weather", '{"city": "Paris"}'),), given=True),
    ToolResult("call_1", "get_weather", '{"temp_c": 18}', given=True),
    UserMessage("And Rome?", simulated=True),
    AssistantMessage(
        "Let me look.", (ToolCall("c7", "get_weather", '{"city": "Rome"}'),), thinking="Rome, then."
    ),
    ToolResult("c7", "get_weather", {"temp_c": 25}, is_error=True, state='{"asked": 1}'),
    AssistantMessage("It is 25", finish_reason="length"),
)


def test_every_kind_of_message_is_written_in_the_file_s_form():
    assert [message_json(m) for m in EVERY_KIND] == [
        {"role": "system", "content": "You are a weather assistant."},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}'}],
            "given": True,
        },
        {
            "role": "tool",
            "call_id": "call_1",
            "name": "get_weather",
            "content": '{"temp_c": 18}',
            "given": True,
        },
        {"role": "user", "content": "And Rome?", "simulated": True},
        {"role": "assistant", "content": "Let me look.", "calls": ["c7"], "thinking": "Rome, then."},
        {
            "role": "tool",
            "call_id": "c7",
            "name": "get_weather",
            "content": '{"temp_c": 25}',
            "is_error": True,
            "state": '{"asked": 1}',
        },
        {"role": "assistant", "content": "It is 25", "finish_reason": "length"},
    ]


def test_every_kind_of_message_reads_back_as_itself_its_calls_whole_from_the_record():
    rec = dataclasses.replace(record("Weather in Paris?"), messages=EVERY_KIND, calls=(LOOKED_UP,))
    results = run(suite("weather", [case("c", rec=rec)]))
    data = json.loads(to_json(results))
    back = results_from_dict(data).suites[0].cases[0].trials[0].record
    # A tool result's value comes back as the text the file holds (what every report shows).
    assert back.messages == (
        *EVERY_KIND[:6],
        dataclasses.replace(EVERY_KIND[6], content='{"temp_c": 25}'),
        EVERY_KIND[7],
    )
    assert to_json(results_from_dict(data)) == to_json(results)


def test_a_program_s_log_is_kept_apart_from_what_was_said():
    rec = dataclasses.replace(record("hi", output="hello"), log="Traceback: boom\nKeyError: 'x'")
    data = json.loads(to_json(run(suite("s", [case("c", rec=rec)]))))
    stored = data["suites"][0]["cases"][0]["trials"][0]["record"]
    assert stored["log"] == "Traceback: boom\nKeyError: 'x'"
    assert stored["messages"][-1] == {"role": "assistant", "content": "hello"}  # the answer, not a log line
    assert record_from_dict(stored).log == rec.log
    plain = json.loads(to_json(run(suite("s", [case("c", rec=record("hi"))]))))
    assert "log" not in plain["suites"][0]["cases"][0]["trials"][0]["record"]  # the model agent has none


def test_an_older_file_s_program_message_is_read_as_the_log():
    stored = json.loads(to_json(run(suite("s", [case("c", rec=record("hi", output="hello"))]))))
    rec = stored["suites"][0]["cases"][0]["trials"][0]["record"]
    rec["messages"].append(
        {"role": "program", "content": "the agent program exited with code 1\nstandard error:\nboom"}
    )
    back = record_from_dict(rec)
    assert back.log == "boom"
    assert back.messages[-1] == AssistantMessage("hello")
