"""The supervisor of one command the gate starts (an agent program, an MCP server): run by the gate's
own interpreter as a script (``python -I -S supervisor.py ...``, standard library only, never
imported), between the gate and the command.

    supervisor.py [--uid UID --gid GID] [--status-fd FD] -- EXECUTABLE ARGV0 [ARG ...]

With ``--uid`` (the gate runs as root): the command's own user. The supervisor drops every group and
takes that uid and gid, forbids itself new privileges (``PR_SET_NO_NEW_PRIVS``: a setuid program
gives nothing back) and becomes the command (``execve``): every process of that user is ended by
uid when its scope closes (``gate.containment.scope``), so no supervision is needed.

Without it (the command runs as the gate's own user): the supervisor stays between the gate and the
command (in a process group of its own) as a child subreaper (``PR_SET_CHILD_SUBREAPER``): whatever
the command starts and leaves behind (a ``setsid`` child, a double fork) is re-parented to the
supervisor instead of init. When
the command exits, or when the supervisor is told to end it (SIGTERM, SIGINT, SIGHUP, or the gate's
death: ``PR_SET_PDEATHSIG``), it ends every process below it (SIGTERM to the command's group, a
grace of ``GRACE_S``, then SIGKILL to every descendant, re-parented ones included, until none is
left) and exits as the command did (its exit code, or killed by the same signal), so the gate reads
the command's status from it. It forbids new privileges too (so ``sudo`` gives nothing back).

``--status-fd FD``: one line written there once the command started (``ok``) or could not be
(``<errno>``), then closed; without it a start failure is a line on standard error and exit 127.
The supervisor's own standard input and output are closed once the command has them, so the gate
sees the command's end of file, not the supervisor's.

Elsewhere than Linux there is no subreaper and no death signal: the supervisor still ends the
command's process group, not what left it.
"""

from __future__ import annotations

import _signal as signal  # type: ignore[import-not-found]  # the C module: ``signal`` imports enum
import ctypes
import os
import sys
import time

GRACE_S = 1.0  # after SIGTERM, the time the command's processes have to end before SIGKILL
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
START_FAILED = 127
ENDING = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
DEADLINE_S = 10.0  # the most the ending of every descendant may take (a process stuck in the kernel)


class _End(Exception):
    """The supervisor was told to end the command."""


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # not Linux
        return False


def _parse(argv: list[str]) -> tuple[dict[str, int], list[str]]:
    if "--" not in argv:
        raise SystemExit("usage: supervisor.py [--uid UID --gid GID] [--status-fd FD] -- EXECUTABLE ARGV0")
    split = argv.index("--")
    names, values = argv[:split:2], [int(value) for value in argv[1:split:2]]
    options = {name.lstrip("-").replace("-", "_"): value for name, value in zip(names, values, strict=True)}
    return options, argv[split + 1 :]


def _report(status_fd: int | None, executable: str, error: int | None) -> None:
    if status_fd is not None:
        os.write(status_fd, b"ok\n" if error is None else f"{error}\n".encode())
        os.close(status_fd)
    elif error is not None:
        sys.stderr.write(f"tool-eval-gate: cannot start {executable}: {os.strerror(error)}\n")


def _become(options: dict[str, int], command: list[str]) -> None:
    """The command itself, as its own user (``--uid``): never returns."""
    status_fd = options.get("status_fd")
    try:
        os.setgroups([])
        os.setresgid(options["gid"], options["gid"], options["gid"])
        os.setresuid(options["uid"], options["uid"], options["uid"])
        _prctl(PR_SET_NO_NEW_PRIVS, 1)
        os.execv(command[0], command[1:])
    except OSError as exc:
        _report(status_fd, command[0], exc.errno or 1)
        os._exit(START_FAILED)


_told: list[int] = []  # the ending signals received: the first one interrupts, the others are noted


def _on_signal(signum: int, frame: object) -> None:
    _told.append(signum)
    if len(_told) == 1:
        raise _End


