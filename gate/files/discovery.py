"""Finding suite files: which files are suites, the suites under a directory, the repository root.

Reads the file system (directory listings, ``.git`` and ``pyvenv.cfg`` markers); reads no file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from gate.errors import Problem

SUITE_SUFFIXES = (".suite.yaml", ".suite.yml")
SKIP_DIRS = {"node_modules", "__pycache__", "venv", "env", "site-packages", "dist", "build"}


def is_suite_file(path: Path | str) -> bool:
    return str(path).lower().endswith(SUITE_SUFFIXES)


def find_suite_files(root: Path, problems: list[Problem] | None = None) -> list[Path]:
    """Every ``*.suite.yaml`` / ``*.suite.yml`` under ``root``, sorted, skipping hidden directories,
    ``node_modules``, virtualenvs and build output. A directory that cannot be read, or that is named
    like a suite file, is a problem (added to ``problems`` when given), never silently skipped."""
    found: list[Path] = []

    def unreadable(error: OSError) -> None:
        if problems is not None:
            where = os.path.relpath(error.filename) if error.filename else str(root)
            problems.append(Problem(where, 0, 0, f"cannot read directory: {error.strerror or error}"))

    if problems is not None and is_suite_file(root.name):
        problems.append(_named_like_a_suite(root))
    for dirpath, subdirectories, filenames in walk_repository(root, unreadable):
        if problems is not None:
            problems.extend(_named_like_a_suite(Path(dirpath, d)) for d in subdirectories if is_suite_file(d))
        found.extend(Path(dirpath, name) for name in filenames if is_suite_file(name))
    return sorted(found)


def walk_repository(
    root: Path, onerror: Callable[[OSError], None] | None = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    """Each directory under ``root`` with all its subdirectories' names and its file names (sorted);
    the walk skips hidden directories, ``node_modules``, virtualenvs and build output."""
    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror):
        subdirectories = list(dirnames)
        dirnames[:] = sorted(
            name
            for name in dirnames
            if not name.startswith(".") and name not in SKIP_DIRS and not _is_virtualenv(Path(dirpath, name))
        )
        yield dirpath, subdirectories, sorted(filenames)


def _named_like_a_suite(directory: Path) -> Problem:
    """A directory whose name says suite file: never read as one, and never passed over in silence."""
    return Problem(
        os.path.relpath(directory),
        0,
        0,
        "is a directory, not a suite file (its name ends in .suite.yaml)",
        "rename the directory, or put the suite in a file of that name",
    )


def _is_virtualenv(directory: Path) -> bool:
    try:
        return (directory / "pyvenv.cfg").exists()
    except OSError:  # unreadable: os.walk reports it
        return False


def default_root(paths: Sequence[str | Path] = ()) -> Path:
    """The repository root: the nearest ancestor of the working directory containing ``.git``, else
    the working directory. When some of ``paths`` lie outside it, the nearest ``.git`` ancestor of
    their common directory (else that directory) is used instead."""
    cwd = Path.cwd()
    root = _git_ancestor(cwd) or cwd
    absolute = [Path(os.path.abspath(p)) for p in paths]
    if absolute and not all(inside(p, root) for p in absolute):
        common = Path(os.path.commonpath([str(p if p.is_dir() else p.parent) for p in absolute]))
        root = _git_ancestor(common) or common
    return root


def _git_ancestor(start: Path) -> Path | None:
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` is ``root`` or below it (lexically: symlinks are not followed)."""
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False
