"""What a command's own user can reach: a user with no passwd entry, no file of its own and no group
but its own, so for every file it is "other" and only the ``o`` bits of each mode apply (access
control lists, which could grant more, are not read). ``run`` checks the commands before it starts
any (exit 2, at the command's line): the directory a command runs in must be readable, its program
reachable and executable, every directory on the way searchable.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from collections.abc import Mapping
from pathlib import Path


def resolve_executable(program: str, cwd: str | os.PathLike[str], environ: Mapping[str, str]) -> str | None:
    """Where ``program`` is: a path (relative to ``cwd``) when it has a slash, else the first match on
    the ``PATH`` of ``environ`` (as the system runs it); None when there is no such file."""
    if "/" in program:
        path = os.path.join(cwd, program)
        return path if os.path.exists(path) else None
    return shutil.which(program, path=environ.get("PATH", os.defpath))


def unreachable(path: str | os.PathLike[str], *, execute: bool = False) -> str:
    """Why another user cannot use ``path`` (links resolved): a directory on the way it cannot search,
    or ``path`` itself it cannot read (a directory: list and enter; a file: read, and run when
    ``execute``); "" when it can."""
    real = Path(os.path.realpath(path))
    for directory in reversed(real.parents):
        if not _mode(directory) & stat.S_IXOTH:
            return f"{directory} is not searchable by other users"
    mode = _mode(real)
    wanted = stat.S_IROTH | (stat.S_IXOTH if execute or stat.S_ISDIR(mode) else 0)
    if mode & wanted != wanted:
        what = (
            "readable and searchable"
            if stat.S_ISDIR(mode)
            else "readable and executable"
            if execute
            else "readable"
        )
        return f"{real} is not {what} by other users"
    return ""


def _mode(path: Path) -> int:
    try:
        return path.stat().st_mode
    except OSError:
        return 0


def exec_problem(path: str) -> OSError | None:
    """What ``execve`` would say, for another user, of running the program at ``path`` (None: it would
    run it): no such file, not a regular file it may read and run, a ``#!`` interpreter that does not
    exist, or neither a binary nor a script (``ENOEXEC``). Checked before starting a program through a
    launcher, which could only report it as its own failure."""
    try:
        info = os.stat(path)
    except OSError as exc:
        return exc
    if not stat.S_ISREG(info.st_mode) or unreachable(path, execute=True):
        return PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(256)
    except OSError as exc:
        return exc
    if head.startswith(b"\x7fELF"):
        return None
    if not head.startswith(b"#!"):
        return OSError(errno.ENOEXEC, os.strerror(errno.ENOEXEC), path)
    words = head[2:].split(b"\n", 1)[0].split()
    interpreter = os.fsdecode(words[0]) if words else ""
    if not interpreter or not os.path.isfile(interpreter):
        return FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    return None
