"""One trial of an agent program (DESIGN section 10): give it its process, talk to it in JSON lines,
end it.

The program runs as ``gate.programs.process`` says (no shell, the repository root, a command scope
of its own, an environment without the gate's secrets and with the trial's addresses and token:
``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``, the recording proxy's routes of the trial,
``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY``, the trial's token, ``TOOL_EVAL_GATE_MCP_URL``, the mock
MCP server). By default a process is started for the trial and ended with it, with everything it
started. With ``reuse: true`` the trial leases a long-lived process of its suite's pool
(``gate.programs.pool``), tells it the trial by its first line (which then carries ``env``: the
trial's addresses and token, the five variables above), and gives it back.

The program is the episode's assistant (``gate.episode.episode``: the user's turns, the simulated
user, the budgets, why it ended and the run record are the same as for the model agent). The
protocol: each of the episode's user messages is one JSON line to the program's standard input,
``{"role": "user", "content": ...}``; the first line also carries ``suite``, ``case``, ``trial``,
``vars`` and ``history`` (the case's earlier turns: ``{"role", "content"}``, an assistant's earlier
``tool_calls`` ``[{"id", "name", "arguments"}]`` and their results as ``{"role": "tool", "call_id",
"name", "content", "is_error"}``). Every line is a message to answer: a program suite's conversation
ends with the user's message (validate refuses one that ends with a tool result,
``gate.assembly.conversation_builder``). After each line the gate reads one answer line from the
standard output: ``{"content": "..."}`` or plain text (a line that is not a JSON object). A
simulated user keeps the same process for the whole episode. After the last answer the gate closes
a process of the trial's own its standard input, gives it a moment to exit, and ends it with
everything it started; a leased process goes back to its pool.
The model replies the program got meanwhile (through the recording proxy), their calls and results
are the episode's (``gate.programs.record``).

The program failing is the agent's failure (``agent_crashed``): it exited before answering or with a
non-zero status, used more than ``timeout_s`` (its turns: the time from each line written to its
answer, not the simulated user's), or wrote a line that is not the protocol (a JSON object without
a string ``content``, a line over ``MAX_ANSWER_BYTES``). Its standard error is read all along; its
last ``STDERR_TAIL_CHARS`` are the record's ``log``, kept apart from the messages. A program that
could not be started at all (not on ``PATH``, no such file, not executable, its ``#!`` interpreter
missing) did nothing wrong as an agent: the trial is an error (could not evaluate) naming the command
and why. So is a program that ended before its first model request without answering (a missing
dependency in CI, a setting it needs): it never ran as an agent, and the error says how it ended
with the last lines of its standard error (``did_not_start``), secrets masked. A long-lived process
that already ran a trial had started: its crash is the agent's failure.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from gate.episode.episode import Episode
from gate.programs.host import ProgramHost, TrialRoute
from gate.programs.mock_mcp_server import MockMcpSession
from gate.programs.model_proxy import TrialProxy
from gate.programs.pool import Lease, ProgramPool
from gate.programs.process import Crash, NotStarted, ProgramProcess, program_environment, trial_environment
from gate.programs.record import McpCall, offered_tools, reply_calls, result_message
from gate.providers.base import ModelReply, ModelRequest
from gate.results.messages import AssistantMessage, Message, ToolResult, UserMessage
from gate.results.run_record import RunRecord
from gate.suite.model import Case, Command, Suite
from gate.suite.pricing import PriceTable
from gate.tool_servers.live import LiveTools
from gate.util.redact import Redactor

CallModel = Callable[[ModelRequest], Awaitable[ModelReply]]

STDERR_ERROR_LINES = 12  # of its standard error, in the error of a program that ended before any request
EXIT_GRACE_S = 2.0  # after its last answer, the time the program has to exit by itself


def did_not_start(how: str, stderr: str) -> str:
    """Why a trial whose program ended before its first model request could not be evaluated: how it
    ended, on the first line with the last line of its standard error (usually the exception: a
    missing module, a missing setting), then the last lines of its standard error."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    last = f": {lines[-1].strip()}" if lines else " (it wrote nothing to its standard error)"
    text = f"the agent program ended before its first model request ({how}){last}"
    if len(lines) > 1:
        text += "\nthe end of its standard error:\n" + "\n".join(lines[-STDERR_ERROR_LINES:])
    return text


