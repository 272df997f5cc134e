"""Reducing a case's trials to one case result (DESIGN.md section 3, "Trials").

Reducers: ``all`` (pass^k: every trial passes), ``any`` (pass@k), ``at_least`` (at least
``case.at_least`` trials pass), ``majority`` (more than half pass), ``mean`` (the mean score reaches
``case.mean_pass_score`` and at least one trial passed). A trial's score is 1/0 in ``all`` scoring
mode and its weighted score in ``weighted`` mode; a trial that broke a hard condition scores 0.
Trials that errored (the provider or the judge failed) say nothing about the agent:
they are left out of the reducer, and a case whose every trial errored is an error. ``at_least``
counts trials, so a case short of its count only because trials errored is an error, not a failure
(3 of 5 needed, 2 passed, 3 errored). A case whose counted trials disagree is flaky.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from gate.results.outcomes import CaseResult, CaseStatus, Failure, Metrics, TrialResult
from gate.scoring.trial import expected_summary
from gate.suite.model import Case, Reducer, Suite


def _reduced(
    reducer: Reducer, passes: int, counted: int, score_sum: float, at_least: int, mean_pass_score: float
) -> bool:
    """Whether ``passes`` of ``counted`` trials (scores summing to ``score_sum``) make the case pass
    (no trial counted: it does not)."""
    if not counted:
        return False
    if reducer == "all":
        return passes == counted
    if reducer == "any":
        return passes > 0
    if reducer == "at_least":
        return passes >= at_least
    if reducer == "majority":
        return 2 * passes > counted
    if reducer == "mean":
        # A case whose every trial failed never passes, whatever their partial scores average to.
        return passes > 0 and score_sum / counted >= mean_pass_score - 1e-12
    raise ValueError(f"unknown reducer {reducer!r}")


def case_status(
    case: Case, passes: int, counted: int, errored: int, score_sum: float
) -> Literal["passed", "failed", "error"]:
    """The case's status from its trials' counts: an error when no trial was counted, or when under
    ``at_least`` the errored trials, not the agent, left it short of its count."""
    if not counted:
        return "error"
    if _reduced(case.reducer, passes, counted, score_sum, case.at_least, case.mean_pass_score):
        return "passed"
    if case.reducer == "at_least" and passes + errored >= case.at_least:
        return "error"
    return "failed"


def mean_metrics(trials: Sequence[TrialResult]) -> Metrics:
    """The mean of the trials' metrics (tokens rounded to whole numbers)."""
    if not trials:
        return Metrics()
    if len(trials) == 1:
        return trials[0].metrics
    n = len(trials)

    def mean(name: str) -> float:
        return float(sum(getattr(t.metrics, name) for t in trials)) / n

    return Metrics(
        precision=mean("precision"),
        recall=mean("recall"),
        f1=mean("f1"),
        argument_accuracy=mean("argument_accuracy"),
        output_score=mean("output_score"),
        latency_ms=mean("latency_ms"),
        input_tokens=round(mean("input_tokens")),
        output_tokens=round(mean("output_tokens")),
        cost_usd=mean("cost_usd"),
    )


def case_result(suite: Suite, case: Case, trials: Sequence[TrialResult]) -> CaseResult:
    """The case's result over its trials."""
    if len(trials) == 1:
        trials = tuple(trials)
        only = trials[0]
        counted = [] if only.status == "error" else [only]
    else:
        trials = tuple(sorted(trials, key=_trial_index))
        counted = [t for t in trials if t.status != "error"]
    passed = [t.status == "passed" for t in counted]
    scores = [t.score for t in counted]
    status: CaseStatus = case_status(case, sum(passed), len(counted), len(trials) - len(counted), sum(scores))
    reason = None
    if not counted:
        score, flaky, metrics = 0.0, False, mean_metrics(trials)
    else:
        score = sum(scores) / len(scores)
        flaky = any(passed) and not all(passed)
        metrics = mean_metrics(counted)
        if status == "failed" and all(passed):
            reason = _short_although_passed(case, score, len(counted))
    return CaseResult(
        suite=suite.name,
        case_id=case.id,
        file=case.source.path or suite.path,
        line=case.source.line,
        status=status,
        score=score if score == 1.0 or score == 0.0 else round(score, 6),
        flaky=flaky,
        trials=trials,
        metrics=metrics,
        tags=case.tags,
        expected=expected_summary(case),
        skip_reason=None,
        non_gating=case.non_gating,
        reason=reason,
    )


def _short_although_passed(case: Case, score: float, passed: int) -> Failure:
    """Why a case fails whose every counted trial passed: its mean score under ``mean_pass_score``
    (reducer ``mean``), else fewer passing trials than ``at_least`` (the case ran fewer trials)."""
    if case.reducer != "mean":
        return Failure(
            "below_pass_score",
            f"{passed} of {passed} trials passed; reducer {case.reducer} needs {case.at_least} to pass",
            expected=case.at_least,
            actual=passed,
        )
    return Failure(
        "below_pass_score",
        f"mean trial score {score:.3f} is under the case's mean_pass_score {case.mean_pass_score:g} "
        "(every trial passed on its own)",
        expected=case.mean_pass_score,
        actual=round(score, 6),
    )


def _trial_index(trial: TrialResult) -> int:
    return trial.index


def skipped_result(suite: Suite, case: Case) -> CaseResult:
    """The result of a case that was not run (``skip``), with its reason."""
    return CaseResult(
        suite=suite.name,
        case_id=case.id,
        file=case.source.path or suite.path,
        line=case.source.line,
        status="skipped",
        score=0.0,
        flaky=False,
        trials=(),
        metrics=Metrics(),
        tags=case.tags,
        expected=expected_summary(case),
        skip_reason=case.skip or "skipped",
        non_gating=case.non_gating,
    )
