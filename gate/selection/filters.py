"""Which cases a run evaluates: ``--case``, ``--tag`` and ``--rerun-failed`` (pure).

Each option narrows the selection, and they combine as *and*: a case runs when it matches one of the
``--case`` selectors (if any is given), carries one of the ``--tag`` tags (if any is given; a suite's
tags count for every case in it), and failed or errored in the ``--rerun-failed`` results (if given).
A ``--case`` selector is a case id (matching that id in every suite) or ``SUITE/ID``; one that matches
no case is an input error, so a typo never silently runs nothing. Suites left without a case are
dropped from the run.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gate.errors import InputError, Problem
from gate.results.outcomes import RunResults
from gate.selection.sharding import assign_shards
from gate.suite.model import Case, Suite

# Case statuses that --rerun-failed runs again: the agent was wrong, or the case could not be evaluated.
RERUN_STATUSES = ("failed", "error")


@dataclass(frozen=True)
class Selection:
    """What the user asked for; empty fields select everything."""

    cases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    rerun: frozenset[tuple[str, str]] | None = None  # (suite name, case id) pairs, None = no filter

    @property
    def narrows(self) -> bool:
        return bool(self.cases or self.tags) or self.rerun is not None


def failed_cases(results: RunResults) -> frozenset[tuple[str, str]]:
    """The (suite, case) pairs of ``results`` that failed or could not be evaluated."""
    return frozenset(
        (suite.name, case.case_id)
        for suite in results.suites
        for case in suite.cases
        if case.status in RERUN_STATUSES
    )


def select(suites: Sequence[Suite], selection: Selection) -> list[Suite]:
    """``suites`` with only the selected cases; raises ``InputError`` for a ``--case`` that matches
    nothing (with the closest ids as a hint)."""
    if not selection.narrows:
        return list(suites)
    _check_case_selectors(suites, selection.cases)
    chosen = []
    for suite in suites:
        cases = tuple(case for case in suite.cases if _selected(suite, case, selection))
        if cases:
            chosen.append(dataclasses.replace(suite, cases=cases))
    return chosen


def base_cases(
    base: Sequence[Suite],
    head_all: Sequence[Suite],
    head_run: Sequence[Suite],
    selection: Selection,
    shard: tuple[int, int] | None = None,
) -> list[Suite]:
    """The cases the base side of ``--baseline auto`` runs with the head cases this run evaluates
    (``head_run``, selected and sharded from ``head_all``): of each base suite, the cases with the ids
    the head runs here, and the cases the PR removed (ids ``head_all`` no longer has) that the
    selection selects and, with ``shard`` (index, count), that fall to this shard, split among the
    removed cases as the head's cases are. So each case's base side runs exactly once over the shards,
    in the shard that runs its head side. A base suite the head runs keeps its place without a case."""
    running = {(s.path, c.id) for s in head_run for c in s.cases}
    known = {(s.path, c.id) for s in head_all for c in s.cases}
    removed = [
        dataclasses.replace(
            s, cases=tuple(c for c in s.cases if (s.path, c.id) not in known and _selected(s, c, selection))
        )
        for s in base
    ]
    removed_here = {(s.path, c.id) for s in removed for c in s.cases}
    if shard is not None:
        assignment = assign_shards(removed, shard[1])
        removed_here = {key for key in removed_here if assignment[key] == shard[0]}
    wanted = running | removed_here
    head_paths = {s.path for s in head_run}
    kept = []
    for suite in base:
        cases = tuple(c for c in suite.cases if (suite.path, c.id) in wanted)
        if cases or suite.path in head_paths:
            kept.append(dataclasses.replace(suite, cases=cases))
    return kept


def _selected(suite: Suite, case: Case, selection: Selection) -> bool:
    if selection.cases and not any(_matches(selector, suite, case) for selector in selection.cases):
        return False
    if selection.tags and not set(selection.tags) & (set(case.tags) | set(suite.tags)):
        return False
    return selection.rerun is None or (suite.name, case.id) in selection.rerun


def _matches(selector: str, suite: Suite, case: Case) -> bool:
    suite_name, _, case_id = selector.rpartition("/")
    return case_id == case.id and (not suite_name or suite_name == suite.name)


def _check_case_selectors(suites: Sequence[Suite], selectors: Iterable[str]) -> None:
    problems = []
    for selector in selectors:
        if any(_matches(selector, suite, case) for suite in suites for case in suite.cases):
            continue
        known = [case.id for suite in suites for case in suite.cases]
        known += [f"{suite.name}/{case.id}" for suite in suites for case in suite.cases]
        close = difflib.get_close_matches(selector, known, n=3)
        hint = f"did you mean {', '.join(repr(c) for c in close)}?" if close else "give a case id or SUITE/ID"
        problems.append(Problem("", 0, 0, f"--case {selector}: no such case in the selected suites", hint))
    if problems:
        raise InputError(problems)
