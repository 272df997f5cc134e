"""The processes a command's scope holds besides the command itself, read from ``/proc`` (Linux):
what an agent program kept for its next trial must be the program alone (``reuse: true``,
``gate.programs.pool``), never a process one of its trials started. A zombie (ended, not yet reaped)
is not counted: nothing of it runs."""

from __future__ import annotations

import os

PROC = "/proc"


def _stat(pid: str) -> tuple[int, str] | None:
    """(parent pid, state) of ``pid``, or None when it is gone."""
    try:
        with open(f"{PROC}/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), fields[0].decode("ascii", "replace")


def _uid(pid: str) -> int | None:
    try:
        with open(f"{PROC}/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def readable() -> bool:
    """Whether this system shows its processes here (else nothing can be counted)."""
    return os.path.isdir(f"{PROC}/self")


def descendants(root: int) -> list[int]:
    """The live processes below ``root`` (its children, theirs, ...)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir(PROC):
        if not name.isdigit():
            continue
        stat = _stat(name)
        if stat is not None and stat[1] != "Z":
            children.setdefault(stat[0], []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def of_user(uid: int) -> list[int]:
    """The live processes whose real uid is ``uid``."""
    found = []
    for name in os.listdir(PROC):
        if name.isdigit() and _uid(name) == uid:
            stat = _stat(name)
            if stat is not None and stat[1] != "Z":
                found.append(int(name))
    return found
