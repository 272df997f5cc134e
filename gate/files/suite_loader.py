"""Load and check suite files: build :class:`gate.suite.model.Suite` objects or report problems.

The public entry of the suite phases, each in its own module:

1. discovery (:mod:`gate.files.discovery`): the suite files under the given paths, the repository root;
2. YAML (:mod:`gate.files.yaml_source`): syntax, encoding, size, aliases, duplicate keys;
3. the JSON Schema (:mod:`gate.files.suite_schema`, worded by :mod:`gate.assembly.checks.schema_messages`);
4. the builder (:mod:`gate.assembly.suite_builder`): semantic checks the schema cannot express and the model,
   reading referenced prompt, tool and mock files through :mod:`gate.files.file_references`.

Each stage reports every problem it finds, located at the offending node. A file with schema
problems is still built, without the parts its schema errors damaged
(:mod:`gate.assembly.checks.schema_damage`), so
that one run shows the schema's problems, the semantic ones and those of the referenced files; its
suite is not used. Referenced prompt, tool and mock files are read once per :func:`load_suites` call
and are reported under their own path. Nothing is cached across calls.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gate.assembly.checks.schema_messages import type_word
from gate.assembly.suite_builder import build_suite
from gate.errors import Problem
from gate.files.case_files import with_case_files
from gate.files.discovery import default_root, find_suite_files, inside, is_suite_file
from gate.files.file_references import (
    SYMLINK_OUT,
    Repository,
    SuiteFiles,
    check_unreferenced,
    declared_refs,
    stat_trouble,
)
from gate.files.server_tools import ToolLister
from gate.files.suite_schema import schema_findings
from gate.files.text_files import load_file
from gate.files.yaml_source import YamlError
from gate.suite.model import Suite

__all__ = ["LoadResult", "default_root", "find_suite_files", "is_suite_file", "load_suites"]


@dataclass(frozen=True)
class LoadResult:
    """What :func:`load_suites` found: the valid suites, every problem, every file it read, and the
    notes it has besides problems (e.g. tools that come from a server it did not start)."""

    suites: tuple[Suite, ...]
    problems: tuple[Problem, ...]
    checked_files: tuple[str, ...]
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class _Loaded:
    """One suite file: its suite (None when it has problems), its problems, the files it uses, and
    where its name is written (for the duplicate-name check)."""

    suite: Suite | None
    problems: list[Problem]
    dependencies: list[str] = field(default_factory=list)
    name_position: tuple[int, int] = (1, 1)


def load_suites(
    paths: Sequence[str | Path],
    root: Path | None = None,
    *,
    skip_unreferenced: bool = False,
    lister: ToolLister | None = None,
) -> LoadResult:
    """Load and check the suites named by ``paths`` (suite files, directories searched for suites, or
    prompt / tool / mock files: then the suites under ``root`` that use them). A file that no suite
    references is checked on its own, or, with ``skip_unreferenced`` (the pre-commit hook, which is
    handed every staged file), passed over silently. ``lister`` starts the MCP servers suites take
    tools from (without it their tools are unknown, see :mod:`gate.files.server_tools`). See the
    module doc."""
    root = Path(os.path.abspath(root if root is not None else default_root(paths)))
    repo = Repository(root, root.resolve(), lister=lister)
    problems: list[Problem] = []
    suite_files, others = _sort_paths(repo, paths, problems)
    loaded = {file: _load_suite_file(repo, file) for file in suite_files}
    if others:
        # A prompt / tool / mock file: check the suites that read it, or the file alone if none do.
        everything = {f: loaded.get(f) or _load_suite_file(repo, f) for f in find_suite_files(root)}
        for path, rel in others:
            users = [f for f, one in everything.items() if rel in one.dependencies]
            for f in users:
                loaded.setdefault(f, everything[f])
            if not users and not skip_unreferenced:
                problems.extend(check_unreferenced(repo, path, rel))

    suites: list[Suite] = []
    for file in sorted(loaded):
        problems.extend(loaded[file].problems)
        suite = loaded[file].suite
        if suite is not None:
            suites.append(suite)
    positions = {one.suite.path: one.name_position for one in loaded.values() if one.suite is not None}
    problems.extend(_duplicate_names(suites, positions))
    unique = sorted(dict.fromkeys(problems), key=lambda p: (p.path, p.line, p.column, p.message))
    return LoadResult(tuple(suites), tuple(unique), tuple(sorted(repo.checked)), tuple(repo.notes))


def _sort_paths(
    repo: Repository, paths: Sequence[str | Path], problems: list[Problem]
) -> tuple[dict[Path, None], list[tuple[Path, str]]]:
    """The suite files named by ``paths`` (directories searched) and the other files named, with their
    root-relative paths; paths outside the repository and missing paths are problems."""
    suite_files: dict[Path, None] = {}
    others: list[tuple[Path, str]] = []
    for raw in paths:
        path = Path(os.path.abspath(raw))
        rel = repo.rel(path)
        if rel is None:
            problems.append(
                Problem(
                    str(raw),
                    0,
                    0,
                    f"{raw} is outside the repository root {repo.root}",
                    "run from inside the repository or pass --root",
                )
            )
        elif path.is_dir():
            suite_files.update(dict.fromkeys(find_suite_files(path, problems)))
        elif not path.exists():
            trouble = stat_trouble(path)
            problems.append(
                Problem(rel, 1 if trouble else 0, 1 if trouble else 0, trouble or "no such file or directory")
            )
        elif is_suite_file(path):
            suite_files[path] = None
        else:
            others.append((path, rel))
    return suite_files, others


def _duplicate_names(suites: list[Suite], positions: dict[str, tuple[int, int]]) -> list[Problem]:
    """Suite names must be unique: results, baselines and reports are keyed by them."""
    first: dict[str, Suite] = {}
    problems = []
    for suite in suites:
        other = first.setdefault(suite.name, suite)
        if other is not suite:
            line, column = positions.get(suite.path, (1, 1))
            problems.append(
                Problem(
                    suite.path,
                    line,
                    column,
                    f"name: duplicate suite name {suite.name!r} (also "
                    f"{other.path}:{positions.get(other.path, (1, 1))[0]})",
                    "give every suite its own name (baselines and reports are keyed by it)",
                )
            )
    return problems


def _load_suite_file(repo: Repository, file: Path) -> _Loaded:
    rel = repo.rel(file)
    if rel is None:
        return _Loaded(None, [Problem(str(file), 0, 0, "suite file is outside the repository")])
    trouble = stat_trouble(file)
    if trouble == "a symlink loop":
        return _Loaded(
            None, [Problem(rel, 1, 1, "the suite file is a symlink loop", "fix or remove the symlink")]
        )
    if not inside(file.resolve(), repo.real_root):  # a symlink must not make us read (and quote) any file
        return _Loaded(
            None, [Problem(rel, 0, 0, SYMLINK_OUT, "suites may only read files inside the repository")]
        )
    repo.checked[rel] = None
    if trouble:
        return _Loaded(None, [Problem(rel, 1, 1, f"the suite file {trouble}", "fix or remove the file")])
    read: list[Problem] = []
    try:
        doc = load_file(file, rel)
    except YamlError as exc:
        if exc.document is None:
            return _Loaded(None, exc.problems)
        doc, read = exc.document, exc.problems  # refused, and read on for its other problems
    if not isinstance(doc.data, dict):
        problem = doc.problem(
            (),
            f"a suite must be a mapping, got {type_word(doc.data)}",
            "start with 'version: 1' and 'name: ...'",
        )
        return _Loaded(None, [*read, problem])
    # The cases of its data files in place (read and checked line by line), then the schema's problems
    # and the semantic checks' problems, in one run: the builder skips what the schema errors damaged
    # (gate.assembly.checks.schema_damage), and its suite is used only when nothing was found.
    files = SuiteFiles(repo, doc, file.parent)
    whole, problems = with_case_files(doc, files.case_file)
    problems = read + problems
    files.doc = whole
    found, damage = schema_findings(whole, whole.data)
    problems += found
    suite, semantic = build_suite(whole, files, damage)
    dependencies = list(dict.fromkeys([*files.dependencies, *declared_refs(repo, file, doc.data)]))
    if problems:
        return _Loaded(None, problems + semantic, dependencies)
    return _Loaded(None if semantic else suite, semantic, dependencies, doc.position(("name",)))
