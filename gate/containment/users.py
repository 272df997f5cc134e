"""Who the commands the gate starts run as (DESIGN section 10, "Contained").

Where the gate can change users (root: ``CAP_SETUID``, ``CAP_SETGID`` and ``CAP_CHOWN``, as in the
action's container), every command runs as **a user of its own**: a uid from ``FIRST_UID`` to
``LAST_UID`` with no passwd entry, no group but its own gid (the same number) and a private home,
one uid per command running at a time (``UserPool``), so that when the command's scope ends every
process of that uid is ended at once by the reaper (``reaper.py``), whatever session or parent it
has, and commands running at the same time cannot read each other's environment or files. Such a
user cannot read the gate's environment or memory (``/proc/<gate>/environ`` belongs to root) and
cannot write what the gate wrote (the cache, the outputs: root's or the workspace owner's).

Elsewhere, and where ``TOOL_EVAL_GATE_COMMAND_USER=gate`` says so (a root shell whose commands need
root's own files, such as an interpreter under ``/root``), commands run as the gate's own user, each
under a supervisor (``supervisor.py``) that ends everything it started; what that leaves open is
written in SECURITY.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
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
    processes are ended (``end_user``). A uid is taken only if nothing else has it."""

    def __init__(self) -> None:
        self._free: list[int] = []
        self._next = FIRST_UID
        self._lock = threading.Lock()
        self._reaper: subprocess.Popen[str] | None = None

    def acquire(self) -> int:
        with self._lock:
            if self._free:
                return self._free.pop()
            while self._next <= LAST_UID:
                uid, self._next = self._next, self._next + 1
                if _mapped(uid) and not _in_use(uid):
                    return uid
        raise InputError(
            f"no uid from {FIRST_UID} to {LAST_UID} is free for the gate's commands (each running command "
            f"takes one); lower --concurrency, or set {COMMAND_USER_VARIABLE}=gate"
        )

    def end_user(self, uid: int) -> None:
        """End every process of ``uid`` (through the reaper, started again if it is gone), then give
        the uid back; an ``OSError`` when no reaper could do it (the uid is not given back then)."""
        with self._lock:
            for attempt in (1, 2):
                reaper = self._reaper
                if reaper is None or reaper.poll() is not None:
                    reaper = self._reaper = _start_reaper()
                assert reaper.stdin is not None and reaper.stdout is not None
                try:
                    reaper.stdin.write(f"kill {uid}\n")
                    reaper.stdin.flush()
                    if reaper.stdout.readline() == f"killed {uid}\n":
                        self._free.append(uid)
                        return
                except OSError:
                    if attempt == 2:
                        raise
                reaper.kill()
            raise OSError(f"the reaper did not end the processes of uid {uid}")

    def close(self) -> None:
        """Stop the reaper (it ends every user it was asked about once more as it goes)."""
        with self._lock:
            reaper, self._reaper = self._reaper, None
        if reaper is not None:
            assert reaper.stdin is not None
            reaper.stdin.close()
            reaper.wait(10)
            if reaper.stdout is not None:
                reaper.stdout.close()


def _start_reaper() -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-I", "-S", str(SCRIPTS / "reaper.py"), str(FIRST_UID), str(LAST_UID)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={},  # nothing of the gate's: it needs no variable
        start_new_session=True,  # a Ctrl-C for the gate is the gate's to handle, not the reaper's
    )


POOL = UserPool()
