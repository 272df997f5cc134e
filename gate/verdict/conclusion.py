"""The run's conclusion, drawn once: the comparison with the base side, the verdict and the
failure-pattern analysis. Pure.

``conclude`` is the one place where a run (or a re-rendered or merged one) is judged. Every output
renders the ``Conclusion`` it returns (the JSON results, JUnit XML, Markdown, the console, the PR
comment and review, the action's outputs, annotations and job summary); none of them compares,
decides or analyses again, and none reads back a file the gate itself just wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from gate.analysis.analyse import Analysis, Recommendation, analyse
from gate.results.outcomes import RunResults
from gate.verdict.baseline import Comparison, compare, line_effects
from gate.verdict.policy import GatePolicy, Verdict, decide
from gate.verdict.view import ReportView, report_view


@dataclass(frozen=True)
class Conclusion:
    """What a run concluded: its results, the base side it was compared with (``baseline``, None
    without one) and that comparison, the policy applied, the verdict and the analysis."""

    results: RunResults
    policy: GatePolicy
    verdict: Verdict
    analysis: Analysis
    baseline: RunResults | None = None
    comparison: Comparison | None = None

    @property
    def advice(self) -> tuple[Recommendation, ...]:
        """What the review comments say: the changed lines that regressions and fixes are traced to
        (what this change broke or fixed), then the analysis's recommendations."""
        effects = line_effects(self.comparison) if self.comparison is not None else ()
        return (*effects, *self.analysis.recommendations)

    @cached_property
    def view(self) -> ReportView:
        """What every output shows of this conclusion (``gate.verdict.view``), drawn once."""
        return report_view(self.results, self.verdict, self.comparison)


def conclude(
    results: RunResults, baseline: RunResults | None = None, policy: GatePolicy | None = None
) -> Conclusion:
    """Compare ``results`` with ``baseline`` (the base side, when there is one), apply ``policy``
    (default ``GatePolicy()``) and analyse the failures."""
    policy = policy or GatePolicy()
    comparison = (
        compare(results, baseline, errors_count=policy.errors_count) if baseline is not None else None
    )
    return Conclusion(
        results=results,
        policy=policy,
        verdict=decide(results, policy, comparison),
        analysis=analyse(results),
        baseline=baseline,
        comparison=comparison,
    )
