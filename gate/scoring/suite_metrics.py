"""A suite's metrics (DESIGN.md section 3, "Metrics per case and per suite"): tool-name precision,
recall and F1, argument accuracy, output-check score and latency averaged over its evaluated cases,
tokens and cost summed over every trial it ran, the mean score of each kind of check, and its mean
case score overall. A case's own are its ``metrics`` (the mean over its trials), its ``score`` and
``check_scores`` below. Scoring one trial, reducing trials to a case and aggregating cases to a suite
are three separate small functions, as inspect_ai's scorers keep them. Pure."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gate.results.outcomes import CaseResult, TrialResult


@dataclass(frozen=True)
class SuiteMetrics:
    """The means are over the suite's evaluated (passed or failed) cases, ``cases`` of them; tokens and
    cost are over every trial the suite ran (errored ones too: they were paid for)."""

    cases: int
    precision: float
    recall: float
    f1: float
    argument_accuracy: float
    output_score: float
    latency_ms: float
    input_tokens: int
    output_tokens: int
    cost_usd: float
    check_scores: dict[str, float]  # kind of check -> its mean score ("ranking": 0.75)
    score: float  # the mean case score, overall


def check_scores(trials: Iterable[TrialResult]) -> dict[str, float]:
    """The mean score of each kind of check over the trials that were evaluated (an errored trial's
    checks say nothing about the agent), kinds in the order first met."""
    totals: dict[str, list[float]] = {}
    for trial in trials:
        if trial.status == "error":
            continue
        for check in trial.checks:
            totals.setdefault(check.kind, []).append(check.score)
    return {kind: round(sum(scores) / len(scores), 6) for kind, scores in totals.items()}


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 6) if values else 0.0


def suite_metrics(cases: Sequence[CaseResult]) -> SuiteMetrics:
    """The metrics of a suite's cases."""
    evaluated = [c for c in cases if c.status in ("passed", "failed")]
    metrics = [c.metrics for c in evaluated]
    trials = [t for c in cases for t in c.trials]
    return SuiteMetrics(
        cases=len(evaluated),
        precision=_mean([m.precision for m in metrics]),
        recall=_mean([m.recall for m in metrics]),
        f1=_mean([m.f1 for m in metrics]),
        argument_accuracy=_mean([m.argument_accuracy for m in metrics]),
        output_score=_mean([m.output_score for m in metrics]),
        latency_ms=_mean([m.latency_ms for m in metrics]),
        input_tokens=sum(t.metrics.input_tokens for t in trials),
        output_tokens=sum(t.metrics.output_tokens for t in trials),
        cost_usd=round(sum(t.metrics.cost_usd for t in trials), 6),
        check_scores=check_scores(t for c in evaluated for t in c.trials),
        score=_mean([c.score for c in evaluated]),
    )
