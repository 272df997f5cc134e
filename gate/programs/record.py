"""The run record of one trial of an agent program, built from what the gate saw (DESIGN section 10):
the messages it wrote to the program and the answers it read, the model requests and replies that
went through the recording proxy, and the calls the mock MCP server answered.

- the calls are the tool calls of the replies, in order, each in the turn (model reply) that made it;
  its result is what the program sent back to the model for it (the tool message of a later
  request) or, for a call the mock MCP server answered, the mock's own result, with which mock
  answered (``matched``, ``fallback``...) and the state after it; a call the program answered with
  its own code is recorded with ``mock: program``;
- the output is the program's last answer (what its user sees);
- the tools each request offered the model, as it offered them (``offered``): the automatic checks
  of a call use those of the request it answered, and the reports show them;
- usage, cost and the latency come from the replies (the latency without the time the gate held a
  request back: a concurrency slot, retry back-off, as for the model agent);
- the transcript: the program's system prompt (from its first request that has one), the case's
  earlier turns, every message and answer, each reply with its calls and their results; what the
  program wrote to its standard error is the record's ``log``, apart from what was said (secrets
  masked by the caller).

Pure.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gate.providers.base import ModelReply
from gate.providers.wire_requests import WireRequest
from gate.results.messages import AssistantMessage, Message, SystemMessage, ToolResult, UserMessage
from gate.results.run_record import (
    OfferedTool,
    RecordedCall,
    RunRecord,
    StopReason,
    Usage,
    parse_arguments,
)
from gate.suite.mocks import MockOutcome
from gate.suite.pricing import PriceTable
from gate.util.escape import as_text


@dataclass(frozen=True)
class Exchange:
    """One model request of the trial and its reply; ``waited_ms`` is the time the request spent in
    the gate beyond the provider's own answer time (a concurrency slot, retry back-off)."""

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


@dataclass(frozen=True)
class Turn:
    """One message the gate wrote to the program, its answer (None: none came) and how many model
    exchanges had happened when the answer came (or the trial ended)."""

    message: str
    answer: str | None
    exchanges: int
    simulated: bool = False


@dataclass(frozen=True)
class ProgramOutcome:
    """How the program's side of the trial ended."""

    turns: tuple[Turn, ...]
    history: tuple[Message, ...]  # the case's earlier turns, given on the first line
    crash: str | None  # why the program failed (its exit, a timeout, a line off the protocol)
    stderr: str  # the tail of its standard error
    user_done: bool  # the simulated user said the episode is over
    latency_ms: float  # first message written to the last answer read


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _results(exchanges: Sequence[Exchange]) -> dict[str, ToolResult]:
    """call id -> the first tool message answering it in the requests."""
    found: dict[str, ToolResult] = {}
    for exchange in exchanges:
        for message in exchange.request.messages:
            if isinstance(message, ToolResult) and message.call_id and message.call_id not in found:
                found[message.call_id] = message
    return found


def _calls(exchanges: Sequence[Exchange], mcp_calls: Sequence[McpCall]) -> list[RecordedCall]:
    answered = _results(exchanges)
    unused = list(mcp_calls)
    calls: list[RecordedCall] = []
    for turn, exchange in enumerate(exchanges, 1):
        for call in exchange.reply.tool_calls:
            arguments, error = parse_arguments(call.arguments)
            served = next(
                (m for m in unused if m.name == call.name and m.arguments == (arguments or {})), None
            )
            message = answered.get(call.id)
            result: Any = _value(message.text) if message is not None else None
            is_error = message.is_error if message is not None else False
            mock: Any = "program"
            state = None
            if served is not None:
                unused.remove(served)
                result, is_error, mock, state = (
                    served.outcome.result,
                    served.outcome.is_error,
                    served.outcome.kind,
                    served.state,
                )
            calls.append(
                RecordedCall(
                    id=call.id,
                    name=call.name,
                    raw_arguments=call.arguments,
                    arguments=arguments,
                    arguments_error=error,
                    turn=turn,
                    result=result,
                    mock=mock,
                    is_error=is_error,
                    state=state,
                )
            )
    return calls


