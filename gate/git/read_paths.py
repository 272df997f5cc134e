"""How the files suites read are reached in the working tree: the facts change detection maps.

For each path a suite reads (as the suite writes it, relative to the root) the path is followed one
component at a time, as the system opens it: every symlink on the way (a file's own, a directory's)
is a way it is read, and so is the path at the end. A symlink that leaves the repository ends the walk
(what lies outside is the machine's, not the pull request's; the link itself is still a way). A file
git does not track is one whose change cannot be told, unless it lies in a directory of installed
dependencies (``node_modules``, ``.venv``: the job's installs, which both sides of ``--baseline auto``
share). ``watch`` globs name files git lists; of those, the symlinks (to directories too) are followed
the same way, and so are the tracked symlinks inside a directory one of them leads to.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gate.git.affected import Reached, ReadFacts, fold, suite_reads, suite_watches
from gate.git.changes import run_git
from gate.git.installed import INSTALLED_NAMES
from gate.suite.model import Suite
from gate.util.globs import matches, may_match_below

MAX_LINKS = 40  # symlinks followed for one path, as the system's own limit (ELOOP)
NOT_TRACKED = "not tracked by git, so whether it changed cannot be told"


@dataclass(frozen=True)
class _Tracked:
    """What git's index says below the root: every tracked path (folded; the files of checked-out
    submodules included when ``listed`` is empty), the symlinks, and the submodules."""

    paths: frozenset[str]
    links: tuple[str, ...]
    submodules: tuple[str, ...]
    unlisted: str  # why the files of submodules could not be listed (empty when they were)


def _entries(output: bytes) -> list[tuple[str, str]]:
    """(mode, path) of each record of ``git ls-files -s -z``."""
    found = []
    for record in output.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = record.partition("\t")
        if path:
            found.append((meta.split(" ", 1)[0], path))
    return found


def _tracked(root: Path) -> _Tracked:
    top = run_git(["ls-files", "-s", "-z"], root)
    entries = _entries(top.stdout) if top.returncode == 0 else []
    submodules = tuple(path for mode, path in entries if mode == "160000")
    unlisted = ""
    if submodules:
        recursive = run_git(["ls-files", "-s", "-z", "--recurse-submodules"], root)
        if recursive.returncode == 0:
            entries = _entries(recursive.stdout)
        else:
            lines = recursive.stderr.decode("utf-8", "replace").strip().splitlines()
            unlisted = lines[-1].removeprefix("fatal: ") if lines else "git ls-files failed"
    return _Tracked(
        paths=frozenset(fold(path) for _, path in entries),
        links=tuple(path for mode, path in entries if mode == "120000"),
        submodules=submodules,
        unlisted=unlisted,
    )


def _parts(path: str) -> list[str]:
    return [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]


def _relative(target: str, root: Path) -> list[str] | None:
    """The parts of an absolute symlink target below ``root`` (None when it lies outside)."""
    for base in (os.path.abspath(root), os.path.realpath(root)):
        if target == base or target.startswith(base.rstrip(os.sep) + os.sep):
            return _parts(os.path.relpath(target, base))
    return None


def follow(root: Path, path: str) -> tuple[tuple[str, ...], bool, str]:
    """The ways ``path`` (relative to ``root``) is reached: itself, each symlink followed, and the
    path at the end; whether the walk left the repository; and why it could not be followed (empty
    when it could). A component that does not exist ends the walk there (the rest as written)."""
    ways = [path]
    done: list[str] = []
    todo = _parts(path)
    followed = 0
    while todo:
        part = todo.pop(0)
        if part == "..":
            if not done:
                return tuple(ways), True, ""
            done.pop()
            continue
        here = [*done, part]
        try:
            info = os.lstat(os.path.join(root, *here))
        except FileNotFoundError:
            done = here + todo
            break
        except (OSError, ValueError) as exc:
            return tuple(ways), False, f"cannot be followed ({getattr(exc, 'strerror', None) or exc})"
        if not stat.S_ISLNK(info.st_mode):
            done = here
            continue
        followed += 1
        if followed > MAX_LINKS:
            return tuple(ways), False, "cannot be followed (a symlink loop)"
        link = "/".join(here)
        if link not in ways:
            ways.append(link)
        target = os.readlink(os.path.join(root, *here))
        if os.path.isabs(target):
            inside = _relative(target, root)
            if inside is None:
                return tuple(ways), True, ""
            done, todo = [], inside + todo
        else:
            todo = _parts(target) + todo
    end = "/".join(done)  # "" when a link leads to the repository root: everything is below it
    if end not in ways:
        ways.append(end)
    return tuple(ways), False, ""


def _installed(path: str) -> bool:
    return any(part in INSTALLED_NAMES for part in _parts(path)[:-1])


def _reach(root: Path, path: str, tracked: _Tracked) -> Reached:
    """How the file ``path`` a suite reads is reached, and whether its change can be told."""
    ways, outside, trouble = follow(root, path)
    if trouble:
        return Reached(ways, trouble)
    end = ways[-1]
    if outside or fold(end) in tracked.paths or _installed(end):
        return Reached(ways)
    module = next((m for m in tracked.submodules if fold(end).startswith(fold(m) + "/")), None)
    if module is not None and tracked.unlisted:
        return Reached(
            ways, f"inside the submodule {module}, whose files git cannot list ({tracked.unlisted})"
        )
    return Reached(ways, NOT_TRACKED)


def _watched_links(globs: Iterable[str], tracked: _Tracked) -> dict[str, tuple[str, ...]]:
    """Glob -> the tracked symlinks it matches or may match something below."""
    return {
        glob: tuple(link for link in tracked.links if matches(glob, link) or may_match_below(glob, link))
        for glob in globs
    }


def _follow_links(root: Path, links: Iterable[str], tracked: _Tracked) -> dict[str, Reached]:
    """How each symlink is reached, and the tracked symlinks inside the directories they lead to
    (followed in turn): a program reads what is below a linked directory."""
    reached: dict[str, Reached] = {}
    todo = list(links)
    while todo:
        link = todo.pop()
        if link in reached:
            continue
        ways, _, trouble = follow(root, link)
        reached[link] = Reached(ways, trouble)
        below = fold(ways[-1]) + "/" if ways[-1] else ""
        todo += [inner for inner in tracked.links if fold(inner).startswith(below)]
    return reached


def read_facts(root: Path, suites: Sequence[Suite]) -> ReadFacts:
    """The facts :func:`gate.git.affected.affected_suites` maps, for the files ``suites`` read."""
    tracked = _tracked(root)
    reads = sorted({path for suite in suites for path in suite_reads(suite)})
    globs = sorted({glob for suite in suites for globs, _ in suite_watches(suite) for glob in globs})
    watched = _watched_links(globs, tracked)
    reached = _follow_links(root, {link for links in watched.values() for link in links}, tracked)
    reached.update((path, _reach(root, path, tracked)) for path in reads)
    return ReadFacts(reached=reached, watched_links=watched, submodules=tracked.submodules)