def protocol_message(message: Message) -> dict[str, Any]:
    """A message of the case's conversation as the first line's ``history`` gives it (the module doc)."""
    if isinstance(message, ToolResult):
        return {
            "role": "tool",
            "call_id": message.call_id,
            "name": message.name,
            "content": message.text,
            "is_error": message.is_error,
        }
    line: dict[str, Any] = {"role": message.role, "content": message.content}
    if isinstance(message, AssistantMessage) and message.tool_calls:
        line["tool_calls"] = [
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls
        ]
    return line


class ProgramAgent:
    """An agent program as the episode's assistant: each turn writes it one line and reads its answer;
    the model replies it got meanwhile (through the recording proxy), their calls and results are
    then the episode's. ``start`` and ``end`` bracket the trial: a process of the trial's own, or one
    leased from ``pool`` (``reuse: true``) and given back."""

    def __init__(
        self,
        command: Command,
        root: Path,
        host: ProgramHost,
        proxy: TrialProxy,
        mcp: MockMcpSession,
        pool: ProgramPool | None = None,
    ):
        self.command, self.root, self.host, self.proxy, self.mcp = command, root, host, proxy, mcp
        self.pool = pool
        self.route: TrialRoute | None = None
        self.process: ProgramProcess | None = None
        self.lease: Lease | None = None
        self.mark = 0  # how much the process had written to its standard error when the trial began
        self.began = 0.0  # time.monotonic() when the trial was given its process
        self.lines = 0  # lines written
        self.used = 0.0  # seconds of the program's time limit used (its turns)
        self.folded = 0  # exchanges already the episode's
        self.seen = 0  # MCP calls already matched or waiting
        self.unserved: list[McpCall] = []  # MCP calls no reply's call was matched with yet
        self.ended_early = ""  # how it ended before its first model request, without answering
        self.off_protocol = "the trial did not end by the protocol"  # until it does ("")

    async def start(self) -> None:
        """The trial's route and its process: started for it with the route's addresses, or leased
        from the pool (``NotStarted`` when it cannot be started)."""
        if self.pool is None:
            self.route = await self.host.open_trial(self.proxy, self.mcp)
            env = program_environment(self.route, os.environ)
            self.process = await ProgramProcess.start(self.command, self.root, env)
            return
        self.lease = lease = await self.pool.lease()
        self.process, self.mark, self.began = lease.process, lease.mark, time.monotonic()
        self.route = await self.host.open_trial(self.proxy, self.mcp, late=self.pool.late(lease))
        lease.routes.append(self.route.id)
        lease.proxy = self.proxy

    def _line(self, episode: Episode, said: UserMessage) -> dict[str, Any]:
        """The line to write: the user's message; the first also says which trial it is and gives the
        case's earlier turns (and, to a leased process, the trial's addresses and token)."""
        if self.lines:
            return {"role": "user", "content": said.content}
        case = episode.case
        head = {"suite": episode.suite.name, "case": case.id, "trial": episode.index, "vars": case.vars}
        history = [protocol_message(m) for m in episode.prepared.messages[:-1]]
        line = {"role": "user", "content": said.content, **head, "history": history}
        if self.lease is not None and self.route is not None:
            line["env"] = trial_environment(self.route)
        return line

    @property
    def fresh(self) -> bool:
        """Whether the process is in its first trial: it may not have started as an agent yet."""
        return self.lease is None or self.lease.fresh

    async def answer(self, episode: Episode, said: UserMessage | None) -> None:
        process = self.process
        assert process is not None
        # validate refuses a program suite's conversation that ends with a tool result: no message to send
        assert said is not None, "a program's conversation ends with the user's message"
        line = self._line(episode, said)
        self.lines += 1
        started = time.perf_counter()
        answer: str | None = None
        crash: str | None = None
        try:
            answer = await asyncio.wait_for(self._say(process, line), self.command.timeout_s - self.used)
        except Crash as exc:
            early = exc.ended and self.lines == 1 and self.fresh and not self.proxy.received
            if early and not episode.ended:
                self.ended_early = str(exc)  # before its first model request: it never ran as an agent
                episode.end("provider_error")  # the error says how, with its standard error (``end``)
            crash = str(exc)
        except asyncio.TimeoutError:
            crash = f"did not finish within {self.command.timeout_s:g} s (timeout_s)"
        self.used += time.perf_counter() - started
        self._fold(episode)
        if crash is not None:
            crashed(episode, crash)
        elif answer is not None:
            episode.answered(answer)

    async def _say(self, process: ProgramProcess, line: dict[str, Any]) -> str:
        await process.send(line)
        return await process.answer(self.lines)

    def _fold(self, episode: Episode) -> None:
        """The model replies since the last turn, their calls and results, into the episode."""
        exchanges = self.proxy.exchanges
        self.unserved += self.mcp.calls[self.seen :]
        self.seen = len(self.mcp.calls)
        replies = reply_calls(exchanges, self.folded, self.unserved)
        for exchange, calls in zip(exchanges[self.folded :], replies, strict=True):
            request = exchange.request
            episode.reply(exchange.reply, request.provider, request.model, exchange.waited_ms)
            episode.offered.append(offered_tools(request))
            for call in calls:
                episode.call(call, result_message(call))
        self.folded = len(exchanges)

    async def finish(self, episode: Episode) -> None:
        """After the last answer: a process of the trial's own closes its input and may exit (a failure
        if not with 0); a leased one stays, silent, for its next trial. Either way the trial went by
        the protocol, unless the program failed."""
        if self.process is None:
            return
        if self.lease is None:
            grace = min(EXIT_GRACE_S, self.command.timeout_s - self.used)
            try:
                failed = await self.process.finish(grace)
            except Crash as exc:
                failed = str(exc)
            if failed is not None:
                crashed(episode, failed)
        if episode.stop_reason != "agent_crashed":
            self.off_protocol = ""

    async def end(self, episode: Episode) -> None:
        """The trial's route closed; its process ended with everything it started, or given back to its
        pool (kept only if the trial went by the protocol and the pool finds nothing against it). Its
        standard error of the trial (secrets masked) is the record's log."""
        if self.lease is not None:  # what comes for this trial from now on is late, told to the pool
            self.lease.proxy = None
        if self.route is not None:
            self.host.close_trial(self.route)
        stderr = ""
        if self.process is not None and self.lease is None:
            await self.process.end()  # its standard error is read whole once it has ended
            stderr = self.process.stderr_since(0)
        elif self.process is not None and self.lease is not None and self.pool is not None:
            await asyncio.sleep(0)  # what it wrote with its last answer is read
            stderr = self.process.stderr_since(self.mark)
            lease = self.lease
            lease.requests += self.proxy.received
            lease.answers += self.lines
            first = self.proxy.first_at
            await self.pool.give_back(lease, began=self.began, first_request=first, why_not=self.off_protocol)
        if stderr:  # the environment's secrets and the trial's token masked (nothing to mask in nothing)
            token = (self.route.token,) if self.route is not None else ()
            episode.log = Redactor.from_env(os.environ, extra=token).redact(stderr)
        if self.ended_early:
            episode.error = did_not_start(self.ended_early, episode.log)


