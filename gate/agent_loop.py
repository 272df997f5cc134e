"""One trial of one case: the model and the mocked tools talk until the final answer.

The loop is provider-neutral: it sends ``ModelRequest``s through ``call_model`` (which the runner
wraps with the cache, the concurrency limiter and retries) and answers every tool call of a reply
with the case's and suite's mocks. It stops at a reply without tool calls (the final answer), after
``max_turns`` replies that still call tools (the answer would need one more), or as soon as the calls
go beyond ``max_tool_calls``; ``stop_reason`` says which. Budgets are limits, not targets: after
exactly ``max_tool_calls`` calls the model is still asked for its final answer.

Provider failures (after retries) become the trial's ``error`` (the trial is then an *error*, not a
failure); only fatal ones (authentication, unknown model) propagate, because they stop the run.

Latency is the wall time of the trial, with the time spent waiting for a concurrency slot or in
retry back-off replaced by the provider's own answer time, so that a busy run (or a replay from the
cache, which keeps the original answer time) does not make cases miss their latency budget.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from gate import conversation, limits
from gate.mocks import MockSession, merged
from gate.pricing import BUILT_IN, PriceTable
from gate.providers.base import BudgetReached, ModelReply, ModelRequest, ProviderError, reasoning_text
from gate.run_record import RecordedCall, RunRecord, Usage, copy_value
from gate.simulated_user import next_message, simulator_request
from gate.suite_model import Case, Suite

CallModel = Callable[[ModelRequest], Awaitable[ModelReply]]

BUDGET_MESSAGE = "not run: budget reached"


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """The arguments object of a call, or None and the reason it is not one."""
    if raw is None or raw.strip() == "":
        return {}, None  # no arguments at all: an empty object, as every SDK treats it
    too_deep = f"arguments are nested deeper than {limits.MAX_NESTING} levels"
    try:
        value = json.loads(raw)
    except RecursionError:
        return None, too_deep
    except ValueError as exc:
        return None, f"arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"arguments are a JSON {type(value).__name__}, not an object"
    if limits.nested_deeper_than(value):
        return None, too_deep
    return value, None


async def run_trial(
    suite: Suite,
    case: Case,
    index: int,
    call_model: CallModel,
    *,
    clock: Callable[[], float] = time.perf_counter,
    prices: PriceTable = BUILT_IN,
) -> tuple[RunRecord, dict[str, Any]]:
    """Run trial ``index`` of ``case``; returns the run record and the prepared ``extra`` (e.g. the
    multiple-choice order shown), which judged checks need."""
    started = clock()
    prepared = conversation.build(suite, case, index)
    agent = suite.agent
    mocks = MockSession(merged(case.mocks, suite.mocks), case.state)
    system = prepared.system or None

    sent: list[dict[str, Any]] = [dict(m) for m in prepared.messages]  # neutral request messages
    transcript: list[dict[str, Any]] = []  # the record's messages
    if system:
        transcript.append({"role": "system", "content": system})
    transcript.extend({"role": m["role"], "content": m.get("content", "")} for m in prepared.messages)
    user_input = next((m.get("content", "") for m in reversed(prepared.messages) if m["role"] == "user"), "")

    calls: list[RecordedCall] = []
    usage = Usage()
    cost: float | None = 0.0
    turns = 0
    output = ""
    error: str | None = None
    stop_reason = "final_answer"
    user_turns = 0  # messages the simulated user wrote
    waited = 0.0  # time inside call_model beyond the provider's own answer time

    while True:
        request = ModelRequest(
            provider=agent.provider,
            model=agent.model,
            system=system,
            messages=tuple(sent),
            tools=agent.tools,
            params=agent.params,
            api=agent.api,
        )
        call_started = clock()
        try:
            reply = await call_model(request)
        except ProviderError as exc:
            if exc.fatal:
                raise
            error, stop_reason = str(exc), "provider_error"
            break
        except BudgetReached:
            error, stop_reason = BUDGET_MESSAGE, "budget"
            break
        call_wall = (clock() - call_started) * 1000.0
        if reply.latency_ms is not None:
            waited += max(0.0, call_wall - reply.latency_ms)
        turns += 1
        usage = usage + reply.usage
        if cost is not None:
            step = prices.cost(agent.provider, agent.model, reply.usage, reply.cached_input_tokens)
            cost = None if step is None else cost + step
        output = reply.text  # reasoning (thinking) is kept apart: shown in the transcript, never scored
        thought = _reasoning_fields(reply)

        if not reply.tool_calls:
            transcript.append({"role": "assistant", "content": reply.text, **thought[0]})
            sent.append({"role": "assistant", "content": sendable(reply.text), **thought[1]})
            if case.user is None or suite.user_simulator is None or user_turns >= case.user.max_turns:
                break
            try:
                said = await call_model(simulator_request(suite.user_simulator, case.user, transcript))
            except ProviderError as exc:
                if exc.fatal:
                    raise
                error, stop_reason = f"user simulator: {exc}", "provider_error"
                break
            except BudgetReached:
                error, stop_reason = BUDGET_MESSAGE, "budget"
                break
            message = next_message(said.text)
            if message is None:
                stop_reason = "user_done"
                break
            user_turns += 1
            transcript.append({"role": "user", "content": message, "simulated": True})
            sent.append({"role": "user", "content": sendable(message)})
            continue

        # The record keeps what the model sent; what goes back to it must be encodable (UTF-8).
        call_dicts = [
            {"id": sendable(c.id), "name": sendable(c.name), "arguments": sendable(c.arguments)}
            for c in reply.tool_calls
        ]
        sent.append(
            {"role": "assistant", "content": sendable(reply.text), "tool_calls": call_dicts, **thought[1]}
        )
        transcript.append(
            {
                "role": "assistant",
                "content": reply.text,
                "calls": [c.id for c in reply.tool_calls],
                **thought[0],
            }
        )
        for call in reply.tool_calls:
            arguments, arguments_error = parse_arguments(call.arguments)
            outcome = mocks.call(call.name, arguments)
            calls.append(
                RecordedCall(
                    id=call.id,
                    name=call.name,
                    raw_arguments=call.arguments,
                    arguments=arguments,
                    arguments_error=arguments_error,
                    turn=turns,
                    result=outcome.result,
                    mock=outcome.kind,
                    is_error=outcome.is_error,
                    state=copy_value(mocks.state) if case.state is not None else None,
                )
            )
            tool_message = {
                "role": "tool",
                "call_id": sendable(call.id),
                "name": sendable(call.name),
                "content": sendable(outcome.result),
                "is_error": outcome.is_error,
            }
            sent.append(tool_message)
            transcript.append(
                {
                    "role": "tool",
                    "call_id": call.id,
                    "name": call.name,
                    "content": _as_text(outcome.result),
                    "is_error": outcome.is_error,
                    **({"state": _as_text(mocks.state)} if case.state is not None else {}),
                }
            )
        if len(calls) > case.max_tool_calls:  # a budget is a limit: exactly max_tool_calls is fine
            stop_reason = "max_tool_calls"
            break
        if turns >= case.max_turns:
            stop_reason = "max_turns"
            break

    latency_ms = max(0.0, (clock() - started) * 1000.0 - waited)
    record = RunRecord(
        input=user_input,
        messages=tuple(transcript),
        calls=tuple(calls),
        output=output,
        turns=turns,
        latency_ms=latency_ms,
        usage=usage,
        cost_usd=cost,
        error=error,
        stop_reason=stop_reason,
        model=agent.model,
        extra=dict(prepared.extra),
        state=mocks.state,
    )
    return record, dict(prepared.extra)


def _reasoning_fields(reply: ModelReply) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a reply's reasoning adds to the transcript message (its readable text) and to the
    message sent back (the provider's blocks, unchanged, as the APIs require)."""
    if not reply.reasoning:
        return {}, {}
    text = reasoning_text(reply.reasoning)
    return ({"thinking": text} if text else {}), {"reasoning": list(reply.reasoning)}


def sendable(value: Any) -> Any:
    """``value`` with every lone UTF-16 surrogate (a model can send ``"\\ud800"`` in its JSON)
    replaced by U+FFFD, so that the next request can be encoded; anything else unchanged."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, dict):
        items = [(sendable(k), sendable(v)) for k, v in value.items()]
        changed = any(a[0] is not k or a[1] is not v for a, (k, v) in zip(items, value.items(), strict=True))
        return dict(items) if changed else value
    if isinstance(value, list):
        values = [sendable(v) for v in value]
        return values if any(a is not b for a, b in zip(values, value, strict=True)) else value
    return value


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
