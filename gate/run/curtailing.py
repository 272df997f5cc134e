"""``--trials-policy curtailed``: which trials of a run still need to start (DESIGN.md section 8).

One ``Curtailer`` per side of a run keeps what each case's finished trials said and answers, as a
trial is about to start, whether the case still needs it (``gate.verdict.curtailment`` decides).
The head side of ``--baseline auto`` knows the base side's cases but none of their outcomes (the
base side runs after it); the base side knows everything the head side did. A case without a base
side needs its trials only until its verdict is decided.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gate.results.outcomes import RunResults, TrialResult
from gate.suite.model import Case, Suite
from gate.verdict.curtailment import Outcome, Seen, outcomes, side_decided, verdict_decided

CaseKey = tuple[str, str]  # suite name, case id: how the comparison pairs a case with its base


@dataclass(frozen=True)
class OtherSide:
    """The same case on the other side of the comparison: every outcome its trials can still end with
    (one, when they have all run or come from a results file)."""

    outcomes: frozenset[Outcome]
    non_gating: bool = False


class Curtailer:
    """One side's: ``own`` its cases as they run, ``other`` the other side's (none without a base)."""

    def __init__(
        self, is_head: bool, own: Mapping[CaseKey, Case], other: Mapping[CaseKey, OtherSide]
    ) -> None:
        self.is_head = is_head
        self.own = dict(own)
        self.other = dict(other)
        self.seen: dict[CaseKey, Seen] = {}

    def may_start(self, suite: Suite, case: Case) -> bool:
        """Whether the case still needs another trial."""
        key = (suite.name, case.id)
        seen = self.seen.get(key, Seen())
        other = self.other.get(key)
        if other is None:
            return not verdict_decided(case, seen)
        non_gating = bool(case.non_gating) or other.non_gating
        return not side_decided(outcomes(case, seen), other.outcomes, self.is_head, non_gating)

    def finished(self, suite: Suite, case: Case, trial: TrialResult) -> None:
        key = (suite.name, case.id)
        self.seen[key] = self.seen.get(key, Seen()).add(trial)

    def base_side(self, head: RunResults, base_suites: Iterable[Suite], trials: int | None) -> Curtailer:
        """The base side's, once this head side has run: every head case with what its trials can
        still end with (the ones it did not run stay open)."""
        other: dict[CaseKey, OtherSide] = {}
        for suite in head.suites:
            for result in suite.cases:
                case = self.own.get((suite.name, result.case_id))
                if case is not None:
                    seen = _seen(result.trials)
                    other[(suite.name, result.case_id)] = OtherSide(
                        outcomes(case, seen), bool(case.non_gating)
                    )
        return Curtailer(False, _cases(base_suites, trials), other)


def _seen(trials: Iterable[TrialResult]) -> Seen:
    seen = Seen()
    for trial in trials:
        seen = seen.add(trial)
    return seen


def _cases(suites: Iterable[Suite], trials: int | None) -> dict[CaseKey, Case]:
    """Each case to run, as the runner runs it (``--trials`` applied)."""
    return {
        (suite.name, case.id): case if trials is None else dataclasses.replace(case, trials=trials)
        for suite in suites
        for case in suite.cases
        if not case.skip
    }


def head_curtailer(
    suites: Iterable[Suite],
    trials: int | None,
    base_suites: Iterable[Suite] = (),
    baseline: RunResults | None = None,
) -> Curtailer:
    """The head side's. With ``--baseline auto`` the base cases are known and none of their trials
    has run; with a baseline file, each base case's outcome is known whole."""
    other = {
        key: OtherSide(outcomes(case, Seen()), bool(case.non_gating))
        for key, case in _cases(base_suites, trials).items()
    }
    for suite in baseline.suites if baseline is not None else ():
        for result in suite.cases:
            seen = _seen(result.trials)
            known = (result.status, seen.passes, seen.passes + seen.fails)
            other[(suite.name, result.case_id)] = OtherSide(frozenset({known}), result.non_gating is not None)
    return Curtailer(True, _cases(suites, trials), other)
