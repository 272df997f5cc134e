"""One command's scope: the user it runs as, how it starts, and the end of everything it started
(DESIGN section 10, "Contained"). Every command the gate starts goes through one: an agent program's
trial (``gate.programs.trial``), an MCP server listing its tools or answering a trial's ``calls:
live`` (``gate.tool_servers.session``).

- **A user of its own** (``own``, the gate runs as root: ``gate.containment.users``): the command
  starts as that uid and gid, with no other group and no new privileges (through ``setpriv``, or the
  supervisor script where the system has none: ``_as_user``; the gate itself never forks to change
  users, which costs a copy of its page tables and blocks its event loop until the ``execve``), and
  ``HOME`` and ``TMPDIR`` at a private directory it owns. What ``execve`` would refuse is found before
  (``reach.exec_problem``), so that a program that cannot start is told from one that fails. When
  the scope closes, the reaper ends every process of that uid (a ``setsid`` child, a double fork,
  whatever it is) and the private directory is removed.
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.containment import processes
from gate.containment.reach import exec_problem, resolve_executable
from gate.containment.users import POOL, SCRIPTS, CommandUser, command_user

SUPERVISOR = str(SCRIPTS / "supervisor.py")
# Found where the system keeps it, never on a PATH the job set.
SETPRIV = next((p for p in ("/usr/bin/setpriv", "/bin/setpriv") if os.access(p, os.X_OK)), "")
# The most the supervisor may take to end its command and everything below it: its grace after
# SIGTERM (supervisor.GRACE_S) and its deadline for the rest (supervisor.DEADLINE_S), with a margin
# for a loaded machine; past it the gate kills the supervisor itself (what it had not ended is left).
SUPERVISOR_ENDING_S = 1.0 + 10.0 + 2.0
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
        if self.uid is None:
            return await _supervised(argv, pipes)
        problem = exec_problem(argv[0])
        if problem is not None:
            raise problem
        return await asyncio.create_subprocess_exec(*_as_user(self.uid, argv), **pipes)

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

    def others(self, process: asyncio.subprocess.Process) -> int | None:
        """How many processes of the scope run besides the command ``process`` itself (what one of
        its trials left running); None where the system does not show them (no ``/proc``)."""
        if not processes.readable():
            return None
        if self.uid is not None:  # every process of the scope's user, the command among them
            return len([pid for pid in processes.of_user(self.uid) if pid != process.pid])
        return max(0, len(processes.descendants(process.pid)) - 1)  # below the supervisor: the command

    def server_command(
        self, argv: Sequence[str], cwd: str | os.PathLike[str], env: Mapping[str, str]
    ) -> tuple[str, list[str]]:
        """The command and arguments that start the MCP server ``argv`` in this scope (for a client
        that starts it itself); ``FileNotFoundError`` when its program does not exist."""
        executable = resolve_executable(argv[0], cwd, env)
        if executable is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
        if self.uid is not None:
            command = _as_user(self.uid, [executable, *argv[1:]])
            return command[0], command[1:]
        return sys.executable, ["-I", "-S", SUPERVISOR, "--", executable, *argv]

    async def aclose(self) -> None:
        """``close`` from an event loop, without holding it while the reaper works."""
        if self.uid is not None:
            await asyncio.to_thread(self.close)

    def close(self) -> None:
        """End every process of the scope's user and remove its private directory."""
        if self.uid is None:
            return
        uid, self.uid = self.uid, None
        POOL.end_user(uid)
        shutil.rmtree(self.home, ignore_errors=True)


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


def _as_user(uid: int, argv: Sequence[str]) -> list[str]:
    """The command line that runs ``argv`` (its first word a path) as ``uid``, with the gid of the same
    number, no other group and no new privileges: through ``setpriv`` (util-linux, a ``vfork`` and an
    ``execve`` away) where the system has it, else through the supervisor script (a Python start-up
    more). Either becomes the command (the same process)."""
    if SETPRIV:
        return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs", "--", *argv]
    switch = ["--uid", str(uid), "--gid", str(uid)]
    return [sys.executable, "-I", "-S", SUPERVISOR, *switch, "--", argv[0], *argv]


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
            await asyncio.wait_for(process.wait(), SUPERVISOR_ENDING_S)
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
