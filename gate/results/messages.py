"""The messages of a conversation, typed: what the system prompt, the user, the assistant and the tools
said, one model from the suite to the reports (DESIGN.md sections 2 and 3).

- A case's conversation (``gate.suite.model.Case.conversation``) is made of these, its earlier turns
  marked ``given`` once a trial sends them (``gate.suite.conversation``);
- a model request's messages are these (``gate.providers.base.ModelRequest``): each provider adapter
  turns them into its API's form, at its edge (``gate.providers``);
- the run record's transcript (``gate.results.run_record.RunRecord.messages``) is these: every report
  reads them as they are; the results file writes them with ``message_json`` and reads them back at
  its edge (``gate.results_json``).

An assistant message holds its tool calls whole (``ToolCall``: id, name, the argument text exactly as
the model sent it); the run record's ``calls`` say how each was answered and scored. A tool result
holds the result as the value the tool gave (a string, or a JSON value: the model reads its JSON
text, ``text``). Pure data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias

from gate.util.escape import as_text
from gate.util.json_types import JsonObject

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call an assistant made: ``arguments`` is the argument text exactly as the model sent it
    (it may be invalid JSON: scored as such, never repaired)."""

    id: str
    name: str
    arguments: str = "{}"


@dataclass(frozen=True, slots=True)
class SystemMessage:
    role: ClassVar[Literal["system"]] = "system"
    content: str


@dataclass(frozen=True, slots=True)
class UserMessage:
    """What the user said; ``simulated``: written by the case's simulated user during the trial."""

    role: ClassVar[Literal["user"]] = "user"
    content: str
    simulated: bool = False


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """What the assistant said: its text and the tool calls it made.

    ``given``: a turn of the case's conversation (history sent with the trial, not the trial's own
    doing: its calls are not the record's ``calls``). ``thinking``: the model's visible reasoning,
    shown and never scored; ``reasoning``: the provider's own reasoning blocks (Anthropic thinking
    with its signature, Responses reasoning items), sent back unchanged as the APIs require and never
    stored in the results. ``finish_reason``: the provider's stop reason of a reply cut at its
    output-token limit (its text or last call unfinished), "" otherwise."""

    role: ClassVar[Literal["assistant"]] = "assistant"
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    given: bool = False
    thinking: str = ""
    reasoning: tuple[JsonObject, ...] = ()
    finish_reason: str = ""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The result of one tool call (``call_id``; ``name`` the tool's), as the model reads it.

    ``content`` is the result as the tool gave it: a string, or a JSON value whose text (``text``)
    the model reads. ``given``: a result in the case's conversation. ``state``: the mock backend's
    state after the call, as JSON text (None when the case's mocks are stateless)."""

    role: ClassVar[Literal["tool"]] = "tool"
    call_id: str
    name: str
    content: Any
    is_error: bool = False
    given: bool = False
    state: str | None = None

    @property
    def text(self) -> str:
        """The result as the text a tool message carries: a string as it is, a value as its JSON."""
        return as_text(self.content)


Message: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolResult


def message_json(message: Message) -> JsonObject:
    """``message`` as JSON: how the results file stores it (``gate.results_json`` reads it back) and how
    path assertions see it (``messages[-1].content``). An assistant turn of the trial lists its calls
    by id (``calls``: the record's ``calls`` hold them whole); a given one holds them (``tool_calls``);
    a tool result's content is its text. Flags (``is_error``, ``given``, ``simulated``) are written when
    true. Reasoning blocks are not stored (their text is ``thinking``)."""
    if isinstance(message, AssistantMessage):
        shown: JsonObject = {"role": "assistant", "content": message.content}
        if message.tool_calls and message.given:
            shown["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls
            ]
        elif message.tool_calls:
            shown["calls"] = [c.id for c in message.tool_calls]
        if message.finish_reason:
            shown["finish_reason"] = message.finish_reason
        if message.thinking:
            shown["thinking"] = message.thinking
        if message.given:
            shown["given"] = True
        return shown
    if isinstance(message, ToolResult):
        shown = {"role": "tool", "call_id": message.call_id, "name": message.name, "content": message.text}
        if message.is_error:
            shown["is_error"] = True
        if message.state is not None:
            shown["state"] = message.state
        if message.given:
            shown["given"] = True
        return shown
    if isinstance(message, UserMessage) and message.simulated:
        return {"role": "user", "content": message.content, "simulated": True}
    return {"role": message.role, "content": message.content}
