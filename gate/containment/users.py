"""Who the commands the gate starts run as (DESIGN section 10, "Contained").

Where the gate can change users (root: ``CAP_SETUID``, ``CAP_SETGID`` and ``CAP_CHOWN``, as in the
action's container), every command runs as **a user of its own**: a uid from ``FIRST_UID`` to
``LAST_UID`` with no passwd entry, no group but its own gid (the same number) and a private home,
one uid per command running at a time and never one another gate of the machine holds
(``UserPool``), so that when the command's scope ends every process of that uid is ended at once by
the reaper (``reaper.py``), whatever session or parent it has, and commands running at the same time
cannot read each other's environment or files, nor end each other. Such a
user cannot read the gate's environment or memory (``/proc/<gate>/environ`` belongs to root) and
cannot write what the gate wrote (the cache, the outputs: root's or the workspace owner's).

Elsewhere, and where ``TOOL_EVAL_GATE_COMMAND_USER=gate`` says so (a root shell whose commands need
root's own files, such as an interpreter under ``/root``), commands run as the gate's own user, each
under a supervisor (``supervisor.py``) that ends everything it started; what that leaves open is
written in SECURITY.md.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from gate.errors import InputError

COMMAND_USER_VARIABLE = "TOOL_EVAL_GATE_COMMAND_USER"
FIRST_UID = 64000  # Debian's range for dynamically allocated system users; no passwd entry needed
LAST_UID = 64999
CommandUser = Literal["own", "gate"]
_CAPABILITIES = (0, 6, 7)  # CAP_CHOWN, CAP_SETGID, CAP_SETUID
SCRIPTS = Path(__file__).resolve().parent


def can_switch_users() -> bool:
    """Whether this process can run commands as other users: the capabilities to change uid, gid and
    a directory's owner (Linux: read from ``/proc/self/status``, so root without them does not count);
    elsewhere, being root."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as handle:
            line = next((row for row in handle if row.startswith("CapEff:")), "")
    except OSError:
        return hasattr(os, "geteuid") and os.geteuid() == 0
    effective = int(line.split()[1], 16) if line else 0
    return all(effective >> bit & 1 for bit in _CAPABILITIES)


def command_user(environ: Mapping[str, str]) -> CommandUser:
    """``own`` (a user of their own) where the gate can switch users, unless the environment says
    ``gate``; ``gate`` otherwise. A value other than those two, or ``own`` where the gate cannot switch
    users, is invalid input."""
    asked = environ.get(COMMAND_USER_VARIABLE, "").strip().lower()
    if asked not in ("", "own", "gate"):
        raise InputError(f"{COMMAND_USER_VARIABLE}={asked!r}: say 'own' (a user of their own) or 'gate'")
    if asked == "gate":
        return "gate"
    if can_switch_users():
        return "own"
    if asked == "own":
        raise InputError(
            f"{COMMAND_USER_VARIABLE}=own: the gate cannot give commands a user of their own unless it runs "
            "as root (it cannot change users); run it as root, or leave the variable unset"
        )
    return "gate"


def _mapped(uid: int) -> bool:
    """Whether ``uid`` exists in this user namespace (a rootless container maps only some)."""
    try:
        with open("/proc/self/uid_map", encoding="ascii") as handle:
            ranges = [tuple(int(n) for n in row.split()) for row in handle if row.strip()]
    except OSError:
        return True
    return any(inside <= uid < inside + count for inside, _outside, count in ranges)


def _in_use(uid: int) -> bool:
    """Whether a passwd entry or a running process already has ``uid`` (then it is not ours to kill)."""
    import pwd

    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        pass
    if not os.path.isdir("/proc"):
        return False
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/status", "rb") as handle:
                status = handle.read()
        except (OSError, ValueError):
            continue
        start = status.find(b"\nUid:")
        if start >= 0 and uid in (int(n) for n in status[start + 5 : status.find(b"\n", start + 1)].split()):
            return True
    return False


