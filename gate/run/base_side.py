"""``run --baseline auto``: the base side of the comparison, evaluated in the same run as the head.

The head's affected suites are loaded again from the merge base (``gate.git.base_tree``: the base's
files in a temporary directory, never the working tree), by the same relative paths, and run with
the same options: the same trials, concurrency and cache. Requests the PR did not change are
answered by the cache, so on a warm cache the base side sends no request. ``--max-requests`` and
``--max-cost`` cover both sides: the base side gets what the head side left; under
``--max-requests`` each head case reserves for its base side too, and the base side does not spend
requests on the cases the budget did not run on the head side. A suite that is new in
the PR (its file is absent at the merge base) has no base side; a base suite that does not load is
reported and left without a base side too. The base's agent programs run from the base tree, with
the dependency directories installed in the working tree (``node_modules``, ``.venv``) linked into it.
The base tree holds the submodules at the merge base's commits; a suite that reads (or watches) files
inside a submodule whose commit there is not in this clone is refused (exit 2, naming the submodule
and how to fetch it) before any request: its base side cannot be read, and the PR's change to it
would go unjudged.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.errors import InputError, Problem
from gate.git.base_tree import BaseTree, changed_lines, materialize, merge_base
from gate.results.outcomes import RunResults
from gate.results.settings import BaseSideRecord, RunSettings
from gate.run.progress import Progress
from gate.run.runner import RunOptions, run_suites
from gate.suite.model import Suite


@dataclass(frozen=True)
class BaseSide:
    """The base side's suites, loaded from a temporary copy of the merge base (kept by ``directory``
    until the run is over)."""

    ref: str
    commit: str
    suites: tuple[Suite, ...]
    without_base: tuple[str, ...]  # head suites (names) with no base side: new in the PR, or failed
    problems: tuple[str, ...]  # base suites that do not load, rendered
    changed_lines: Mapping[str, tuple[int, ...]]
    directory: tempfile.TemporaryDirectory[str]
    # Of ``without_base``, the suites the merge base holds whose base side could not be set up (the
    # suite does not load there, its MCP server does not start): not new, their regressions unknown.
    failed: tuple[str, ...] = ()


def load_base_side(
    ref: str, root: Path, head: Sequence[Suite], triggered: Mapping[str, Mapping[str, str]]
) -> BaseSide:
    from gate.files.suite_loader import load_suites

    commit = merge_base(ref, root)
    tree = materialize(commit, root)
    directory = tree.directory
    if tree.missing_submodules:
        _refuse_missing_submodules(tree, root, head)
    base_root = Path(directory.name)
    if any(suite.commands for suite in head):  # the base's programs find the job's installs too
        from gate.git.installed import link_installed

        link_installed(root, base_root)
    suites: list[Suite] = []
    without: list[str] = []
    failed: list[str] = []
    problems: list[str] = []
    for suite in head:
        base_file = base_root / suite.path
        if not base_file.is_file():
            without.append(suite.name)
            continue
        loaded = load_suites([base_file], root=base_root)
        if loaded.problems:
            without.append(suite.name)
            failed.append(suite.name)
            problems += [f"base {commit[:12]}: {p.render()}" for p in loaded.problems]
            continue
        suites += [s for s in loaded.suites if s.path == suite.path]
    files = sorted({path for reasons in triggered.values() for path in reasons})
    return BaseSide(
        ref=ref,
        commit=commit,
        suites=tuple(suites),
        without_base=tuple(without),
        problems=tuple(problems),
        changed_lines=changed_lines(commit, root, files),
        directory=directory,
        failed=tuple(failed),
    )


def _refuse_missing_submodules(tree: BaseTree, root: Path, head: Sequence[Suite]) -> None:
    """Refuse (``InputError``, the base tree cleaned up) when a suite reads inside a submodule whose
    merge-base commit is not in this clone."""
    from gate.git.detection import submodules_read_by

    missing = tree.missing_submodules
    reading = submodules_read_by(root, head, missing)
    problems = [
        Problem(
            suite.path,
            0,
            0,
            f"--baseline auto: the base side of {suite.name} needs the submodule {module} at "
            f"{missing[module][:12]} (its commit at the merge base), which is not in this clone "
            f"({way} inside it)",
            hint="fetch the submodules' history: actions/checkout with `submodules: recursive` and "
            f"`fetch-depth: 0`, or `git -C {module} fetch origin {missing[module]}`",
        )
        for suite in head
        for module, way in reading.get(suite.path, {}).items()
    ]
    if problems:
        tree.directory.cleanup()
        raise InputError(problems)


def _left(budget: float | None, spent: float) -> float | None:
    return None if budget is None else budget - spent


async def run_base_side(
    side: BaseSide,
    head: RunResults,
    options: RunOptions,
    make_provider: Callable[[str], Any],
    progress: Progress | None = None,
) -> RunResults:
    """Run the base suites with ``options`` minus what the head side spent; its own cache counters;
    with curtailed trials, each base case stops once its verdict and its comparison with the head's
    are decided."""
    requests_left = _left(options.max_requests, head.settings.requests or 0)
    max_requests = None if requests_left is None else max(0, int(requests_left))
    cost_left = _left(options.max_cost_usd, head.settings.estimated_cost_usd or 0.0)
    cache = options.cache
    base_options = dataclasses.replace(
        options,
        cache=cache.counted_apart() if cache is not None else None,
        max_requests=max_requests,
        budget_text=""
        if max_requests is None
        else f"--max-requests {options.max_requests}, {max_requests} left for the base side",
        max_cost_usd=None if cost_left is None else max(0.0, cost_left),
        settings=RunSettings(),
        reserve_base_for=frozenset(),
        refused=budget_refused(head),
        curtailer=None
        if options.curtailer is None
        else options.curtailer.base_side(head, side.suites, options.trials),
        root=side.directory.name,  # the base's agent programs run from the base tree
    )
    return await run_suites(side.suites, base_options, make_provider, progress)


def budget_refused(head: RunResults) -> frozenset[tuple[str, str]]:
    """The cases (suite path, case id) the request budget did not run on the head side: the base side
    does not spend requests on them (there is nothing to compare them with)."""
    return frozenset(
        (suite.path, case.case_id)
        for suite in head.suites
        for case in suite.cases
        if case.trials and all(t.record.stop_reason == "budget" for t in case.trials)
    )


def record(side: BaseSide, head: RunResults, base: RunResults) -> RunResults:
    """``head`` with what the base side did in its settings (``baseline``), incomplete when the base
    side is and not verified when it is not (the comparison would be wrong)."""
    settings = dataclasses.replace(
        head.settings,
        baseline=BaseSideRecord(
            ref=side.ref,
            merge_base=side.commit,
            changed_lines=side.changed_lines,
            suites_without_base=side.without_base,
            suites_base_failed=side.failed,
            requests=base.settings.requests or 0,
            estimated_cost_usd=base.settings.estimated_cost_usd or 0.0,
            cache=base.settings.cache,
        ),
    )
    if base.unverified:
        why = f"base side: {base.unverified}"
        head = dataclasses.replace(head, unverified=f"{head.unverified}; {why}" if head.unverified else why)
    if base.complete:
        return dataclasses.replace(head, settings=settings)
    reason = f"base side: {base.incomplete_reason}"
    joined = f"{head.incomplete_reason}; {reason}" if head.incomplete_reason else reason
    return dataclasses.replace(head, settings=settings, complete=False, incomplete_reason=joined)
