"""Conversations that start mid-task: earlier tool calls (an assistant message's ``tool_calls``) and
their results (tool messages) are read into the case's messages, and a history no API would take is
refused at its ``file:line:column``."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from gate.files.suite_loader import load_suites
from gate.results.messages import AssistantMessage, ToolCall, ToolResult, UserMessage
from tests.builders import WEATHER_FUNCTION

HEAD = """\
version: 1
name: s
agent:
  provider: {provider}
  model: m
  tools: [{{file: tools.json}}]{params}
cases:
  - id: c
    conversation:
"""


def load(tmp_path: Path, conversation: str, provider: str = "openai", params: str = ""):
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "tools.json").write_text(json.dumps([WEATHER_FUNCTION]))
    head = HEAD.format(provider=provider, params=params)
    (tmp_path / "s.suite.yaml").write_text(head + textwrap.indent(textwrap.dedent(conversation), "      "))
    return load_suites([tmp_path], root=tmp_path)


def problems(tmp_path: Path, conversation: str, **kw: str) -> list[str]:
    return [p.render() for p in load(tmp_path, conversation, **kw).problems]


def test_earlier_calls_and_their_results_become_the_case_s_history(tmp_path):
    loaded = load(
        tmp_path,
        """\
        - {role: user, content: Weather in Paris and Rome?}
        - role: assistant
          content: Let me look.
          tool_calls:
            - {name: get_weather, arguments: {city: Paris}}
            - {id: r1, name: get_weather, arguments: {city: Rome}}
        - {role: tool, tool_call_id: r1, content: {temp_c: 21}, is_error: false}
        - {role: tool, tool_call_id: call_1, content: service down, is_error: true}
        - {role: user, content: And tomorrow?}
        """,
    )
    assert loaded.problems == ()
    assert loaded.suites[0].cases[0].conversation == (
        UserMessage("Weather in Paris and Rome?"),
        AssistantMessage(
            "Let me look.",
            tool_calls=(
                ToolCall("call_1", "get_weather", '{"city": "Paris"}'),
                ToolCall("r1", "get_weather", '{"city": "Rome"}'),
            ),
        ),
        ToolResult("r1", "get_weather", '{"temp_c": 21}'),
        ToolResult("call_1", "get_weather", "service down", is_error=True),
        UserMessage("And tomorrow?"),
    )


def test_a_conversation_may_end_with_the_results_the_agent_continues_from(tmp_path):
    loaded = load(
        tmp_path,
        """\
        - {role: user, content: Weather in Paris?}
        - {role: assistant, tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
        - {role: tool, content: {temp_c: 18}}
        """,
    )
    assert loaded.problems == ()
    last = loaded.suites[0].cases[0].conversation[-1]
    assert (last.role, last.call_id, last.name) == ("tool", "call_1", "get_weather")


@pytest.mark.parametrize(
    ("conversation", "expected"),
    [
        (
            """\
            - {role: user, content: hi}
            - {role: assistant, tool_calls: [{name: get_wether}]}
            - {role: tool, content: x}
            """,
            [
                "s.suite.yaml:11:47: cases[0].conversation[1].tool_calls[0].name: unknown tool 'get_wether' "
                "(fix: did you mean 'get_weather'?)"
            ],
        ),
        (
            """\
            - {role: user, content: hi}
            - {role: assistant, tool_calls: [{name: get_weather}, {name: get_weather}]}
            - {role: tool, content: x}
            - {role: user, content: hi}
            """,
            [
                "s.suite.yaml:11:39: cases[0].conversation[1].tool_calls: no result for the call(s) "
                "'call_1', 'call_2' (fix: add {role: tool, tool_call_id: ID, content: ...} for each, right "
                "after this message)",
                "s.suite.yaml:12:9: cases[0].conversation[2]: which call does this result answer? 2 wait for "
                "one: call_1, call_2 (fix: give tool_call_id)",
            ],
        ),
        (
            """\
            - {role: user, content: hi}
            - {role: tool, content: x}
            """,
            [
                "s.suite.yaml:11:9: cases[0].conversation[1]: a tool result with no call waiting for it "
                "(fix: put the results right after the assistant message whose tool_calls they answer)"
            ],
        ),
        (
            """\
            - {role: user, content: hi}
            - {role: assistant, tool_calls: [{id: a, name: get_weather}]}
            - {role: tool, tool_call_id: b, content: x}
            """,
            [
                "s.suite.yaml:11:39: cases[0].conversation[1].tool_calls: no result for the call(s) 'a' "
                "(fix: add {role: tool, tool_call_id: ID, content: ...} for each, right after this message)",
                "s.suite.yaml:12:36: cases[0].conversation[2].tool_call_id: no call 'b' waits for a result "
                "here (waiting: a) (fix: name the id of a call of the assistant message before it)",
            ],
        ),
        (
            """\
            - {role: user, content: hi}
            - {role: assistant, tool_calls: [{id: a, name: get_weather}]}
            - {role: tool, content: x}
            - {role: assistant, tool_calls: [{id: a, name: get_weather}]}
            - {role: tool, content: y}
            """,
            [
                "s.suite.yaml:13:45: cases[0].conversation[3].tool_calls[0].id: duplicate call id 'a' "
                "(first at line 11)"
            ],
        ),
        (
            """\
            - {role: user, content: hi, tool_calls: [{name: get_weather}]}
            - {role: assistant, content: done, tool_call_id: x}
            """,
            [
                "s.suite.yaml:10:47: cases[0].conversation[0].tool_calls: tool_calls belongs to assistant "
                "messages, not to user ones",
                "s.suite.yaml:11:9: cases[0].conversation[1]: the conversation must end with a user message "
                "or a tool result (fix: add the user's next message)",
                "s.suite.yaml:11:56: cases[0].conversation[1].tool_call_id: tool_call_id belongs to tool "
                "messages, not to assistant ones",
            ],
        ),
    ],
)
def test_a_history_no_api_takes_is_refused_where_it_is_written(tmp_path, conversation, expected):
    assert problems(tmp_path, conversation) == expected


def test_with_anthropic_thinking_a_conversation_cannot_end_with_results(tmp_path):
    history = """\
        - {role: user, content: Weather in Paris?}
        - {role: assistant, tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
        - {role: tool, content: {temp_c: 18}}
        """
    params = "\n  params: {thinking: {budget_tokens: 2048}, max_tokens: 4096}"
    assert problems(tmp_path, history, provider="anthropic", params=params) == [
        "s.suite.yaml:13:9: cases[0].conversation[2]: with extended thinking, Anthropic needs the "
        "assistant's own (signed) thinking before the tool results that end a conversation, and a written "
        "conversation has none (fix: end the conversation with the user's next message, or turn thinking off)"
    ]
    assert (
        problems(tmp_path, history + "- {role: user, content: thanks}\n", provider="anthropic", params=params)
        == []
    )
