"""One trial of one case: the model and the mocked tools talk until the final answer.

The loop is provider-neutral: it sends ``ModelRequest``s through ``call_model`` (which the runner
wraps with the cache, the concurrency limiter and retries) and answers every tool call of a reply
with the case's and suite's mocks. It stops at a reply without tool calls (the final answer), after
``max_turns`` replies that still call tools (the answer would need one more), as soon as the calls
go beyond ``max_tool_calls``, or at a reply cut at its output-token limit (``max_tokens``: its text
or last call is unfinished, so it is neither an answer nor calls to answer); ``stop_reason`` says
which. Budgets are limits, not targets: after exactly ``max_tool_calls`` calls the model is still
asked for its final answer. The record's ``output`` is the reply that ended the episode without
calls; an episode that ended otherwise has no final answer (text beside calls is not one).

Provider failures (after retries) and cut replies become the trial's ``error`` (the trial is then an
*error*, not a failure); only fatal provider errors (authentication, unknown model) propagate,
because they stop the run.

Latency is the wall time of the trial with the wall time of each model call replaced by the
provider's own answer time: waiting for a concurrency slot or in retry back-off never makes a case
miss its latency budget, and an answer from the cache counts the time it took when it was recorded
(a budget that fails live fails under ``--replay`` of the same answers, and comparisons show real
latencies, not the cache's).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from gate.episode.simulated_user import next_message, simulator_request
from gate.errors import GateError
from gate.providers.base import BudgetReached, ModelReply, ModelRequest, ProviderError
from gate.results.messages import Message, SystemMessage, ToolCall, ToolResult, UserMessage
from gate.results.run_record import (
    ANSWERED,
    MockKind,
    RecordedCall,
    RunRecord,
    StopReason,
    Usage,
    copy_value,
    parse_arguments,
)
from gate.suite import conversation
from gate.suite.mocks import MockSession, merged
from gate.suite.model import Case, ModelParams, Suite
from gate.suite.model_family import cut_reason
from gate.suite.pricing import BUILT_IN, PriceTable
from gate.tool_servers.live import LiveTools
from gate.util.escape import as_text

CallModel = Callable[[ModelRequest], Awaitable[ModelReply]]

BUDGET_MESSAGE = "not run: budget reached"


async def run_trial(
    suite: Suite,
    case: Case,
    index: int,
    call_model: CallModel,
    *,
    clock: Callable[[], float] = time.perf_counter,
    prices: PriceTable = BUILT_IN,
    live: LiveTools | None = None,
) -> RunRecord:
    """Run trial ``index`` of ``case``; the record's ``extra`` keeps the prepared facts judged checks
    need (e.g. the multiple-choice order shown). ``live`` answers the calls to the tools of
    ``calls: live`` servers (the mocks answer the rest)."""
    episode = _Episode(suite, case, index, call_model, clock, prices)
    episode.live = live
    while True:
        reply = await episode.agent_reply()
        if reply is None:
            break
        if reply.cut:
            episode.cut_off(reply)
            break
        if not reply.tool_calls:
            episode.final_answer(reply)
            if not await episode.simulated_user_speaks():
                break
            continue
        await episode.answer_calls(reply)
        if episode.error is not None:  # a live server that could not answer
            break
        stop = episode.over_budget()
        if stop is not None:
            episode.stop_reason = stop
            break
    return episode.record()


class _Episode:
    """What one trial has exchanged so far, and its phases: ask the agent, take its final answer,
    let the simulated user speak, answer the calls from the mocks, check the budgets, make the record.
    ``transcript`` holds the record's messages; the agent is sent them without the system prompt
    (``conversation``), which its requests carry apart."""

    def __init__(
        self,
        suite: Suite,
        case: Case,
        index: int,
        call_model: CallModel,
        clock: Callable[[], float],
        prices: PriceTable,
    ) -> None:
        self.started = clock()
        self.suite, self.case, self.call_model, self.clock, self.prices = (
            suite,
            case,
            call_model,
            clock,
            prices,
        )
        self.prepared = conversation.build(suite, case, index)
        defined = [tool.name for tool in suite.agent.tools]
        self.mocks = MockSession(merged(case.mocks, suite.mocks), defined, case.state)
        self.system = self.prepared.system or None
        messages = self.prepared.messages
        self.transcript: list[Message] = [SystemMessage(self.system)] if self.system else []
        self.transcript.extend(messages)
        self.user_input = next((m.content for m in reversed(messages) if isinstance(m, UserMessage)), "")
        self.calls: list[RecordedCall] = []
        self.usage = Usage()
        self.cost: float | None = 0.0
        self.turns = 0
        self.output = ""
        self.error: str | None = None
        self.stop_reason: StopReason = "final_answer"
        self.user_turns = 0  # messages the simulated user wrote
        self.waited = 0.0  # time inside call_model beyond the provider's own answer time
        self.live: LiveTools | None = None

    async def _ask(self, request: ModelRequest, who: str) -> ModelReply | None:
        """``request``'s reply, or None with ``error`` and ``stop_reason`` set when there is none
        (fatal provider errors propagate: they stop the run)."""
        try:
            return await self.call_model(request)
        except ProviderError as exc:
            if exc.fatal:
                raise
            self.error, self.stop_reason = f"{who}{exc}", "provider_error"
        except BudgetReached as exc:  # the run's budget: the exception says which, and why
            self.error, self.stop_reason = str(exc) or BUDGET_MESSAGE, "budget"
        return None

    async def agent_reply(self) -> ModelReply | None:
        """The agent's next reply (one turn), or None when the trial ends without one."""
        agent = self.suite.agent
        request = ModelRequest(
            provider=agent.provider,
            model=agent.model,
            system=self.system,
            messages=self.conversation(),
            tools=agent.tools,
            params=agent.params,
            api=agent.api,
        )
        call_started = self.clock()
        reply = await self._ask(request, "")
        if reply is None:
            return None
        call_wall = (self.clock() - call_started) * 1000.0
        if reply.latency_ms is not None:  # negative for a cache hit: the recorded answer time counts
            self.waited += call_wall - reply.latency_ms
        self.turns += 1
        self.usage = self.usage + reply.usage
        if self.cost is not None:
            step = self.prices.cost(
                agent.provider, agent.model, reply.usage, reply.cached_input_tokens, reply.model
            )
            self.cost = None if step is None else self.cost + step
        return reply

    def conversation(self) -> tuple[Message, ...]:
        """The messages the agent is sent: the transcript without the system prompt."""
        return tuple(self.transcript[1:] if self.system else self.transcript)

    def final_answer(self, reply: ModelReply) -> None:
        self.output = reply.text  # reasoning (thinking) is kept apart: shown in the transcript, never scored
        self.transcript.append(reply.message())

    async def simulated_user_speaks(self) -> bool:
        """After a final answer: whether the simulated user wrote another message (the episode goes on).
        Not once the agent has used its ``max_turns`` replies: the budget counts over the whole episode,
        and a message the agent may not answer would only cost a request."""
        user, simulator = self.case.user, self.suite.user_simulator
        if user is None or simulator is None or self.user_turns >= user.max_turns:
            return False
        if self.turns >= self.case.max_turns:
            return False
        said = await self._ask(simulator_request(simulator, user, self.transcript), "user simulator: ")
        if said is None:
            return False
        if said.cut:
            limit = ModelParams(max_tokens=simulator.max_tokens)
            reason = cut_reason(simulator.provider, limit, "user_simulator")
            self.error, self.stop_reason = f"user simulator: {reason}", "max_tokens"
            return False
        message = next_message(said.text)
        if message is None:
            self.stop_reason = "user_done"
            return False
        self.user_turns += 1
        self.transcript.append(UserMessage(message, simulated=True))
        return True

    def cut_off(self, reply: ModelReply) -> None:
        """The agent's reply was cut at its token limit: kept in the transcript with the provider's
        stop reason, its calls recorded unanswered, and the trial ends as an error that says which
        limit to raise (not the agent's failure: its unfinished arguments are not scored)."""
        self.transcript.append(reply.message())
        for call in reply.tool_calls:
            arguments, arguments_error = parse_arguments(call.arguments)
            self.calls.append(
                RecordedCall(call.id, call.name, call.arguments, arguments, arguments_error, self.turns)
            )
        agent = self.suite.agent
        self.error, self.stop_reason = cut_reason(agent.provider, agent.params, "agent.params"), "max_tokens"

    async def answer_calls(self, reply: ModelReply) -> None:
        """Record the reply's calls and answer each from the mocks or its live server; a live server
        that cannot answer ends the trial as an error."""
        self.transcript.append(reply.message())
        for call in reply.tool_calls:
            try:
                await self._answer_call(call)
            except GateError as exc:
                self.error, self.stop_reason = str(exc), "provider_error"
                return

    async def _answer(self, name: str, arguments: dict[str, Any] | None, error: str | None) -> _Answer:
        """The answer to one call: from its live server, else from the mocks."""
        if self.live is None or name not in self.live.names:
            outcome = self.mocks.call(name, arguments)
            return _Answer(outcome.kind, outcome.result, outcome.result, outcome.is_error)
        if arguments is None:  # never sent: the server would only refuse it
            text = f"the call was not sent to the server: {error}"
            return _Answer("live", text, text, True)
        answer = await self.live.call(name, arguments)
        return _Answer("live", answer.value, answer.text, answer.is_error)

    async def _answer_call(self, call: ToolCall) -> None:
        stateful = self.case.state is not None
        arguments, arguments_error = parse_arguments(call.arguments)
        outcome = await self._answer(call.name, arguments, arguments_error)
        self.calls.append(
            RecordedCall(
                id=call.id,
                name=call.name,
                raw_arguments=call.arguments,
                arguments=arguments,
                arguments_error=arguments_error,
                turn=self.turns,
                result=outcome.result,
                mock=outcome.kind,
                is_error=outcome.is_error,
                state=copy_value(self.mocks.state) if stateful else None,
            )
        )
        state = as_text(self.mocks.state) if stateful else None
        self.transcript.append(ToolResult(call.id, call.name, outcome.sent, outcome.is_error, state=state))

    def over_budget(self) -> StopReason | None:
        """After a turn with calls: the budget that stops the episode, if one does."""
        if len(self.calls) > self.case.max_tool_calls:  # a budget is a limit: exactly max_tool_calls is fine
            return "max_tool_calls"
        if self.turns >= self.case.max_turns:
            return "max_turns"
        return None

    def record(self) -> RunRecord:
        latency_ms = max(0.0, (self.clock() - self.started) * 1000.0 - self.waited)
        return RunRecord(
            input=self.user_input,
            messages=tuple(self.transcript),
            calls=tuple(self.calls),
            output=self.output if self.stop_reason in ANSWERED else "",
            turns=self.turns,
            latency_ms=latency_ms,
            usage=self.usage,
            cost_usd=self.cost,
            error=self.error,
            stop_reason=self.stop_reason,
            model=self.suite.agent.model,
            extra=dict(self.prepared.extra),
            state=self.mocks.state,
        )


@dataclass(frozen=True)
class _Answer:
    """One call's answer: how it was answered, the value recorded on the call, what the model reads."""

    kind: MockKind
    result: Any
    sent: Any
    is_error: bool