class UserPool:
    """The command users of this gate process: one per command running at a time, reused once its
    processes are ended (``end_user``). A uid is taken only if no other gate of the machine holds it
    (its reaper's lock: ``reaper.py``) and nothing else has it (``_in_use``). Its reaper is started with
    the first uid and holds them all; if it is found gone, what it held is this gate's no more: the
    pool starts again from the first uid with a new one."""

    def __init__(self) -> None:
        self._free: list[int] = []
        self._next = FIRST_UID
        self._state = threading.Lock()  # _free
        self._channel = threading.Lock()  # the reaper (one request at a time) and _next
        self._reaper: subprocess.Popen[str] | None = None

    def acquire(self) -> int:
        with self._state:
            reaper = self._reaper
            if self._free and reaper is not None and reaper.poll() is None:
                return self._free.pop()
        with self._channel:
            while self._next <= LAST_UID:
                uid, self._next = self._next, self._next + 1
                if _mapped(uid) and self._ask("take", uid) == "took" and not _in_use(uid):
                    return uid
        raise InputError(
            f"no uid from {FIRST_UID} to {LAST_UID} is free for the gate's commands (each running command "
            f"takes one); lower --concurrency, or set {COMMAND_USER_VARIABLE}=gate"
        )

    def end_user(self, uid: int) -> None:
        """End every process of ``uid`` (through the reaper), then give the uid back if it is still this
        gate's; an ``OSError`` when no reaper could answer (the uid is not given back then)."""
        with self._channel:
            answer = self._ask("kill", uid)
        if answer == "killed":
            with self._state:
                self._free.append(uid)

    def _ask(self, word: str, uid: int) -> str:
        """The reaper's answer to ``word uid`` (``reaper.py``), with the channel held; a reaper that is
        gone is started again first."""
        for attempt in (1, 2):
            reaper = self._running_reaper()
            assert reaper.stdin is not None and reaper.stdout is not None
            try:
                reaper.stdin.write(f"{word} {uid}\n")
                reaper.stdin.flush()
                answer = reaper.stdout.readline().split()
                if len(answer) == 2 and answer[1] == str(uid):
                    return answer[0]
            except OSError:
                if attempt == 2:
                    raise
            reaper.kill()
            reaper.wait()
        raise OSError(f"the reaper did not answer '{word} {uid}'")

    def _running_reaper(self) -> subprocess.Popen[str]:
        reaper = self._reaper
        if reaper is not None and reaper.poll() is None:
            return reaper
        if reaper is not None:
            _close_pipes(reaper)
        with self._state:  # what a gone reaper held is no longer this gate's
            self._free.clear()
            self._next = FIRST_UID
            reaper = self._reaper = _start_reaper()
        return reaper

    def close(self) -> None:
        """Stop the reaper: it ends every user it holds as it goes, then lets them go."""
        with self._channel, self._state:
            reaper, self._reaper = self._reaper, None
            self._free.clear()
            self._next = FIRST_UID
        if reaper is not None:
            assert reaper.stdin is not None
            reaper.stdin.close()
            reaper.wait(10)
            _close_pipes(reaper)


def lock_directory() -> str:
    """Where the reapers of every gate of the machine hold their users' locks: a directory only root
    writes (under ``/run``, else ``/var/run``, else the temporary directory), made if missing; an
    ``OSError`` when it is not such a directory (another user made it first, say)."""
    base = next((d for d in ("/run", "/var/run") if _root_only(d, follow=True)), tempfile.gettempdir())
    path = os.path.join(base, "tool-eval-gate-users")
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o755)
    if not _root_only(path, follow=False):
        raise OSError(
            f"{path}: the gate holds its command users' locks there and only root may write it; remove it"
        )
    return path


def _root_only(path: str, *, follow: bool) -> bool:
    """Whether ``path`` is a directory of this process's user (root) that no other user may write."""
    try:
        info = os.stat(path) if follow else os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022


def _start_reaper() -> subprocess.Popen[str]:
    script = str(SCRIPTS / "reaper.py")
    return subprocess.Popen(
        [sys.executable, "-I", "-S", script, str(FIRST_UID), str(LAST_UID), lock_directory()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={},  # nothing of the gate's: it needs no variable
        start_new_session=True,  # a Ctrl-C for the gate is the gate's to handle, not the reaper's
    )


def _close_pipes(reaper: subprocess.Popen[str]) -> None:
    for pipe in (reaper.stdin, reaper.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


POOL = UserPool()