def _exchange_messages(exchange: Exchange, calls: dict[str, RecordedCall]) -> list[Message]:
    """A reply (with its reasoning, and its stop reason when it was cut) and the results of its calls."""
    reply = exchange.reply
    messages: list[Message] = [reply.message()]
    for tool_call in reply.tool_calls:
        call = calls.get(tool_call.id)
        if call is None or (call.result is None and call.mock == "none"):
            continue
        state = as_text(call.state) if call.state is not None else None
        messages.append(ToolResult(call.id, call.name, call.result, call.is_error, state=state))
    return messages


def _transcript(
    outcome: ProgramOutcome, exchanges: Sequence[Exchange], calls: Sequence[RecordedCall]
) -> list[Message]:
    by_id = {c.id: c for c in calls}
    system = next((e.request.system for e in exchanges if e.request.system), None)
    messages: list[Message] = [SystemMessage(system)] if system else []
    messages += outcome.history
    done = 0
    for turn in outcome.turns:
        messages.append(UserMessage(turn.message, simulated=turn.simulated))
        for exchange in exchanges[done : turn.exchanges]:
            messages += _exchange_messages(exchange, by_id)
        last = exchanges[turn.exchanges - 1].reply if turn.exchanges > done else None
        done = max(done, turn.exchanges)
        if turn.answer is not None and not (
            last is not None and not last.tool_calls and last.text == turn.answer
        ):
            messages.append(AssistantMessage(turn.answer))
    for exchange in exchanges[done:]:
        messages += _exchange_messages(exchange, by_id)
    return messages


def _stop(outcome: ProgramOutcome, proxy_stop: StopReason | None) -> StopReason:
    if proxy_stop is not None:
        return proxy_stop  # provider_error, budget, max_turns
    if outcome.crash is not None:
        return "agent_crashed"
    return "user_done" if outcome.user_done else "final_answer"


def program_record(
    outcome: ProgramOutcome,
    exchanges: Sequence[Exchange],
    mcp_calls: Sequence[McpCall],
    *,
    proxy_stop: StopReason | None,
    proxy_error: str | None,
    state: Any,
    extra: dict[str, Any],
    prices: PriceTable,
) -> RunRecord:
    calls = _calls(exchanges, mcp_calls)
    usage = Usage()
    cost: float | None = 0.0
    for exchange in exchanges:
        reply = exchange.reply
        usage = usage + reply.usage
        request = exchange.request
        step = prices.cost(
            request.provider, request.model, reply.usage, reply.cached_input_tokens, reply.model
        )
        cost = None if step is None or cost is None else cost + step
    answers = [t.answer for t in outcome.turns if t.answer is not None]
    stop = _stop(outcome, proxy_stop)
    models = list(dict.fromkeys(e.request.model for e in exchanges))
    waited = sum(e.waited_ms for e in exchanges)
    crashed = {"agent_crashed": outcome.crash} if stop == "agent_crashed" and outcome.crash else {}
    return RunRecord(
        input=outcome.turns[0].message if outcome.turns else "",
        messages=tuple(_transcript(outcome, exchanges, calls)),
        calls=tuple(calls),
        output=answers[-1] if answers else "",
        turns=len(exchanges),
        latency_ms=max(0.0, outcome.latency_ms - waited),
        usage=usage,
        cost_usd=cost,
        error=proxy_error if stop in ("provider_error", "budget") else None,
        stop_reason=stop,
        model=", ".join(models),
        extra={**extra, **crashed},
        state=state,
        offered=tuple(_offered(e.request) for e in exchanges),
        log=outcome.stderr,
    )


def _offered(request: WireRequest) -> tuple[OfferedTool, ...]:
    """The tools ``request`` offered the model, as it offered them."""
    return tuple(OfferedTool(t.name, t.description, t.parameters) for t in request.tools)
