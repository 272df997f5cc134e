"""An agent program's model traffic as its episode's replies, calls and results (DESIGN section 10): what
the gate saw of it, the model requests and replies that went through the recording proxy and the calls
the mock MCP server answered. The episode (``gate.episode.episode``) makes the run record, as for the
model agent.

- each reply's calls, in order, each in the turn (the reply's number in the trial) that made it;
- a call's result: for a call the mock MCP server answered, the mock's own result, with which mock
  answered (``matched``, ``fallback``, ``live``...) and the state after it (matched by tool and
  arguments, in order); else what the program sent back to the model for it (the tool message of a
  later request: ``mock: program``, its own code answered); else none (``mock: none``: the trial
  ended first).
- the tools each request offered the model, as it offered them (``offered_tools``): the automatic
  checks of a call use those of the request it answered, and the reports show them.

Pure.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gate.providers.base import ModelReply
from gate.providers.wire_requests import WireRequest
from gate.results.messages import ToolResult
from gate.results.run_record import MockKind, OfferedTool, RecordedCall, parse_arguments
from gate.suite.mocks import MockOutcome
from gate.util.escape import as_text


@dataclass(frozen=True)
class Exchange:
    """One model request of the trial and its reply; ``waited_ms`` is the time the request spent in
    the gate beyond the provider's own answer time (a concurrency slot, retry back-off; negative for
    an answer from the cache, which counts the time it took when recorded)."""

    request: WireRequest
    reply: ModelReply
    waited_ms: float


@dataclass(frozen=True)
class McpCall:
    """One ``tools/call`` the trial made: the tool, its arguments, what the mock (or the live server,
    kind ``live``) answered, and the mock backend's state after it (None when the case's mocks are
    stateless, and for a live server's answer: its state is its own)."""

    name: str
    arguments: dict[str, Any]
    outcome: MockOutcome
    state: Any = None


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _sent_back(exchanges: Sequence[Exchange]) -> dict[str, ToolResult]:
    """call id -> the first tool message answering it in the requests."""
    found: dict[str, ToolResult] = {}
    for exchange in exchanges:
        for message in exchange.request.messages:
            if isinstance(message, ToolResult) and message.call_id and message.call_id not in found:
                found[message.call_id] = message
    return found


def reply_calls(
    exchanges: Sequence[Exchange], start: int, unserved: list[McpCall]
) -> list[list[RecordedCall]]:
    """The calls of each reply of ``exchanges[start:]``, with their results (the module doc); the MCP
    calls matched are taken from ``unserved``."""
    sent_back = _sent_back(exchanges)
    replies = []
    for turn, exchange in enumerate(exchanges[start:], start + 1):
        calls = []
        for call in exchange.reply.tool_calls:
            arguments, error = parse_arguments(call.arguments)
            served = next(
                (m for m in unserved if m.name == call.name and m.arguments == (arguments or {})), None
            )
            message = sent_back.get(call.id)
            result: Any = None
            mock: MockKind = "none"
            is_error, state = False, None
            if served is not None:
                unserved.remove(served)
                outcome = served.outcome
                result, is_error, mock, state = outcome.result, outcome.is_error, outcome.kind, served.state
            elif message is not None:
                result, is_error, mock = _value(message.text), message.is_error, "program"
            calls.append(
                RecordedCall(
                    call.id, call.name, call.arguments, arguments, error, turn, result, mock, is_error, state
                )
            )
        replies.append(calls)
    return replies


def result_message(call: RecordedCall) -> ToolResult | None:
    """A call's result as the transcript shows it (None: it got none)."""
    if call.mock == "none":
        return None
    state = as_text(call.state) if call.state is not None else None
    return ToolResult(call.id, call.name, call.result, call.is_error, state=state)


def offered_tools(request: WireRequest) -> tuple[OfferedTool, ...]:
    """The tools ``request`` offered the model, as it offered them."""
    return tuple(OfferedTool(t.name, t.description, t.parameters) for t in request.tools)