def _start(command: list[str]) -> tuple[int, int | None]:
    """Fork and execute the command; its pid, and the errno of its failed ``execve`` (None: started).
    The caller blocks the ending signals around it (the command gets them unblocked, as default)."""
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.setpgid(0, 0)  # a group of its own: the supervisor signals it without signalling itself
        for signum in ENDING:
            signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, ENDING)
        try:
            os.execv(command[0], command[1:])
        except OSError as exc:
            os.write(write_end, str(exc.errno or 1).encode())
        os._exit(START_FAILED)
    os.close(write_end)
    data = b""
    while chunk := os.read(read_end, 64):
        data += chunk
    os.close(read_end)
    return pid, int(data) if data else None


def _children() -> list[int]:
    """The processes whose parent is the supervisor (re-parented ones included), from ``/proc``."""
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and int(fields[1]) == me:
            found.append(int(name))
    return found


def _end_everything(pid: int) -> None:
    """SIGKILL every descendant, re-parented ones included, and reap them, until none is left (where
    there is no ``/proc``, and so no subreaper either: the command's process group)."""
    if not os.path.isdir("/proc"):
        _kill(-pid, signal.SIGKILL)
        return
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        try:
            ended, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return  # no child at all: nothing is left below
        if ended:
            continue
        for child in _children():
            _kill(child, signal.SIGKILL)
        time.sleep(0.001)


def _kill(target: int, signum: int) -> None:
    try:
        os.kill(target, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _wait_for(pid: int) -> int:
    """The command's wait status; processes re-parented meanwhile are reaped as they end."""
    while True:
        ended, status = os.waitpid(-1, 0)
        if ended == pid:
            return status


def _terminate(pid: int) -> int:
    """SIGTERM to the command's process group, a grace, then SIGKILL: the command's wait status (as
    killed by SIGKILL when it was reaped already, as the signal came)."""
    try:
        for signum in (signal.SIGTERM, signal.SIGKILL):
            _kill(-pid, signum)
            _kill(pid, signum)
            deadline = time.monotonic() + GRACE_S
            while time.monotonic() < deadline:
                ended, status = os.waitpid(pid, os.WNOHANG)
                if ended == pid:
                    return status
                time.sleep(0.01)
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return int(signal.SIGKILL)


def _exit_as(status: int) -> None:
    """Exit as the command did: its exit code, or killed by its signal."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        if signum in ENDING:
            signal.signal(signum, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _supervise(options: dict[str, int], command: list[str]) -> None:
    parent = os.getppid()
    for signum in ENDING:
        signal.signal(signum, _on_signal)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the gate died before the death signal was set
        os._exit(START_FAILED)
    signal.pthread_sigmask(signal.SIG_BLOCK, ENDING)  # held until the command's pid is known
    pid, error = _start(command)
    _report(options.get("status_fd"), command[0], error)
    if error is not None:
        os.waitpid(pid, 0)
        os._exit(START_FAILED)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    # An ending signal interrupts the wait (and only the first one raises): even one that comes after
    # the command was reaped, before the signals are held again, lands in ``except``, never past it
    # (where it would end the supervisor before it ends what the command left).
    status: int | None = None
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, ENDING)
        status = _wait_for(pid)
        signal.pthread_sigmask(signal.SIG_BLOCK, ENDING)
    except _End:
        signal.pthread_sigmask(signal.SIG_BLOCK, ENDING)
        status = _terminate(pid) if status is None else status
    for signum in ENDING:
        signal.signal(signum, signal.SIG_IGN)  # from here on nothing interrupts the ending
    _end_everything(pid)
    _exit_as(status)


def main() -> None:
    options, command = _parse(sys.argv[1:])
    if "status_fd" in options:
        os.set_inheritable(options["status_fd"], False)  # the command never gets it
    if "uid" in options:
        _become(options, command)
    _supervise(options, command)


if __name__ == "__main__":
    main()
