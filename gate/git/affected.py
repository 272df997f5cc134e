"""Which suites a change affects, and why. Pure: the facts come from the edges.

What changed (:mod:`gate.git.changes`) is every entry git lists between the merge base and the working
tree, with what it was and what it is (a file, a symlink, a submodule). How each file a suite reads is
reached (:mod:`gate.git.read_paths`) is every path on the way to it: the path the suite writes, each
symlink followed and the file at the end. A change affects a file the suite reads when it stands at one
of those paths, above one (a symlink or a submodule on the way: a bumped submodule changes every file
under it), or below one (a directory read through a symlink); when a ``.gitattributes`` above one
changed (it changes how git writes the file); or when ``.gitmodules`` changed and the file lies in a
submodule. A file whose change cannot be told (git does not track it, a submodule whose checkout git
cannot inspect) affects its suite too: "no suite is affected" is said only when that is proven.

Paths are compared with letter case and Unicode normalisation ignored: on a case-insensitive file
system (macOS, Windows) a committed ``Tools/Forecast.json`` is the file ``tools/forecast.json``.
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from gate.suite.model import Suite
from gate.util.globs import matches_any, may_match_below

EntryKind = Literal["absent", "file", "symlink", "submodule", "directory"]
ChangeWhere = Literal["committed", "uncommitted", "untracked"]


@dataclass(frozen=True)
class Change:
    """One entry git lists as changed: its path (relative to the root), what stood there at the merge
    base (or at HEAD, for an uncommitted change) and what stands there now."""

    path: str
    before: EntryKind
    after: EntryKind
    where: ChangeWhere = "committed"


@dataclass(frozen=True)
class ChangeSet:
    """Everything that changed since the merge base, and the submodules whose checkout git could not
    inspect (path, git's reason): whether their files changed cannot be told."""

    changes: tuple[Change, ...]
    uninspectable: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Reached:
    """How a path a suite reads is reached in the working tree: ``ways`` holds the path itself first,
    then each symlink followed and the path at the end; ``unknown`` says why whether it changed cannot
    be told (empty when it can)."""

    ways: tuple[str, ...]
    unknown: str = ""


@dataclass(frozen=True)
class ReadFacts:
    """What the working tree says of the files the suites read: how each is reached (by the path the
    suite writes), the tracked symlinks each ``watch`` glob names or may name something below (their
    targets are read too), and the submodules of the index."""

    reached: Mapping[str, Reached] = field(default_factory=dict)
    watched_links: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    submodules: tuple[str, ...] = ()


def fold(path: str) -> str:
    """``path`` as a case-insensitive, normalisation-insensitive file system compares it."""
    return unicodedata.normalize("NFC", path).casefold()


def _normalise(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _source_paths(items: Iterable[object]) -> set[str]:
    paths: set[str] = set()
    for item in items:
        source = getattr(item, "source", None)
        if source is not None and getattr(source, "path", None):
            paths.add(_normalise(source.path))
    return paths


def suite_reads(suite: Suite) -> dict[str, str]:
    """Every file the suite reads, with what it is to the suite (the first reason wins)."""
    reasons: dict[str, str] = {_normalise(suite.path): "suite file"}
    prompt = suite.agent.system_prompt
    if prompt is not None and prompt.source.path:
        reasons.setdefault(_normalise(prompt.source.path), "prompt")
    for path in sorted(_source_paths(suite.agent.tools)):
        reasons.setdefault(path, "tool definitions")
    for path in sorted(_source_paths(suite.cases)):  # data files of cases
        reasons.setdefault(path, "cases")
    mock_sets = [suite.mocks, *(case.mocks for case in suite.cases)]
    mock_paths = _source_paths(mock_sets)
    for mocks in mock_sets:
        mock_paths |= _source_paths(rule for rules in mocks.tools.values() for rule in rules)
        if mocks.unmocked is not None:
            mock_paths |= _source_paths([mocks.unmocked])
    for path in sorted(mock_paths):
        reasons.setdefault(path, "mocks")
    dependencies = {_normalise(path) for path in suite.dependencies}
    for command in suite.commands:  # a file the command names (its script): that program's code
        for item in command.argv:
            if _normalise(item) in dependencies:
                reasons.setdefault(_normalise(item), command.purpose)
    for path in suite.dependencies:
        reasons.setdefault(_normalise(path), "dependency")
    return reasons


def suite_watches(suite: Suite) -> list[tuple[tuple[str, ...], str]]:
    """The ``watch`` globs of the suite's commands and of its MCP servers at a URL, each with what it
    watches ("agent program (watch)")."""
    watching = [(command.watch, f"{command.purpose} (watch)") for command in suite.commands]
    watching += [(s.watch, "MCP server (watch)") for s in suite.agent.tool_servers if not s.command]
    return [(globs, purpose) for globs, purpose in watching if globs]


def _ancestors(path: str) -> Iterator[str]:
    """The directories above ``path``, nearest first (not the root)."""
    parent = posixpath.dirname(path)
    while parent:
        yield parent
        parent = posixpath.dirname(parent)


def _inside(path: str, directory: str) -> bool:
    """Whether ``path`` lies at or below ``directory`` (folded paths; "" and paths above the root
    ("../x") hold everything)."""
    return (
        not directory or directory.startswith("..") or path == directory or path.startswith(directory + "/")
    )


class _Index:
    """The changes, looked up by folded path: at a path, below a directory, and the changed
    ``.gitattributes`` and ``.gitmodules``."""

    def __init__(self, changes: ChangeSet):
        self.at: dict[str, Change] = {}
        self.below: dict[str, list[Change]] = {}
        self.attributes: list[tuple[str, Change]] = []  # (folded directory, change)
        self.modules: Change | None = None
        self.links: list[Change] = []  # symlinks and submodules (a change to what is below them)
        for change in changes.changes:
            folded = fold(change.path)
            self.at.setdefault(folded, change)
            for directory in (*_ancestors(folded), ""):  # "": the root, which a link can lead to
                self.below.setdefault(directory, []).append(change)
            name, directory = posixpath.basename(folded), posixpath.dirname(folded)
            if name == ".gitattributes":
                self.attributes.append((directory, change))
            elif name == ".gitmodules" and all(part == ".." for part in directory.split("/") if part):
                self.modules = self.modules or change
            if {change.before, change.after} & {"symlink", "submodule"}:
                self.links.append(change)
        self.uninspectable = [(fold(path), path, why) for path, why in changes.uninspectable]


def _submodule_change(change: Change) -> str:
    """What happened to a submodule, in a few words."""
    if change.where == "uncommitted":
        return "the submodule's checkout differs from the commit HEAD records"
    if change.before == change.after:
        return "submodule moved"
    if change.before == "absent":
        return "submodule added"
    if change.after == "absent":
        return "submodule removed"
    if change.before == "submodule":
        return f"submodule replaced by a {change.after}"
    return f"{change.before} replaced by a submodule"


def _above(kind: str, read: str, way: str, change: Change) -> str:
    """The reason of a change above a way a file is read (a symlink, a submodule on the way)."""
    if "submodule" in (change.before, change.after):
        return f"{kind}: {_submodule_change(change)} ({way} inside it)"
    return f"{kind}: {read} lies below it"


def _read_hits(kind: str, read: str, ways: Sequence[str], index: _Index) -> Iterator[tuple[str, str]]:
    """(changed path, reason) for each change at, above or below a way ``read`` is reached."""
    for number, way in enumerate(ways):
        folded = fold(way)
        change = index.at.get(folded)
        if change is not None:
            yield change.path, kind if number == 0 else f"{kind}, read as {read}"
        for directory in _ancestors(folded):
            change = index.at.get(directory)
            if change is not None:
                yield change.path, _above(kind, read, way, change)
        for change in index.below.get(folded, ()):
            yield change.path, f"{kind}, read as {read}"


def _setting_hits(
    kind: str, ways: Sequence[str], index: _Index, submodules: Sequence[str]
) -> Iterator[tuple[str, str]]:
    """(changed path, reason) for what changes how git writes or checks out one of the ``ways``: a
    ``.gitattributes`` above it, ``.gitmodules`` or a submodule checkout git cannot inspect around it."""
    folded = [(fold(way), way) for way in ways]
    for directory, change in index.attributes:
        for way in (way for f, way in folded if _inside(f, directory)):
            yield change.path, f"{kind}: .gitattributes changes how git writes {way}"
            break
    for module in submodules:
        for way in (way for f, way in folded if _inside(f, fold(module))):
            if index.modules is not None:
                yield (
                    index.modules.path,
                    f"{kind}: .gitmodules changed ({way} is inside the submodule {module})",
                )
    for directory, path, why in index.uninspectable:
        for way in (way for f, way in folded if _inside(f, directory)):
            yield path, f"{kind}: the submodule's checkout cannot be inspected ({why}; {way} inside it)"
            break


def _watch_hits(
    globs: Sequence[str], kind: str, index: _Index, facts: ReadFacts
) -> Iterator[tuple[str, str]]:
    """(changed path, reason) for the changes a command's ``watch`` globs see: a changed file they
    match; a changed symlink or submodule below which they match files; a change to what a tracked
    symlink they match leads to; a ``.gitattributes``, ``.gitmodules`` or uninspectable submodule
    change where they match files."""
    for change in index.at.values():
        if matches_any(globs, change.path):
            yield change.path, kind
    for change in index.links:
        if any(may_match_below(glob, change.path) for glob in globs):
            submodule = "submodule" in (change.before, change.after)
            yield (
                change.path,
                (
                    f"{kind}: {_submodule_change(change)} (it watches files inside it)"
                    if submodule
                    else f"{kind}: it watches files below it"
                ),
            )
    for glob in globs:
        for link in facts.watched_links.get(glob, ()):
            reached = facts.reached.get(link, Reached((link,)))
            yield from _read_hits(kind, link, reached.ways, index)
    settings = [
        (directory, change.path, f"{kind}: .gitattributes changes how git writes what it watches")
        for directory, change in index.attributes
    ]
    if index.modules is not None:
        settings += [
            (
                fold(m),
                index.modules.path,
                f"{kind}: .gitmodules changed (it watches files in the submodule {m})",
            )
            for m in facts.submodules
        ]
    settings += [
        (
            directory,
            path,
            f"{kind}: the submodule's checkout cannot be inspected ({why}; it watches files in it)",
        )
        for directory, path, why in index.uninspectable
    ]
    for directory, path, reason in settings:
        if not directory or directory.startswith("..") or any(may_match_below(g, directory) for g in globs):
            yield path, reason


def _suite_hits(suite: Suite, index: _Index, facts: ReadFacts) -> dict[str, str]:
    """{changed path: reason} for one suite (the first reason found for a path wins: what the file is
    to the suite before how it is reached)."""
    hits: dict[str, str] = {}
    reads = suite_reads(suite)
    for read, kind in reads.items():
        reached = facts.reached.get(read, Reached((read,)))
        for path, reason in _read_hits(kind, read, reached.ways, index):
            hits.setdefault(path, reason)
    for globs, kind in suite_watches(suite):
        for path, reason in _watch_hits(globs, kind, index, facts):
            hits.setdefault(path, reason)
    for read, kind in reads.items():
        reached = facts.reached.get(read, Reached((read,)))
        for path, reason in _setting_hits(kind, reached.ways, index, facts.submodules):
            hits.setdefault(path, reason)
        if reached.unknown:
            hits.setdefault(read, f"{kind}: {reached.unknown}")
    if not hits and index.at:
        hits.update(_unwatched_hits(suite, index))
    return hits


def _unwatched_hits(suite: Suite, index: _Index) -> dict[str, str]:
    """A command the suite starts (an agent program, an MCP server) without ``watch``: its code may read
    any file (a module beside its script, a package elsewhere in the repository), so whether a change
    touches it cannot be told, and any change runs the suite (the first changed path names it)."""
    unwatched = [command.purpose for command in suite.commands if not command.watch]
    if not unwatched:
        return {}
    first = min(change.path for change in index.at.values())
    why = "it declares no watch, so which files its code reads cannot be told (declare watch to say)"
    return {first: f"{unwatched[0]}: {why}"}


def affected_suites(
    suites: Sequence[Suite], changes: ChangeSet, facts: ReadFacts = ReadFacts()
) -> dict[str, dict[str, str]]:
    """Suite path -> {changed path: reason} for every suite a change affects (see the module doc).
    Suites not affected are absent."""
    index = _Index(changes)
    affected: dict[str, dict[str, str]] = {}
    for suite in suites:
        hits = _suite_hits(suite, index, facts)
        if hits:
            affected[suite.path] = dict(sorted(hits.items()))
    return affected


def submodules_read(suite: Suite, facts: ReadFacts, submodules: Iterable[str]) -> dict[str, str]:
    """Of ``submodules`` (paths), those the suite reads a file in or watches files in, each with a
    way it is read there."""
    found: dict[str, str] = {}
    ways = [way for read in suite_reads(suite) for way in facts.reached.get(read, Reached((read,))).ways]
    watched = [glob for globs, _ in suite_watches(suite) for glob in globs]
    for link in (link for glob in watched for link in facts.watched_links.get(glob, ())):
        ways += facts.reached.get(link, Reached((link,))).ways
    for module in submodules:
        inside = next((way for way in ways if _inside(fold(way), fold(module))), None)
        if inside is None and any(may_match_below(glob, module) for glob in watched):
            inside = f"the files of {module} it watches"
        if inside is not None:
            found[module] = inside
    return found
