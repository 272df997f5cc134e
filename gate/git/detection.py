"""Change detection for ``run --changed-since REF``: the suites a change affects, each with the changed
paths that affect it and why ("tools/weather.json: tool definitions", "vendor/tools: tool definitions:
submodule moved (vendor/tools/forecast.json inside it)"), for the console and the reports.

Also which submodules each suite reads in (the base side of ``--baseline auto`` needs their files at
the merge base). The facts are read here (git and the working tree: :mod:`gate.git.changes`,
:mod:`gate.git.read_paths`) and mapped by the pure :func:`gate.git.affected.affected_suites`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from gate.git.affected import affected_suites, submodules_read
from gate.git.changes import changed_files
from gate.git.read_paths import read_facts
from gate.suite.model import Suite


def affected_since(ref: str, root: Path, suites: Sequence[Suite]) -> dict[str, dict[str, str]]:
    """Suite path -> {changed path: reason} for the ``suites`` a change since the merge base of
    ``ref`` affects (the working tree included); the others are absent."""
    changes = changed_files(ref, root)
    return affected_suites(suites, changes, read_facts(root, suites))


def submodules_read_by(
    root: Path, suites: Sequence[Suite], submodules: Iterable[str]
) -> dict[str, dict[str, str]]:
    """Suite path -> {submodule: a way the suite reads inside it} for the ``suites`` that read or
    watch files inside one of ``submodules`` (paths relative to ``root``), however they reach them."""
    facts = read_facts(root, suites)
    modules = list(submodules)
    found = {suite.path: submodules_read(suite, facts, modules) for suite in suites}
    return {path: inside for path, inside in found.items() if inside}
