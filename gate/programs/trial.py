"""One trial of an agent program (DESIGN section 10): start it, talk to it in JSON lines, end it.

The program runs without a shell from the repository root (the base tree's copy for the base side
of ``--baseline auto``), in a session of its own, in the trial's command scope (``gate.containment``:
a user of its own where the gate runs as root, else under a supervisor; either way everything it
starts ends with the trial, and its ``HOME`` / ``TMPDIR`` are the scope's), with an environment that
holds no secret of the
gate's (``environment_without_secrets``, the rule of every process the gate starts: every variable
whose name says key, token, secret, password, DSN or webhook, every ``OPENAI_*`` / ``ANTHROPIC_*`` /
``AZURE_OPENAI_*`` setting and the action's inputs are left out), and the trial's own are put in:
``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL`` (the recording proxy's routes of this trial),
``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY`` (the trial's token), ``TOOL_EVAL_GATE_MCP_URL`` (the mock
MCP server) and ``PYTHONUNBUFFERED=1`` (a Python program's answers are not held in a pipe buffer).
The program is what ``PATH`` finds, as for the team's own shell (and for MCP servers).

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
the standard input, gives the program a moment to exit, and ends it with everything it started.
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
with the last lines of its standard error (``did_not_start``), secrets masked.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import secrets
import shutil
import signal
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gate.containment.scope import CommandScope, open_scope
from gate.episode.episode import Episode
from gate.errors import GateError
from gate.programs.host import ProgramHost, TrialRoute
from gate.programs.mock_mcp_server import MockMcpSession
from gate.programs.model_proxy import TrialProxy
from gate.programs.record import McpCall, offered_tools, reply_calls, result_message
from gate.providers.base import ModelReply, ModelRequest
from gate.results.messages import AssistantMessage, Message, ToolResult, UserMessage
from gate.results.run_record import RunRecord
from gate.suite.model import Case, Command, Suite
from gate.suite.pricing import PriceTable
from gate.tool_servers.live import LiveTools
from gate.util.redact import Redactor, environment_without_secrets

CallModel = Callable[[ModelRequest], Awaitable[ModelReply]]

MAX_ANSWER_BYTES = 1024 * 1024  # one answer line
STDERR_TAIL_CHARS = 4000  # of the program's standard error, kept as the record's log
STDERR_ERROR_LINES = 12  # of its standard error, in the error of a program that ended before any request
_STDERR_KEPT = 64 * 1024  # bytes of standard error held while the program runs
EXIT_GRACE_S = 2.0  # after its last answer, the time the program has to exit by itself


class _Crash(Exception):
    """The program failed; the message says how (the agent's failure). ``ended``: its process ended
    (it did not just write a line off the protocol)."""

    def __init__(self, message: str, *, ended: bool = False):
        super().__init__(message)
        self.ended = ended


class _NotStarted(Exception):
    """The program could not be started; the message says why (the trial could not be evaluated)."""


def program_environment(route: TrialRoute, base: Mapping[str, str]) -> dict[str, str]:
    """The environment of the program of the trial at ``route`` (see the module doc)."""
    env = environment_without_secrets(base)
    env.update(
        {
            "OPENAI_BASE_URL": route.openai_base_url,
            "OPENAI_API_KEY": route.token,
            "ANTHROPIC_BASE_URL": route.anthropic_base_url,
            "ANTHROPIC_API_KEY": route.token,
            "TOOL_EVAL_GATE_MCP_URL": route.mcp_url,
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def resolve_program(command: Command, root: Path, env: Mapping[str, str]) -> str:
    """The executable of ``command``: a path relative to ``root``, or a program on the PATH of ``env``."""
    program = command.argv[0]
    if "/" in program:
        return str(root / program)
    found = shutil.which(program, path=env.get("PATH"))
    if found is None:
        raise _NotStarted(f"{program!r} is not on PATH")
    return found


def _start_failure(command: Command, executable: str, exc: OSError) -> str:
    """Why ``command`` (resolved to ``executable``) could not be started, and what to do about it."""
    program = command.argv[0]
    why = exc.strerror or str(exc)
    if isinstance(exc, FileNotFoundError):
        if Path(executable).is_file():
            return f"{program!r}: the interpreter its #! line names was not found"
        return f"{program!r}: no such file in the repository"
    if isinstance(exc, PermissionError) or exc.errno == errno.ENOEXEC:
        fix = f"make it executable (with a #! line) or put its interpreter first: [python3, {program}]"
        return f"{program!r}: {why}; {fix}"
    return f"{program!r}: {why}"


@dataclass
class _Process:
    """The running program: its answers, its standard error, its end."""

    proc: asyncio.subprocess.Process
    stderr: deque[bytes] = field(default_factory=lambda: deque(maxlen=256))
    stderr_size: int = 0
    drains: list[asyncio.Task[None]] = field(default_factory=list)

    scope: CommandScope | None = None

    @classmethod
    async def start(cls, command: Command, argv: list[str], root: Path, env: dict[str, str]) -> _Process:
        """The program started in a command scope of its own (``gate.containment``: the user it runs
        as, its ``HOME`` / ``TMPDIR``), in a session of its own; ``end`` ends it, all of it."""
        try:
            scope = open_scope(os.environ)
        except (GateError, OSError) as exc:  # no user left for it, say
            raise _NotStarted(f"{command.argv[0]!r}: {exc}") from None
        try:
            proc = await scope.start(argv, cwd=root, env=scope.environment(env), limit=MAX_ANSWER_BYTES)
        except BaseException as exc:
            await scope.aclose()
            if isinstance(exc, OSError):
                raise _NotStarted(_start_failure(command, argv[0], exc)) from None
            raise
        process = cls(proc, scope=scope)
        process.drains.append(asyncio.ensure_future(process._drain_stderr()))
        return process

    async def _drain_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        while chunk := await stream.read(8192):
            self.stderr.append(chunk)
            self.stderr_size += len(chunk)
            while self.stderr_size - len(self.stderr[0]) > _STDERR_KEPT:
                self.stderr_size -= len(self.stderr.popleft())

    def stderr_tail(self) -> str:
        text = b"".join(self.stderr).decode("utf-8", "replace")
        return text[-STDERR_TAIL_CHARS:].strip("\n")

    async def send(self, line: dict[str, Any]) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write((json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass"))
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise _Crash(await self._ended("before reading its message"), ended=True) from None

    async def answer(self, number: int) -> str:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            raw = await stdout.readline()
        except (ValueError, asyncio.LimitOverrunError):
            raise _Crash(f"wrote an answer line longer than {MAX_ANSWER_BYTES} bytes") from None
        if not raw:
            raise _Crash(await self._ended(f"without answering message {number}"), ended=True)
        return read_answer(raw)

    async def _ended(self, what: str) -> str:
        try:
            code = await asyncio.wait_for(self.proc.wait(), 1.0)
        except asyncio.TimeoutError:
            return f"closed its standard output {what}"
        return f"{exit_text(code)} {what}"

    async def finish(self, grace: float) -> str | None:
        """Close its input and let it exit: why its exit is a failure (None: it exited with 0, or is
        still running and gets ended)."""
        stdin = self.proc.stdin
        if stdin is not None:
            with contextlib.suppress(Exception):
                stdin.close()
        stdout = self.proc.stdout
        if stdout is not None:
            self.drains.append(asyncio.ensure_future(_discard(stdout)))
        try:
            code = await asyncio.wait_for(self.proc.wait(), max(0.0, grace))
        except asyncio.TimeoutError:
            return None
        return None if code == 0 else f"{exit_text(code)} after its last answer"

    async def end(self) -> None:
        """End it and everything it started (``gate.containment.scope``), then stop reading."""
        assert self.scope is not None
        try:
            await self.scope.end(self.proc)
        finally:
            await self.scope.aclose()  # every process of the trial ended, the program's and what it left
        for task in self.drains:
            if not task.done():
                with contextlib.suppress(asyncio.TimeoutError, Exception):
                    await asyncio.wait_for(asyncio.shield(task), 0.5)
            task.cancel()
        # Its pipes are ours to close, whoever still holds their other ends (a process that escaped
        # the ending: SECURITY.md says where one can); else they outlive the event loop.
        transport = getattr(self.proc, "_transport", None)
        if transport is not None:
            with contextlib.suppress(Exception):
                transport.close()


async def _discard(stream: asyncio.StreamReader) -> None:
    with contextlib.suppress(Exception):
        while await stream.read(65536):
            pass


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


def exit_text(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"


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


def read_answer(raw: bytes) -> str:
    """The answer of one line: ``{"content": ...}``, or the line as plain text."""
    text = raw.decode("utf-8", "replace").rstrip("\r\n")
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if not isinstance(value, dict):
        return text
    content = value.get("content")
    if content is None and "content" in value:
        return ""
    if not isinstance(content, str):
        raise _Crash(
            f'wrote a line that is not the protocol (a JSON object needs a string "content"): {text[:200]}'
        )
    return content


class ProgramAgent:
    """An agent program as the episode's assistant: each turn writes it one line and reads its answer;
    the model replies it got meanwhile (through the recording proxy), their calls and results are
    then the episode's. ``start`` and ``finish`` bracket the trial (a process of the trial's own)."""

    def __init__(
        self, command: Command, root: Path, route: TrialRoute, proxy: TrialProxy, mcp: MockMcpSession
    ):
        self.command, self.root, self.route, self.proxy, self.mcp = command, root, route, proxy, mcp
        self.process: _Process | None = None
        self.lines = 0  # lines written
        self.used = 0.0  # seconds of the program's time limit used (its turns)
        self.folded = 0  # exchanges already the episode's
        self.seen = 0  # MCP calls already matched or waiting
        self.unserved: list[McpCall] = []  # MCP calls no reply's call was matched with yet
        self.ended_early = ""  # how it ended before its first model request, without answering

    async def start(self) -> None:
        """Start the program (``_NotStarted`` when it cannot be)."""
        env = program_environment(self.route, os.environ)
        argv = [resolve_program(self.command, self.root, env), *self.command.argv[1:]]
        self.process = await _Process.start(self.command, argv, self.root, env)

    def _line(self, episode: Episode, said: UserMessage) -> dict[str, Any]:
        """The line to write: the user's message; the first also says which trial it is and gives the
        case's earlier turns."""
        if self.lines:
            return {"role": "user", "content": said.content}
        case = episode.case
        head = {"suite": episode.suite.name, "case": case.id, "trial": episode.index, "vars": case.vars}
        history = [protocol_message(m) for m in episode.prepared.messages[:-1]]
        return {"role": "user", "content": said.content, **head, "history": history}

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
        except _Crash as exc:
            if exc.ended and self.lines == 1 and not self.proxy.received and not episode.ended:
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

    async def _say(self, process: _Process, line: dict[str, Any]) -> str:
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
        """After the last answer: the program closes its input and may exit (a failure if not with 0)."""
        if self.process is None:
            return
        grace = min(EXIT_GRACE_S, self.command.timeout_s - self.used)
        try:
            failed = await self.process.finish(grace)
        except _Crash as exc:
            failed = str(exc)
        if failed is not None:
            crashed(episode, failed)

    async def end(self, episode: Episode) -> None:
        """End the program and everything it started; its standard error (secrets masked) is the
        record's log."""
        if self.process is not None:
            await self.process.end()
        stderr = self.process.stderr_tail() if self.process is not None else ""
        if stderr:  # the environment's secrets and the trial's token masked (nothing to mask in nothing)
            episode.log = Redactor.from_env(os.environ, extra=(self.route.token,)).redact(stderr)
        if self.ended_early:  # its standard error is read whole only now
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
) -> tuple[RunRecord, TrialProxy]:
    """Run trial ``index`` of ``case`` with the suite's agent program; its record, and the proxy (its
    offered tools, a fatal provider error). ``live`` answers the program's MCP calls to the tools of
    ``calls: live`` servers (the caller ends them with the trial)."""
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
    route = await host.open_trial(proxy, mcp)
    agent = ProgramAgent(command, root, route, proxy, mcp)
    try:
        await agent.start()
        await episode.run(agent)
        await agent.finish(episode)
    except _NotStarted as exc:  # not run: an error, as a provider that cannot be reached
        episode.end("provider_error", f"the agent program could not be started: {exc}")
    finally:
        await agent.end(episode)
        host.close_trial(route)
    return episode.record(), proxy
