"""The model agent's turns: the gate plays the agent with the suite's model, prompt and tools.

One turn asks the model (``ModelRequest``s through ``call_model``, which the runner wraps with the
cache, the concurrency limiter and retries) and answers every tool call of a reply from the case's
and suite's mocks (or the tool's own MCP server, ``calls: live``), until a reply without calls: the
turn's answer. A reply cut at its output-token limit ends the episode (its text or last call is
unfinished: neither an answer nor calls to answer; its calls are recorded unanswered and the error
says which limit to raise); so does a budget (``gate.episode.episode.budget_stop``) after a reply
whose calls go beyond it, and a live server that cannot answer. Text beside calls is not an answer.
Everything else an episode is (the user's turns, the simulated user, stop reasons, latency, the
record) is ``gate.episode.episode``'s, the same for an agent program.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from gate.episode.episode import Episode, budget_stop
from gate.errors import GateError
from gate.providers.base import ModelReply, ModelRequest
from gate.results.messages import ToolCall, ToolResult, UserMessage
from gate.results.run_record import MockKind, RecordedCall, RunRecord, copy_value, parse_arguments
from gate.suite.model import Case, Suite
from gate.suite.model_family import cut_reason
from gate.suite.pricing import BUILT_IN, PriceTable
from gate.tool_servers.live import LiveTools
from gate.util.escape import as_text

CallModel = Callable[[ModelRequest], Awaitable[ModelReply]]


async def run_trial(
    suite: Suite,
    case: Case,
    index: int,
    call_model: CallModel,
    *,
    prices: PriceTable = BUILT_IN,
    live: LiveTools | None = None,
) -> RunRecord:
    """Run trial ``index`` of ``case`` with the model agent; ``live`` answers the calls to the tools of
    ``calls: live`` servers (the mocks answer the rest)."""
    episode = Episode(suite, case, index, call_model, prices=prices)
    await episode.run(ModelAgent(suite, live))
    return episode.record(suite.agent.model)


@dataclass(frozen=True)
class _Answer:
    """One call's answer: how it was answered, the value recorded on the call, what the model reads."""

    kind: MockKind
    result: Any
    sent: Any
    is_error: bool


class ModelAgent:
    """The suite's model as the episode's assistant."""

    def __init__(self, suite: Suite, live: LiveTools | None) -> None:
        self.suite, self.live = suite, live

    async def answer(self, episode: Episode, said: UserMessage | None) -> None:
        agent = self.suite.agent
        while True:
            request = ModelRequest(
                provider=agent.provider,
                model=agent.model,
                system=episode.prepared.system or None,
                messages=episode.conversation(),
                tools=agent.tools,
                params=agent.params,
                api=agent.api,
            )
            asked = await episode.ask(request)
            if asked is None:
                return
            reply, waited = asked
            episode.reply(reply, agent.provider, agent.model, waited)
            if reply.cut:
                self._cut_off(episode, reply)
                return
            if not reply.tool_calls:
                episode.answered(reply.text)  # its reasoning is kept apart: shown, never scored
                return
            if not await self._answer_calls(episode, reply):
                return
            stop = budget_stop(episode.case, episode.replies, len(episode.calls))
            if stop is not None:
                episode.end(stop)
                return

    def _cut_off(self, episode: Episode, reply: ModelReply) -> None:
        """The reply was cut at its token limit: its calls recorded unanswered (their unfinished
        arguments are not scored), and the episode ends as an error that says which limit to raise."""
        for call in reply.tool_calls:
            arguments, error = parse_arguments(call.arguments)
            episode.call(
                RecordedCall(call.id, call.name, call.arguments, arguments, error, episode.replies), None
            )
        agent = self.suite.agent
        episode.end("max_tokens", cut_reason(agent.provider, agent.params, "agent.params"))

    async def _answer_calls(self, episode: Episode, reply: ModelReply) -> bool:
        """Record the reply's calls and answer each; False when a live server could not answer (the
        episode then ended as an error)."""
        for call in reply.tool_calls:
            try:
                await self._answer_call(episode, call)
            except GateError as exc:
                episode.end("provider_error", str(exc))
                return False
        return True

    async def _answer(self, episode: Episode, name: str, arguments: Any, error: str | None) -> _Answer:
        """The answer to one call: from its live server, else from the mocks."""
        if self.live is None or name not in self.live.names:
            outcome = episode.mocks.call(name, arguments)
            return _Answer(outcome.kind, outcome.result, outcome.result, outcome.is_error)
        if arguments is None:  # never sent: the server would only refuse it
            text = f"the call was not sent to the server: {error}"
            return _Answer("live", text, text, True)
        answer = await self.live.call(name, arguments)
        return _Answer("live", answer.value, answer.text, answer.is_error)

    async def _answer_call(self, episode: Episode, call: ToolCall) -> None:
        stateful = episode.case.state is not None
        arguments, arguments_error = parse_arguments(call.arguments)
        outcome = await self._answer(episode, call.name, arguments, arguments_error)
        state = episode.mocks.state
        recorded = RecordedCall(
            id=call.id,
            name=call.name,
            raw_arguments=call.arguments,
            arguments=arguments,
            arguments_error=arguments_error,
            turn=episode.replies,
            result=outcome.result,
            mock=outcome.kind,
            is_error=outcome.is_error,
            state=copy_value(state) if stateful else None,
        )
        shown = as_text(state) if stateful else None
        episode.call(recorded, ToolResult(call.id, call.name, outcome.sent, outcome.is_error, state=shown))
