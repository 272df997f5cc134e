"""Curtailed trials give exactly the full run's verdicts and comparison calls (DESIGN section 8).

The property: for random trial outcomes (passes, failures and errors, with the scores each scoring
mode allows), every reducer, trial count, window of trials in flight and base side, a run that stops
starting trials as soon as ``gate.verdict.curtailment`` says a side is decided ends with the case
verdict, and the comparison call, of the run that ran every trial."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.results.outcomes import CaseResult, TrialResult
from gate.scoring.reducers import case_result
from gate.suite.model import Case, Scoring
from gate.verdict.baseline import change_status
from gate.verdict.curtailment import Seen, outcomes, side_decided, verdict_decided
from tests.builders import case as make_case
from tests.builders import suite as make_suite
from tests.results_factory import trial


@st.composite
def cases(draw: st.DrawFn) -> Case:
    trials = draw(st.integers(1, 7))
    reducer = draw(st.sampled_from(["all", "any", "at_least", "majority", "mean"]))
    weighted = draw(st.booleans())
    pass_score = draw(st.sampled_from([0.5, 0.7, 0.8, 1.0]))
    return make_case(
        trials=trials,
        reducer=reducer,
        at_least=draw(st.integers(1, trials)),
        mean_pass_score=draw(st.sampled_from([0.0, 0.3, 0.5, 0.75, 0.8, 0.9, 1.0])),
        scoring=Scoring(mode="weighted", pass_score=pass_score) if weighted else Scoring(),
    )


@st.composite
def trial_outcomes(draw: st.DrawFn, case: Case) -> list[TrialResult]:
    """``case.trials`` trials as scoring could have produced them."""
    made = []
    for index in range(case.trials):
        status = draw(st.sampled_from(["passed", "failed", "error"]))
        if status == "error":
            score = 0.0
        elif case.scoring.mode != "weighted":
            score = 1.0 if status == "passed" else 0.0
        elif status == "passed":
            score = round(draw(st.floats(case.scoring.pass_score, 1.0)), 6)
        else:
            score = round(draw(st.floats(0.0, case.scoring.pass_score, exclude_max=True)), 6)
            score = min(score, max(0.0, case.scoring.pass_score - 1e-6))
        made.append(trial(status, index=index, score=score))
    return made


@dataclass
class _Side:
    """One side of a case being run: trials start in order, at most ``window`` at once, and finish
    in the order they started."""

    case: Case
    trials: Sequence[TrialResult]
    window: int
    started: int = 0
    finished: int = 0
    seen: Seen = Seen()

    def may_start(self, other: _Side | None, is_head: bool) -> bool:
        if self.started >= self.case.trials:
            return False
        if other is None:
            return not verdict_decided(self.case, self.seen)
        own, theirs = outcomes(self.case, self.seen), outcomes(other.case, other.seen)
        return not side_decided(own, theirs, is_head, non_gating=False)

    def step(self, other: _Side | None, is_head: bool) -> bool:
        """Start what may start, then finish the oldest trial in flight; False when nothing moved."""
        while self.started - self.finished < self.window and self.may_start(other, is_head):
            self.started += 1
        if self.finished < self.started:
            self.seen = self.seen.add(self.trials[self.finished])
            self.finished += 1
            return True
        return False

    def result(self) -> CaseResult:
        return case_result(make_suite(self.case), self.case, self.trials[: self.finished])


def _counts(result: CaseResult) -> tuple[int, int]:
    counted = [t for t in result.trials if t.status != "error"]
    return sum(t.status == "passed" for t in counted), len(counted)


def _call(head: CaseResult, base: CaseResult) -> str:
    return change_status(head.status, base.status, _counts(head), _counts(base))


@settings(max_examples=1500, deadline=None)
@given(st.data())
def test_a_curtailed_case_ends_with_the_full_runs_verdict(data: st.DataObject) -> None:
    case = data.draw(cases())
    trials = data.draw(trial_outcomes(case))
    side = _Side(case, trials, data.draw(st.integers(1, 3)))
    while side.step(None, True):
        pass
    full = case_result(make_suite(case), case, trials)
    assert side.result().status == full.status
    assert side.finished >= 1


@settings(max_examples=1500, deadline=None)
@given(st.data())
def test_a_curtailed_comparison_makes_the_full_runs_call(data: st.DataObject) -> None:
    head_case = data.draw(cases())
    base_case = data.draw(cases()) if data.draw(st.booleans()) else head_case
    head_trials = data.draw(trial_outcomes(head_case))
    base_trials = data.draw(trial_outcomes(base_case))
    head = _Side(head_case, head_trials, data.draw(st.integers(1, 3)))
    base = _Side(base_case, base_trials, data.draw(st.integers(1, 3)))
    order = data.draw(st.sampled_from(["interleaved", "head first", "base first"]))
    if order == "interleaved":
        moved = True
        while moved:
            moved = head.step(base, True) | base.step(head, False)
    else:
        first, second = (head, base) if order == "head first" else (base, head)
        while first.step(second, first is head):
            pass
        while second.step(first, second is head):
            pass
    full_head = case_result(make_suite(head_case), head_case, head_trials)
    full_base = case_result(make_suite(base_case), base_case, base_trials)
    assert head.result().status == full_head.status
    assert base.result().status == full_base.status
    assert _call(head.result(), base.result()) == _call(full_head, full_base)


def test_pass_hat_k_stops_at_the_first_failed_trial() -> None:
    case = make_case(trials=5, reducer="all")
    seen = Seen().add(trial("failed", index=0))
    assert verdict_decided(case, seen)
    assert not verdict_decided(case, Seen().add(trial("passed", index=0)))


def test_pass_at_k_stops_at_the_first_pass_and_majority_once_a_side_has_won() -> None:
    assert verdict_decided(make_case(trials=5, reducer="any"), Seen().add(trial("passed")))
    majority = make_case(trials=5, reducer="majority")
    two = Seen().add(trial("failed")).add(trial("failed"))
    assert not verdict_decided(majority, two)
    assert verdict_decided(majority, two.add(trial("failed")))


def test_errors_to_come_keep_at_least_open() -> None:
    """3 of 5 needed, 1 passed and 1 errored: three failures would fail the case, three errors make it
    an error (the errored trials, not the agent, left it short), so it is not decided."""
    case = make_case(trials=5, reducer="at_least", at_least=3)
    seen = Seen().add(trial("passed")).add(trial("error")).add(trial("failed"))
    assert not verdict_decided(case, seen)


def test_a_failed_head_waits_for_the_counts_that_decide_a_regression() -> None:
    """Head failed its first of five (pass^k: decided), but against a base that passed, whether the
    drop is significant depends on the head's other trials: the head side goes on."""
    case = make_case(trials=5, reducer="all")
    head = outcomes(case, Seen().add(trial("failed")))
    base_unrun = outcomes(case, Seen())
    assert not side_decided(head, base_unrun, True, non_gating=False)
    # Both sides failing their first trial: still failing, whatever the rest says.
    base = outcomes(case, Seen().add(trial("failed")))
    assert side_decided(head, base, True, non_gating=False)
    assert side_decided(base, head, False, non_gating=False)
