"""One command's scope: the user it runs as, how it starts, and the end of everything it started
(DESIGN section 10, "Contained"). Every command the gate starts goes through one: an agent program's
trial (``gate.programs.trial``), an MCP server listing its tools or answering a trial's ``calls:
live`` (``gate.tool_servers.session``).

- **A user of its own** (``own``, the gate runs as root: ``gate.containment.users``): the program
  starts directly as that uid and gid, with no other group, and ``HOME`` and ``TMPDIR`` at a private
  directory it owns; an MCP server starts through the supervisor, which takes the user and becomes
  the server. When the scope closes, the reaper ends every process of that uid (a ``setsid`` child,
  a double fork, whatever it is) and the private directory is removed.
- **The gate's own user** (``gate``): each command runs under the supervisor
  (``gate/containment/supervisor.py``), a child subreaper that ends everything below it when the
  command ends or the gate tells it to (SIGTERM), and forbids new privileges.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.containment.reach import resolve_executable
from gate.containment.users import POOL, SCRIPTS, CommandUser, command_user

SUPERVISOR = str(SCRIPTS / "supervisor.py")
SUPERVISOR_GRACE_S = 1.0  # supervisor.GRACE_S: after SIGTERM, before SIGKILL
END_WAIT_S = 1.0  # a command of its own user: after each signal to its group, the wait for it to end


@dataclass
class CommandScope:
    """Where one command runs (see the module doc); ``uid`` is None for the gate's own user."""

    user: CommandUser
    uid: int | None = None
    home: str = ""

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` with the scope's own ``HOME`` and ``TMPDIR`` (for a user of its own)."""
        if self.uid is None:
            return dict(env)
        return {**env, "HOME": self.home, "TMPDIR": self.home}

    async def start(
        self, argv: Sequence[str], *, cwd: str | os.PathLike[str], env: Mapping[str, str], limit: int
    ) -> asyncio.subprocess.Process:
        """Start ``argv`` (its first word a path) in a session of its own with pipes for its standard
        streams; an ``OSError`` when it could not be started, as ``execve`` said."""
        pipes: dict[str, Any] = {
            "stdin": asyncio.subprocess.PIPE,
            "stdout": asyncio.subprocess.PIPE,
            "stderr": asyncio.subprocess.PIPE,
            "start_new_session": True,
            "limit": limit,
            "cwd": cwd,
            "env": dict(env),
        }
        if self.uid is not None:
            return await asyncio.create_subprocess_exec(
                *argv, user=self.uid, group=self.uid, extra_groups=[], **pipes
            )
        return await _supervised(argv, pipes)

    async def end(self, process: asyncio.subprocess.Process) -> None:
        """End ``process`` and everything it started (see the module doc)."""
        if self.uid is None:
            await _end_supervised(process)
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
            if process.returncode is not None and not _group_alive(process.pid):
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), END_WAIT_S)

    def server_command(
        self, argv: Sequence[str], cwd: str | os.PathLike[str], env: Mapping[str, str]
    ) -> tuple[str, list[str]]:
        """The command and arguments that start the MCP server ``argv`` in this scope (for a client
        that starts it itself); ``FileNotFoundError`` when its program does not exist."""
        executable = resolve_executable(argv[0], cwd, env)
        if executable is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
        user = [] if self.uid is None else ["--uid", str(self.uid), "--gid", str(self.uid)]
        return sys.executable, ["-I", "-S", SUPERVISOR, *user, "--", executable, *argv]

    def close(self) -> None:
        """End every process of the scope's user and remove its private directory."""
        if self.uid is None:
            return
        uid, self.uid = self.uid, None
        POOL.end_user(uid)
        shutil.rmtree(self.home, ignore_errors=True)


@contextlib.contextmanager
def command_scope(environ: Mapping[str, str] | None = None) -> Iterator[CommandScope]:
    """A scope for one command (closed on leaving: every process of it ended)."""
    scope = open_scope(os.environ if environ is None else environ)
    try:
        yield scope
    finally:
        scope.close()


def open_scope(environ: Mapping[str, str]) -> CommandScope:
    """A new scope; the caller closes it."""
    user = command_user(environ)
    if user == "gate":
        return CommandScope(user)
    uid = POOL.acquire()
    try:
        home = tempfile.mkdtemp(prefix="tool-eval-gate-home-")
        os.chown(home, uid, uid)
    except BaseException:
        POOL.end_user(uid)
        raise
    return CommandScope(user, uid, home)


async def _supervised(argv: Sequence[str], pipes: dict[str, Any]) -> asyncio.subprocess.Process:
    """``argv`` under the supervisor; its ``execve`` error, if any, raised as the ``OSError`` it was."""
    read_end, write_end = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            "-S",
            SUPERVISOR,
            "--status-fd",
            str(write_end),
            "--",
            argv[0],
            *argv,
            pass_fds=(write_end,),
            **pipes,
        )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    status = await _read_all(read_end)
    if status.strip() not in ("", "ok"):
        await process.wait()
        code = int(status) if status.strip().isdigit() else errno.EIO
        raise OSError(code, os.strerror(code), argv[0])
    return process


async def _read_all(fd: int) -> str:
    """Everything written to the pipe ``fd`` until its end (then closed)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
    )
    try:
        return (await reader.read(64)).decode("ascii", "replace")
    finally:
        transport.close()


async def _end_supervised(process: asyncio.subprocess.Process) -> None:
    """Tell the supervisor to end its command (it ends everything below it), and wait for it; kill
    its group only if it does not end (it runs as the command's user, which could stop it)."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(process.pid, signal.SIGTERM)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), SUPERVISOR_GRACE_S + 2.0)
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), END_WAIT_S)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
