"""Which files under a directory git tracks: what a pull request can have written there itself.

The response cache asks it in CI (``gate.run.cache``): a cache directory that holds tracked files
holds answers a pull request can forge, so they never decide a verdict there.

Git is asked in the work tree that holds the directory, whichever it is (the repository's, a
submodule's checked out inside it, or another repository's), with the submodules below it
included, and with letter case ignored: on a case-insensitive file system (macOS, Windows) a
committed ``.TOOL-EVAL-GATE/Cache/`` *is* ``.tool-eval-gate/cache/``, though git lists it under
its own spelling.
"""

from __future__ import annotations

import os
from pathlib import Path

from gate.errors import InputError
from gate.git.changes import run_git


class GitUnavailable(Exception):
    """git could not answer (not installed, or it failed in a work tree)."""


def tracked_under(directory: Path, limit: int = 3) -> tuple[str, ...]:
    """Up to ``limit`` files git tracks at or below ``directory`` (paths from the top of the work
    tree that holds it), the index included; empty when no work tree holds it. Raises
    :class:`GitUnavailable` when git cannot tell."""
    real = Path(os.path.realpath(directory))
    start = next(p for p in (real, *real.parents) if p.is_dir())  # the directory may not exist yet
    try:
        top = run_git(["rev-parse", "--show-toplevel"], start)
    except InputError as exc:  # git is not installed
        raise GitUnavailable(str(exc)) from None
    if top.returncode != 0:
        reason = _fatal(top.stderr)
        if "not a git repository" in reason:
            return ()  # nothing is tracked
        raise GitUnavailable(reason)  # e.g. dubious ownership: no proof that nothing is tracked
    work_tree = Path(os.path.realpath(top.stdout.decode("utf-8", "surrogateescape").strip()))
    relative = real.relative_to(work_tree).as_posix()
    spec = f":(literal,icase){relative}"
    listed = run_git(
        ["ls-files", "-z", "--cached", "--recurse-submodules", "--full-name", "--", spec], work_tree
    )
    if listed.returncode != 0:
        raise GitUnavailable(_fatal(listed.stderr))
    names = [n for n in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
    return tuple(names[:limit])


def is_tracked(path: str) -> bool:
    """Whether git tracks the file at ``path`` (False when git cannot tell): a file the checkout
    brought, which a pull request can have written."""
    try:
        return bool(tracked_under(Path(path), limit=1))
    except GitUnavailable:
        return False


def _fatal(stderr: bytes) -> str:
    """git's reason: its ``fatal:`` line (hints follow it), else its last line."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    fatal = [line.removeprefix("fatal: ") for line in lines if line.startswith("fatal:")]
    return (fatal or lines or ["git failed"])[0 if fatal else -1]