def crashed(episode: Episode, why: str) -> None:
    """The program failed (its exit, a timeout, a line off the protocol): the agent's failure, unless
    the episode had ended already (then that reason stands)."""
    if not episode.ended:
        episode.end("agent_crashed")
        episode.extra["agent_crashed"] = f"the agent program {why}"


async def run_program_trial(
    host: ProgramHost,
    suite: Suite,
    case: Case,
    index: int,
    call_model: CallModel,
    *,
    root: Path,
    prices: PriceTable,
    live: LiveTools | None = None,
    pool: ProgramPool | None = None,
) -> tuple[RunRecord, TrialProxy]:
    """Run trial ``index`` of ``case`` with the suite's agent program (in a process of ``pool`` when
    the suite reuses its processes); its record, and the proxy (its offered tools, a fatal provider
    error). ``live`` answers the program's MCP calls to the tools of ``calls: live`` servers (the
    caller ends them with the trial)."""
    command = suite.agent.program
    assert command is not None
    episode = Episode(suite, case, index, call_model, prices=prices)
    proxy = TrialProxy(secrets.token_urlsafe(24), call_model, episode, host.redactor)
    mcp = MockMcpSession(
        suite.agent.tools,
        episode.mocks,
        case.state is not None,
        live=live,
        failed=lambda error: episode.end("provider_error", error),
    )
    agent = ProgramAgent(command, root, host, proxy, mcp, pool)
    try:
        await agent.start()
        await episode.run(agent)
        await agent.finish(episode)
    except NotStarted as exc:  # not run: an error, as a provider that cannot be reached
        episode.end("provider_error", f"the agent program could not be started: {exc}")
    finally:
        await agent.end(episode)
    return episode.record(), proxy
