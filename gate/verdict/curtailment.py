"""Curtailed trials (DESIGN.md section 8, "Cost per verdict"): when a case may stop starting trials.

A side of a case (its head trials, or its base trials under ``--baseline auto``) stops once every
possible outcome of its trials not yet finished gives the same case verdict and, with a base side,
the same comparison call whatever the other side's unfinished trials say. An unfinished trial may
pass (with any score a passing trial can have), fail (likewise) or error (left out of the reducer),
so the verdicts and calls of a curtailed run are exactly those of the full run: the trials it ran
are themselves one of those outcomes (the others erroring). Trials already started finish and are
reported; what the run never started is never guessed.

Outcomes are counted, not listed: a side's possible outcomes are the (status, passed, counted)
triples its unfinished trials can lead to, at most quadratic in their number. Pure.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, get_args

from gate.results.outcomes import TrialResult
from gate.scoring.reducers import case_status
from gate.suite.model import Case
from gate.verdict.baseline import ChangeStatus, change_status

TrialsPolicy = Literal["curtailed", "full"]  # --trials-policy; curtailed is the default
TRIALS_POLICIES: tuple[str, ...] = get_args(TrialsPolicy)

Outcome = tuple[str, int, int]  # case status, passed trials, counted trials

# A passing weighted trial scores at least its pass score, a failing one less (stored to 6 places);
# the margin keeps every bound on the safe side of a rounding.
_MARGIN = 1e-6
# Beyond this many (head, base) pairs the comparison is not curtailed (only the work of deciding is
# bounded; running a trial more never changes a verdict).
MAX_PAIRS = 20_000


@dataclass(frozen=True)
class Seen:
    """One side's finished trials of one case."""

    passes: int = 0
    fails: int = 0
    errors: int = 0
    score_sum: float = 0.0

    @property
    def finished(self) -> int:
        return self.passes + self.fails + self.errors

    def add(self, trial: TrialResult) -> Seen:
        if trial.status == "passed":
            return Seen(self.passes + 1, self.fails, self.errors, self.score_sum + trial.score)
        if trial.status == "failed":
            return Seen(self.passes, self.fails + 1, self.errors, self.score_sum + trial.score)
        return Seen(self.passes, self.fails, self.errors + 1, self.score_sum)


def _score_bounds(case: Case) -> tuple[float, float, float]:
    """(lowest score of a passing trial, highest score of a failing one, margin for the mean)."""
    if case.scoring.mode == "weighted":
        pass_score = case.scoring.pass_score
        return max(0.0, pass_score - _MARGIN), min(1.0, pass_score + _MARGIN), 1e-9
    return 1.0, 0.0, 1e-9


def _completions(remaining: int) -> Iterator[tuple[int, int, int]]:
    for passes in range(remaining + 1):
        for fails in range(remaining - passes + 1):
            yield passes, fails, remaining - passes - fails


def outcomes(case: Case, seen: Seen) -> frozenset[Outcome]:
    """Every (status, passed, counted) the case's trials can end with, from what ``seen`` holds."""
    remaining = max(0, case.trials - seen.finished)
    low, high, margin = _score_bounds(case)
    found: set[Outcome] = set()
    for passes, fails, errors in _completions(remaining):
        p, counted, e = seen.passes + passes, seen.passes + seen.fails + passes + fails, seen.errors + errors
        if case.reducer == "mean" and counted:
            # The status is a threshold on the mean: the lowest and the highest mean give every status.
            least = seen.score_sum + passes * low - margin * counted
            most = seen.score_sum + passes * 1.0 + fails * high + margin * counted
            for score_sum in (least, most):
                found.add((case_status(case, p, counted, e, score_sum), p, counted))
        else:
            found.add((case_status(case, p, counted, e, 0.0), p, counted))
    return frozenset(found)


def verdict_decided(case: Case, seen: Seen) -> bool:
    """Whether the case's verdict is the same whatever its unfinished trials say."""
    return len({status for status, _, _ in outcomes(case, seen)}) == 1


@lru_cache(maxsize=65_536)
def _call(head: Outcome, base: Outcome, non_gating: bool) -> ChangeStatus:
    return change_status(head[0], base[0], head[1:], base[1:], non_gating)


def side_decided(
    own: frozenset[Outcome], other: frozenset[Outcome], own_is_head: bool, non_gating: bool
) -> bool:
    """Whether one side of a compared case may stop: its verdict is decided, and for every outcome of
    the other side its unfinished trials cannot change the comparison's call."""
    if len({status for status, _, _ in own}) != 1:
        return False
    if len(own) * len(other) > MAX_PAIRS:
        return False
    for theirs in other:
        calls = {
            _call(mine, theirs, non_gating) if own_is_head else _call(theirs, mine, non_gating)
            for mine in own
        }
        if len(calls) > 1:
            return False
    return True
