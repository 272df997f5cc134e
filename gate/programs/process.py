"""A running agent program: its start in a command scope of its own, the JSON lines it is written and
the answer lines it writes, its standard error, its end (DESIGN section 10).

The program runs without a shell from the repository root (the base tree's copy for the base side
of ``--baseline auto``), in a session of its own, in a command scope (``gate.containment``: a user
of its own where the gate runs as root, else under a supervisor; either way everything it starts
ends with it, and its ``HOME`` / ``TMPDIR`` are the scope's). The program is what ``PATH`` finds,
as for the team's own shell (and for MCP servers).

An answer is one line: ``{"content": "..."}`` or plain text (a line that is not a JSON object); a
JSON object without a string ``content`` or a line over ``MAX_ANSWER_BYTES`` is off the protocol.
Its standard error is read all along (the last ``STDERR_KEPT`` bytes held); a trial takes what the
program wrote since the trial began (``stderr_since``), so that a process running several trials
(``reuse: true``) gives each its own log.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import shutil
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gate.containment.scope import CommandScope, open_scope
from gate.errors import GateError
from gate.programs.host import TrialRoute
from gate.suite.model import Command
from gate.util.redact import environment_without_secrets

MAX_ANSWER_BYTES = 1024 * 1024  # one answer line
STDERR_TAIL_CHARS = 4000  # of the program's standard error, kept as a trial's log
STDERR_KEPT = 64 * 1024  # bytes of standard error held while the program runs
LAST_WORDS_S = 1.0  # once it has ended, the time what it wrote before takes to be read
EXIT_POLL_S = 0.2  # how often a wait for its answer looks whether it has ended
EXITED_POLL_S = 0.02  # how often a wait for its exit looks (at a trial's or the run's end)


class Crash(Exception):
    """The program failed; the message says how (the agent's failure). ``ended``: its process ended
    (it did not just write a line off the protocol)."""

    def __init__(self, message: str, *, ended: bool = False):
        super().__init__(message)
        self.ended = ended


class NotStarted(Exception):
    """The program could not be started; the message says why (the trial could not be evaluated)."""


def resolve_program(command: Command, root: Path, env: Mapping[str, str]) -> str:
    """The executable of ``command``: a path relative to ``root``, or a program on the PATH of ``env``."""
    program = command.argv[0]
    if "/" in program:
        return str(root / program)
    found = shutil.which(program, path=env.get("PATH"))
    if found is None:
        raise NotStarted(f"{program!r} is not on PATH")
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


def trial_environment(route: TrialRoute) -> dict[str, str]:
    """What a program needs of a trial to reach its proxy and mock MCP server: the variables its
    environment holds (a process started for the trial) or the trial's first line carries (``env``,
    a long-lived process's)."""
    return {
        "OPENAI_BASE_URL": route.openai_base_url,
        "OPENAI_API_KEY": route.token,
        "ANTHROPIC_BASE_URL": route.anthropic_base_url,
        "ANTHROPIC_API_KEY": route.token,
        "TOOL_EVAL_GATE_MCP_URL": route.mcp_url,
    }


def program_environment(route: TrialRoute, base: Mapping[str, str]) -> dict[str, str]:
    """A program's environment: ``base`` without anything secret (``environment_without_secrets``, the
    rule of every process the gate starts: every variable whose name says key, token, secret,
    password, DSN or webhook, every ``OPENAI_*`` / ``ANTHROPIC_*`` / ``AZURE_OPENAI_*`` setting, the
    action's inputs), the addresses and token of ``route`` (a trial's, or a long-lived process's own),
    and ``PYTHONUNBUFFERED=1`` (a Python program's answers are not held in a pipe buffer)."""
    return {**environment_without_secrets(base), **trial_environment(route), "PYTHONUNBUFFERED": "1"}


@dataclass
class ProgramProcess:
    """The running program: its answers, its standard error, its end."""

    proc: asyncio.subprocess.Process
    scope: CommandScope
    stderr: bytearray = field(default_factory=bytearray)
    stderr_start: int = 0  # the offset in everything it wrote of ``stderr``'s first byte
    drains: list[asyncio.Task[None]] = field(default_factory=list)
    # Its standard output, line by line, read ahead a few lines (b"": its end; None: a line over the
    # limit); lines it writes once no answer is wanted any more are dropped (``finish``).
    lines: asyncio.Queue[bytes | None] = field(default_factory=lambda: asyncio.Queue(maxsize=4))
    discarding: bool = False

    @classmethod
    async def start(cls, command: Command, root: Path, env: dict[str, str]) -> ProgramProcess:
        """The program started in a command scope of its own (``gate.containment``: the user it runs
        as, its ``HOME`` / ``TMPDIR``), in a session of its own; ``end`` ends it, all of it."""
        argv = [resolve_program(command, root, env), *command.argv[1:]]
        try:
            scope = open_scope(os.environ)
        except (GateError, OSError) as exc:  # no user left for it, say
            raise NotStarted(f"{command.argv[0]!r}: {exc}") from None
        try:
            proc = await scope.start(argv, cwd=root, env=scope.environment(env), limit=MAX_ANSWER_BYTES)
        except BaseException as exc:
            await scope.aclose()
            if isinstance(exc, OSError):
                raise NotStarted(_start_failure(command, argv[0], exc)) from None
            raise
        process = cls(proc, scope)
        process.drains += [
            asyncio.ensure_future(process._drain_stderr()),
            asyncio.ensure_future(process._read_stdout()),
        ]
        return process

    async def _read_stdout(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            raw: bytes | None
            try:
                raw = await stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                raw = None
            if not self.discarding or not raw:
                await self.lines.put(raw)
            if not raw:
                return

    async def _drain_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        while chunk := await stream.read(8192):
            self.stderr += chunk
            if len(self.stderr) > STDERR_KEPT:
                cut = len(self.stderr) - STDERR_KEPT
                del self.stderr[:cut]
                self.stderr_start += cut

    @property
    def stderr_written(self) -> int:
        """How many bytes it has written to its standard error so far (a trial's mark)."""
        return self.stderr_start + len(self.stderr)

    def stderr_since(self, mark: int = 0) -> str:
        """The last ``STDERR_TAIL_CHARS`` of what it wrote to its standard error since ``mark``."""
        text = bytes(self.stderr[max(0, mark - self.stderr_start) :]).decode("utf-8", "replace")
        return text[-STDERR_TAIL_CHARS:].strip("\n")

    async def send(self, line: dict[str, Any]) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write((json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass"))
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise Crash(await self._ended("before reading its message"), ended=True) from None

    async def answer(self, number: int) -> str:
        raw = await self._next_line()
        if raw is None:
            raise Crash(f"wrote an answer line longer than {MAX_ANSWER_BYTES} bytes")
        if not raw:
            self.lines.put_nowait(raw)  # its end, for whoever asks next
            raise Crash(await self._ended(f"without answering message {number}"), ended=True)
        return read_answer(raw)

    async def _next_line(self) -> bytes | None:
        """Its next line; b"" once it has ended, even when a process it left behind still holds its
        standard output (what it wrote before it ended is read first). Its end is seen from its exit
        status: ``wait()`` waits for its pipes to close too."""
        line = asyncio.ensure_future(self.lines.get())
        try:
            while True:
                done, _ = await asyncio.wait({line}, timeout=EXIT_POLL_S)
                if done:
                    return line.result()
                if self.proc.returncode is not None:
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(asyncio.shield(line), LAST_WORDS_S)
                    return line.result() if line.done() else b""
        finally:
            line.cancel()

    def wrote_unasked(self) -> bool:
        """Whether it wrote a line no message asked for (or ended) since its last answer: a process
        between trials must be silent and alive."""
        return not self.lines.empty()

    async def _ended(self, what: str) -> str:
        code = await self._exit_within(1.0)
        return f"closed its standard output {what}" if code is None else f"{exit_text(code)} {what}"

    async def _exit_within(self, seconds: float) -> int | None:
        """Its exit status once it has ended, within ``seconds`` (None: it has not). Read from the
        status itself: ``wait()`` also waits for its pipes, which a process it left may hold."""
        deadline = asyncio.get_running_loop().time() + max(0.0, seconds)
        while self.proc.returncode is None and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(min(EXITED_POLL_S, max(0.0, deadline - asyncio.get_running_loop().time())))
        return self.proc.returncode

    async def finish(self, grace: float) -> str | None:
        """Close its input and let it exit: why its exit is a failure (None: it exited with 0, or is
        still running and gets ended)."""
        stdin = self.proc.stdin
        if stdin is not None:
            with contextlib.suppress(Exception):
                stdin.close()
        self.discarding = True
        while not self.lines.empty():
            self.lines.get_nowait()
        code = await self._exit_within(grace)
        return None if code is None or code == 0 else f"{exit_text(code)} after its last answer"

    def others(self) -> int | None:
        """How many processes its scope holds besides the program (what a trial left running); None
        where the system does not say."""
        return self.scope.others(self.proc)

    async def end(self) -> None:
        """End it and everything it started (``gate.containment.scope``), then stop reading."""
        try:
            await self.scope.end(self.proc)
        finally:
            await self.scope.aclose()  # every process of the scope ended, the program's and what it left
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


def exit_text(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"


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
        raise Crash(
            f'wrote a line that is not the protocol (a JSON object needs a string "content"): {text[:200]}'
        )
    return content
