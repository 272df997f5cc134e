"""Which files under a directory git tracks: what a pull request can have written there itself.

The response cache asks it in CI (``gate.run.cache``): a cache directory that holds tracked files
holds answers a pull request can forge, so they never decide a verdict there.
"""

from __future__ import annotations

import os
from pathlib import Path

from gate.errors import InputError
from gate.git.changes import run_git


class GitUnavailable(Exception):
    """git could not answer (not installed, or it failed in a work tree)."""


def tracked_under(directory: Path, root: Path, limit: int = 3) -> tuple[str, ...]:
    """Up to ``limit`` files git tracks at or below ``directory`` (root-relative POSIX paths), the
    index included; empty when ``root`` is not in a git work tree or ``directory`` lies outside it.
    Raises :class:`GitUnavailable` when git cannot tell."""
    real_root, real = Path(os.path.realpath(root)), Path(os.path.realpath(directory))
    if real != real_root and real_root not in real.parents:
        return ()
    try:
        inside = run_git(["rev-parse", "--is-inside-work-tree"], real_root)
    except InputError as exc:  # git is not installed
        raise GitUnavailable(str(exc)) from None
    if inside.returncode != 0:
        reason = _fatal(inside.stderr)
        if "not a git repository" in reason:
            return ()  # nothing is tracked
        raise GitUnavailable(reason)  # e.g. dubious ownership: no proof that nothing is tracked
    relative = real.relative_to(real_root).as_posix()
    listed = run_git(["ls-files", "-z", "--cached", "--full-name", "--", relative], real_root)
    if listed.returncode != 0:
        raise GitUnavailable(_fatal(listed.stderr))
    names = [n for n in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
    return tuple(names[:limit])


def _fatal(stderr: bytes) -> str:
    """git's reason: its ``fatal:`` line (hints follow it), else its last line."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    fatal = [line.removeprefix("fatal: ") for line in lines if line.startswith("fatal:")]
    return (fatal or lines or ["git failed"])[0 if fatal else -1]
