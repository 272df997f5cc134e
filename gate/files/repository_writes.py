"""Files a command writes into the repository (``init``: the starter suite, the workflow, the
pre-commit configuration, ``.gitignore`` lines), checked before anything is written.

DESIGN section 9's output rules, for files inside a repository whose content the user may not have
written (a cloned repository commits symlinks, FIFOs cannot be committed but can be made): every path
is checked first, and one that cannot be written safely refuses the whole command before the first
byte is written (exit 2, every such path named):

- a path whose real location (symlinks followed: the file itself, ``.github``, any directory on the
  way) is outside the repository: ``.gitignore -> ../x`` would have had init append to a file outside,
  ``.github -> /elsewhere`` put the workflow outside;
- a dangling symlink, on the way or at the file (a file created through it would appear wherever it
  points; ``open(..., "x")`` refused it only after the suite was written);
- something that is not a regular file where a file is read or appended to (a FIFO blocked init
  forever, ``/dev/zero`` read until memory ran out), or not a directory on the way;
- a file to create that exists (init never overwrites).

Existing files are read through :func:`read_checked` (a regular file, bounded), and appended to
through a descriptor opened without following a link and checked to be a regular file.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gate.errors import InputError, Problem
from gate.files.bounded_read import TooLarge, read_bounded
from gate.limits import MAX_FILE_BYTES

__all__ = ["RepositoryWrite", "check_writes", "read_checked", "write_all"]


@dataclass(frozen=True)
class RepositoryWrite:
    """One file to write: ``path`` (absolute, as written below the root), its ``text``, and whether
    it is ``created`` (refused when it exists) or appended to."""

    path: Path
    text: str
    created: bool = True


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _way_problem(path: Path, root: Path) -> str | None:
    """What on the way from ``root`` down to ``path`` (its parents and the path itself) keeps a file
    from being written there, followed as the system follows it."""
    real_root = Path(os.path.realpath(root))
    relative = path.relative_to(root)
    for depth in range(1, len(relative.parts) + 1):
        step = root.joinpath(*relative.parts[:depth])
        last = depth == len(relative.parts)
        try:
            info = os.stat(step)
        except FileNotFoundError:
            if os.path.islink(step):
                return f"{_shown(step, root)} is a symlink to nothing (a file written there lands elsewhere)"
            return None  # from here on, init creates what is missing
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return f"{_shown(step, root)} is a symlink loop"
            return f"{_shown(step, root)} cannot be looked at ({exc.strerror or exc})"
        if not _inside(Path(os.path.realpath(step)), real_root):
            return (
                f"{_shown(step, root)} leads outside the repository (a symlink to {os.path.realpath(step)})"
            )
        if not last and not stat.S_ISDIR(info.st_mode):
            return f"{_shown(step, root)} is not a directory"
        if last and not stat.S_ISREG(info.st_mode):
            return f"{_shown(step, root)} is not a regular file ({_kind(info.st_mode)})"
    return None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def read_checked(path: Path, root: Path) -> str | None:
    """The text of an existing repository file a command reads before writing (None: it does not
    exist); ``InputError`` when it is not a regular file inside the repository, or over 1 MiB."""
    problem = _way_problem(path, root)
    if problem is not None:
        raise InputError([Problem(_shown(path, root), 0, 0, f"not read: {problem}", "remove it or fix it")])
    if not os.path.lexists(path):
        return None
    try:
        return read_bounded(path, MAX_FILE_BYTES).decode("utf-8", errors="replace")
    except TooLarge:
        raise InputError(
            [Problem(_shown(path, root), 0, 0, f"not read: over {MAX_FILE_BYTES:,} bytes")]
        ) from None
    except OSError as exc:
        raise InputError([Problem(_shown(path, root), 0, 0, f"not read: {exc.strerror or exc}")]) from None


def check_writes(writes: Sequence[RepositoryWrite], root: Path) -> None:
    """Raise ``InputError`` naming every file of ``writes`` that cannot be written safely (see the
    module doc), before anything is written."""
    problems: list[Problem] = []
    for write in writes:
        shown = _shown(write.path, root)
        problem = _way_problem(write.path, root)
        if problem is None and write.created and os.path.lexists(write.path):
            problems.append(
                Problem(shown, 0, 0, "init never overwrites: the file exists", "move it aside or remove it")
            )
        elif problem is not None:
            problems.append(Problem(shown, 0, 0, f"not written: {problem}", "remove it or fix it"))
    if problems:
        raise InputError(problems)


def write_all(writes: Sequence[RepositoryWrite]) -> None:
    """Write every file of ``writes`` (checked by :func:`check_writes`): a created file with
    ``O_EXCL`` (never over one that appeared meanwhile, nor through a link), an appended one through
    a descriptor that follows no link and is a regular file."""
    for write in writes:
        write.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        flags |= (os.O_CREAT | os.O_EXCL) if write.created else os.O_APPEND
        fd = os.open(os.path.realpath(write.path) if not write.created else write.path, flags, 0o644)
        with os.fdopen(fd, "wb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise InputError([Problem(str(write.path), 0, 0, "not written: not a regular file")])
            handle.write(write.text.encode("utf-8"))
