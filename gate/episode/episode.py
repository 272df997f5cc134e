"""One trial's episode, the same for both agents (DESIGN.md sections 2, 3 and 10): the user's turns,
the simulated user, the budgets, why the episode ended, and its run record.

The episode starts from the case's conversation (``gate.suite.conversation``): the agent answers its
last user message (or, the model agent's only, when it ends with the results of earlier calls,
continues from them: a program suite's conversation ends with the user's message). After
each final answer the case's simulated user, if it has one, writes the next message, until it says
it is done, its ``max_turns`` messages are written, or the agent has used its ``max_turns`` replies
(a message it could not answer would only cost a request). How an assistant turn is obtained is the
agent's (``Assistant``): the model agent asks the model and answers its calls from the mocks
(``gate.run.agent_loop``); an agent program is written a line and read its answer, its model
traffic seen through the recording proxy (``gate.programs.trial``). Either reports what happened
here: each model reply (``reply``), each call with its result (``call``), the turn's answer
(``answered``), or why the episode ended (``end``).

Why it ends (``StopReason``): the agent's final answer; the simulated user said it was done; a
budget (``budget_stop``: more calls than ``max_tool_calls``, or another reply after ``max_turns``:
budgets are limits, not targets); a reply (the agent's or the simulated user's) cut at its
output-token limit; the provider failed, or the run's budget left no request; the agent program
failed. The first reason other than an answer wins: an episode that ended for one is over, and the
record says that one. A trial that ended with a provider failure, a budget or a cut reply is an
*error* (``error`` says why), not the agent's failure; only fatal provider errors (authentication,
unknown model) propagate, because they stop the run.

Latency is the agent's: the time from each user message to the agent's answer, summed, with the
time the gate held a model request back (a concurrency slot, retry back-off) taken out and an
answer from the cache counted at the time it took when recorded (so a budget that fails live fails
under ``--replay``). The simulated user's time is not the agent's.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from gate.episode.simulated_user import next_message, simulator_request
from gate.providers.base import BudgetReached, ModelReply, ModelRequest, ProviderError
from gate.results.messages import AssistantMessage, Message, SystemMessage, ToolResult, UserMessage
from gate.results.run_record import ANSWERED, OfferedTool, RecordedCall, RunRecord, StopReason, Usage
from gate.suite import conversation
from gate.suite.mocks import MockSession, merged
from gate.suite.model import Case, ModelParams, Suite
from gate.suite.model_family import cut_reason
from gate.suite.pricing import BUILT_IN, PriceTable

CallModel = Callable[[ModelRequest], Awaitable[ModelReply]]

BUDGET_MESSAGE = "not run: budget reached"


class Assistant(Protocol):
    """How one agent obtains an assistant turn."""

    async def answer(self, episode: Episode, said: UserMessage | None) -> None:
        """The agent's turn after the user said ``said`` (already in the transcript; None: the case's
        conversation ends with the results of earlier calls, to continue from). It reports to
        ``episode`` what happened: its replies, calls and answer, or why the episode ended."""


def budget_stop(case: Case, replies: int, calls: int) -> StopReason | None:
    """The budget that forbids the agent another model reply: more calls than ``max_tool_calls``, or
    its ``max_turns`` replies had. Exactly ``max_tool_calls`` calls, or ``max_turns`` replies of which
    the last is the answer, are within them."""
    if calls > case.max_tool_calls:
        return "max_tool_calls"
    if replies >= case.max_turns:
        return "max_turns"
    return None


class Episode:
    """What one trial has exchanged so far, its accounting and how it ended; ``record`` is its run
    record. ``transcript`` holds what was said; the agent is sent it without the system prompt
    (``conversation``), which a request carries apart."""

    def __init__(
        self,
        suite: Suite,
        case: Case,
        index: int,
        call_model: CallModel,
        *,
        prices: PriceTable = BUILT_IN,
    ) -> None:
        self.suite, self.case, self.index = suite, case, index
        self.call_model, self.prices = call_model, prices
        self.prepared = conversation.build(suite, case, index)
        defined = [tool.name for tool in suite.agent.tools]
        self.mocks = MockSession(merged(case.mocks, suite.mocks), defined, case.state)
        system = self.prepared.system
        self.transcript: list[Message] = [SystemMessage(system)] if system else []
        self.transcript.extend(self.prepared.messages)
        given = self.prepared.messages
        self.input = next((m.content for m in reversed(given) if isinstance(m, UserMessage)), "")
        self.first = given[-1] if given and isinstance(given[-1], UserMessage) else None
        self.calls: list[RecordedCall] = []
        self.usage = Usage()
        self.cost: float | None = 0.0
        self.replies = 0
        self.models: list[str] = []
        self.output = ""
        self.stop_reason: StopReason = "final_answer"
        self.error: str | None = None
        self.ended = False  # for a reason other than an answer (``end``)
        self.user_turns = 0  # messages the simulated user wrote
        self.agent_ms = 0.0  # the agent's turns, wall time
        self.waited_ms = 0.0  # of which the gate held its model requests back (negative: cache answers)
        self.log = ""
        self.offered: list[tuple[OfferedTool, ...]] = []  # an agent program's: per model request
        self.extra: dict[str, Any] = dict(self.prepared.extra)

    # ---- what the agent reports ----

    def end(self, reason: StopReason, error: str | None = None) -> None:
        """The episode is over for ``reason`` (``error``: why the trial could not be evaluated); the
        first such reason wins."""
        if not self.ended:
            self.ended, self.stop_reason, self.error = True, reason, error

    def requested(self, model: str, system: str | None) -> None:
        """The agent program asked ``model`` with the system prompt ``system``: its system prompt is the
        first it sent, its model each it asked, in order."""
        if model not in self.models:
            self.models.append(model)
        if system and not (self.transcript and isinstance(self.transcript[0], SystemMessage)):
            self.transcript.insert(0, SystemMessage(system))

    def reply(self, reply: ModelReply, provider: str, model: str, waited_ms: float) -> None:
        """One model reply of the agent's (to a request for ``model`` of ``provider``; ``waited_ms``
        the time the gate held it back): counted, priced, and said."""
        self.replies += 1
        self.usage = self.usage + reply.usage
        self.waited_ms += waited_ms
        if self.cost is not None:
            step = self.prices.cost(provider, model, reply.usage, reply.cached_input_tokens, reply.model)
            self.cost = None if step is None else self.cost + step
        self.transcript.append(reply.message())

    def call(self, call: RecordedCall, result: ToolResult | None) -> None:
        """A call the agent made, and its result as the model reads it (None: it got none)."""
        self.calls.append(call)
        if result is not None:
            self.transcript.append(result)

    def answered(self, text: str) -> None:
        """The agent's answer to the turn: said, unless it is the text of its last reply (said already)."""
        self.output = text
        last = self.transcript[-1] if self.transcript else None
        if not (isinstance(last, AssistantMessage) and not last.tool_calls and last.content == text):
            self.transcript.append(AssistantMessage(text))

    def conversation(self) -> tuple[Message, ...]:
        """What the agent is sent: the transcript without the system prompt."""
        start = 1 if self.transcript and isinstance(self.transcript[0], SystemMessage) else 0
        return tuple(self.transcript[start:])

    async def ask(self, request: ModelRequest, who: str = "") -> tuple[ModelReply, float] | None:
        """``request``'s reply and the time (ms) the gate held it back, or None when the episode ended
        without one (the provider failed, the budget left no request; ``who`` says whose request it
        was in the error). Fatal provider errors propagate: they stop the run."""
        started = time.perf_counter()
        try:
            reply = await self.call_model(request)
        except ProviderError as exc:
            if exc.fatal:
                raise
            self.end("provider_error", f"{who}{exc}")
            return None
        except BudgetReached as exc:  # the run's budget: the exception says which, and why
            self.end("budget", str(exc) or BUDGET_MESSAGE)
            return None
        wall = (time.perf_counter() - started) * 1000.0
        return reply, (wall - reply.latency_ms if reply.latency_ms is not None else 0.0)

    # ---- the episode ----

    async def run(self, assistant: Assistant) -> None:
        """The agent's turns and the simulated user's messages until the episode ends."""
        said = self.first
        while True:
            started = time.perf_counter()
            await assistant.answer(self, said)
            self.agent_ms += (time.perf_counter() - started) * 1000.0
            if len(self.calls) > self.case.max_tool_calls:  # an answer beside too many calls is over budget
                self.end("max_tool_calls")
            if self.ended:
                return
            said = await self._user_says()
            if said is None:
                return

    async def _user_says(self) -> UserMessage | None:
        """The simulated user's next message (in the transcript), or None when the episode is over.
        Not once the agent has had its ``max_turns`` replies: the budget counts over the whole
        episode."""
        user, simulator = self.case.user, self.suite.user_simulator
        if user is None or simulator is None or self.user_turns >= user.max_turns:
            return None
        if self.replies >= self.case.max_turns:
            return None
        asked = await self.ask(simulator_request(simulator, user, self.transcript), "user simulator: ")
        if asked is None:
            return None
        said = asked[0]
        if said.cut:
            limit = ModelParams(max_tokens=simulator.max_tokens)
            self.end(
                "max_tokens", "user simulator: " + cut_reason(simulator.provider, limit, "user_simulator")
            )
            return None
        text = next_message(said.text)
        if text is None:
            self.stop_reason = "user_done"
            return None
        self.user_turns += 1
        message = UserMessage(text, simulated=True)
        self.transcript.append(message)
        return message

    def record(self, model: str = "") -> RunRecord:
        """The run record; ``model``: the agent's model (by default, the models an agent program asked)."""
        return RunRecord(
            input=self.input,
            messages=tuple(self.transcript),
            calls=tuple(self.calls),
            output=self.output if self.stop_reason in ANSWERED else "",
            turns=self.replies,
            latency_ms=max(0.0, self.agent_ms - self.waited_ms),
            usage=self.usage,
            cost_usd=self.cost,
            error=self.error,
            stop_reason=self.stop_reason,
            model=model or ", ".join(self.models),
            extra=dict(self.extra),
            state=self.mocks.state,
            offered=tuple(self.offered),
            log=self.log,
        )
