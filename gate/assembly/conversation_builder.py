"""The builder's conversation part: a case's ``conversation`` -> :class:`Message` tuple, with the checks
that make it a history every provider and API accepts.

A conversation can start mid-task: an assistant message holds the tools it called earlier
(``tool_calls``) and tool messages hold their results. Every call names a tool the agent defines and
has a unique id (``call_1``, ``call_2``, ... in the conversation's order when none is written); its
result comes right after it, before any other user or assistant message, as the APIs require; a tool
message without ``tool_call_id`` answers the one call waiting for a result. The conversation ends
with the user's message or with the results of the last calls (the model agent continues from there;
an agent program, which answers user messages, needs the user's message). Pure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from gate.assembly.context import BuildContext
from gate.results.messages import AssistantMessage, Message, ToolCall, ToolResult, UserMessage
from gate.util.escape import as_text
from gate.util.json_types import JsonObject, PathKey

_RESULT_HINT = "add {role: tool, tool_call_id: ID, content: ...} for each, right after this message"


@dataclass
class _Waiting:
    """The calls of the last assistant message that still wait for their results."""

    at: PathKey = ()  # the assistant message's tool_calls
    calls: dict[str, str] = field(default_factory=dict)  # call id -> tool name


class ConversationReader:
    """Reads one case's conversation; ``thinking``: the agent uses Anthropic extended thinking;
    ``program``: the agent is the team's own program, which answers user messages."""

    def __init__(self, context: BuildContext, at: PathKey, *, thinking: bool = False, program: bool = False):
        self.context, self.at, self.thinking, self.program = context, at, thinking, program
        self.ids: dict[str, PathKey] = {}
        self.waiting = _Waiting()

    def read(self, written: list[Any]) -> tuple[Message, ...]:
        """The messages. A damaged message (None) is left out, and then the order is not checked:
        the schema said what is wrong there."""
        whole = all(m is not None for m in written)
        messages: list[Message] = []
        for index, raw in enumerate(written):
            if raw is None:
                continue
            at = (*self.at, index)
            message = self.message(raw, at)
            if whole:
                message = self.in_order(message, raw.get("tool_call_id"), at)
            messages.append(message)
        if whole and messages:
            self.check_end(messages[-1], (*self.at, len(written) - 1))
        return tuple(messages)

    def message(self, raw: JsonObject, at: PathKey) -> Message:
        role = raw["role"]
        for key, owner in (("tool_calls", "assistant"), ("tool_call_id", "tool"), ("is_error", "tool")):
            if key in raw and role != owner:
                self.context.err((*at, key), f"{key} belongs to {owner} messages, not to {role} ones")
        if role == "tool":
            return ToolResult("", "", as_text(raw["content"]), is_error=bool(raw.get("is_error", False)))
        if role == "user":
            return UserMessage(raw.get("content", ""))
        calls = raw.get("tool_calls", ())
        given = tuple(
            self.call(call, (*at, "tool_calls", i)) for i, call in enumerate(calls) if call is not None
        )
        return AssistantMessage(raw.get("content", ""), tool_calls=given)

    def call(self, raw: JsonObject, at: PathKey) -> ToolCall:
        self.context.check_tool(raw["name"], (*at, "name"))
        call_id = raw.get("id") or f"call_{len(self.ids) + 1}"
        first = self.ids.setdefault(call_id, at)
        if first != at:
            line = self.context.doc.position(first)[0]
            self.context.err((*at, "id"), f"duplicate call id {call_id!r} (first at line {line})")
        return ToolCall(call_id, raw["name"], json.dumps(raw.get("arguments", {}), ensure_ascii=False))

    def in_order(self, message: Message, asked: Any, at: PathKey) -> Message:
        """Each result answers a waiting call (the message gets its id and tool name); no other
        message comes while calls wait."""
        if isinstance(message, ToolResult):
            return self.answer(message, asked, at)
        if self.waiting.calls:
            self.unanswered()
        if isinstance(message, AssistantMessage) and message.tool_calls:
            self.waiting = _Waiting((*at, "tool_calls"), {c.id: c.name for c in message.tool_calls})
        return message

    def answer(self, message: ToolResult, asked: Any, at: PathKey) -> ToolResult:
        calls = self.waiting.calls
        if not calls:
            self.context.err(
                at,
                "a tool result with no call waiting for it",
                "put the results right after the assistant message whose tool_calls they answer",
            )
            return message
        if asked is None and len(calls) > 1:
            self.context.err(
                at,
                f"which call does this result answer? {len(calls)} wait for one: {', '.join(calls)}",
                "give tool_call_id",
            )
            return message
        call_id = next(iter(calls)) if asked is None else str(asked)
        if call_id not in calls:
            self.context.err(
                (*at, "tool_call_id"),
                f"no call {call_id!r} waits for a result here (waiting: {', '.join(calls)})",
                "name the id of a call of the assistant message before it",
            )
            return message
        return replace(message, call_id=call_id, name=calls.pop(call_id))

    def unanswered(self) -> None:
        ids = ", ".join(repr(i) for i in self.waiting.calls)
        self.context.err(self.waiting.at, f"no result for the call(s) {ids}", _RESULT_HINT)
        self.waiting = _Waiting()

    def check_end(self, last: Message, at: PathKey) -> None:
        if self.waiting.calls:
            self.unanswered()
        if isinstance(last, AssistantMessage):
            self.context.err(
                at,
                "the conversation must end with a user message or a tool result",
                "add the user's next message",
            )
        elif isinstance(last, ToolResult) and self.program:
            self.context.err(
                at,
                "an agent program answers user messages, and this conversation ends with a tool result: "
                "there is no message to send it (its earlier turns are given as history)",
                "end the conversation with the user's next message",
            )
        elif isinstance(last, ToolResult) and self.thinking:
            self.context.err(
                at,
                "with extended thinking, Anthropic needs the assistant's own (signed) thinking before the "
                "tool results that end a conversation, and a written conversation has none",
                "end the conversation with the user's next message, or turn thinking off",
            )
