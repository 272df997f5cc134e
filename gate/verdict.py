"""The gate's decision: a policy applied to the results (and optionally a baseline comparison).

Rules (DESIGN.md sections 3 and 4):

* Per suite, the pass rate is ``passed / counted``. Skipped and non-gating (known flaky) cases are
  never counted; non-gating ones are counted apart (``non_gating_count``) and never fail the gate. Errors (the
  provider failed, the case could not be evaluated) are kept apart from failures (the agent was
  wrong): with ``errors_count`` (the default) they count as not passed, otherwise they are left out
  of the denominator. A suite with nothing counted (all skipped, say) passes vacuously.
* ``fail_on="threshold"`` (default): every suite must reach its own threshold (the policy's
  ``threshold`` overrides all of them); the overall verdict passes only when every suite does. The
  overall ``pass_rate`` and ``interval`` pool all suites and are informative; ``Verdict.threshold``
  is the override, else the strictest (highest) suite threshold, for display.
* ``fail_on="regression"``: the gate fails only on cases the baseline comparison calls regressed.
  Without a comparison it falls back to the threshold rule (and says so in ``reasons``).
* ``fail_on="regression_or_threshold"`` (the default with a baseline): the gate fails on significant
  regressions *and* on any suite under its threshold. Regressions alone would pass a PR that keeps a
  suite broken; the threshold alone would pass a PR that breaks a case of a suite well above it.
  Without a comparison it is the threshold rule.
* ``fail_on="any_failure"``: any failed case (or counted error) fails the gate.
* Exit code 3 (incomplete) wins over pass/fail when ``results.complete`` is False, or when the
  evaluation was impossible: there were errors and not a single case could be evaluated (every
  non-skipped case is an error, e.g. the provider was unreachable). Then ``passed`` is False.
* Exit code 1 when the gate failed, 0 when it passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from gate.errors import EXIT_GATE_FAILED, EXIT_INCOMPLETE, EXIT_PASSED
from gate.results import RunResults, SuiteResult
from gate.stats import wilson_interval
from gate.suite_model import DEFAULT_THRESHOLD

if TYPE_CHECKING:
    from gate.baseline import Comparison

FailOn = Literal["threshold", "regression", "regression_or_threshold", "any_failure"]
FAIL_ON_VALUES: tuple[str, ...] = ("threshold", "regression", "regression_or_threshold", "any_failure")


@dataclass(frozen=True)
class GatePolicy:
    threshold: float | None = None  # overrides every suite's threshold when set
    errors_count: bool = True  # errors count as not passed (else they leave the denominator)
    fail_on: FailOn = "threshold"

    @classmethod
    def from_settings(cls, settings: dict[str, Any], **overrides: Any) -> GatePolicy:
        """The policy recorded in ``RunResults.settings`` (keys ``threshold``, ``errors``
        ("count" | "ignore") and ``fail_on``), with non-None ``overrides`` applied on top."""
        threshold = settings.get("threshold")
        errors = settings.get("errors", settings.get("errors_count", "count"))
        errors_count = errors if isinstance(errors, bool) else errors != "ignore"
        fail_on = str(settings.get("fail_on", "threshold")).replace("-", "_")
        if fail_on not in FAIL_ON_VALUES:
            fail_on = "threshold"
        values: dict[str, Any] = {
            "threshold": float(threshold) if isinstance(threshold, (int, float)) else None,
            "errors_count": errors_count,
            "fail_on": fail_on,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


@dataclass(frozen=True)
class SuiteVerdict:
    name: str
    path: str
    passed: bool
    pass_rate: float
    interval: tuple[float, float]
    threshold: float
    counted: int  # the denominator of the pass rate
    passed_count: int
    failed_count: int
    error_count: int
    skipped_count: int
    flaky_count: int
    non_gating_count: int = 0


@dataclass(frozen=True)
class Verdict:
    passed: bool
    exit_code: int
    pass_rate: float
    interval: tuple[float, float]
    threshold: float
    passed_count: int
    failed_count: int
    error_count: int
    skipped_count: int
    flaky_count: int
    suites: tuple[SuiteVerdict, ...]
    reasons: tuple[str, ...]
    summary_line: str
    counted: int = 0
    complete: bool = True
    fail_on: str = "threshold"
    errors_count: bool = True


def pct(rate: float) -> str:
    """A rate as a percentage with one decimal: ``0.9 -> "90.0%"``."""
    return f"{rate * 100:.1f}%"


def suite_verdict(suite: SuiteResult, policy: GatePolicy) -> SuiteVerdict:
    counts = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    flaky = non_gating = 0
    for case in suite.cases:
        if case.non_gating is not None:
            non_gating += 1
            continue
        counts[case.status] = counts.get(case.status, 0) + 1
        flaky += 1 if case.flaky else 0
    counted = counts["passed"] + counts["failed"] + (counts["error"] if policy.errors_count else 0)
    threshold = policy.threshold if policy.threshold is not None else suite.threshold
    rate = counts["passed"] / counted if counted else 1.0
    return SuiteVerdict(
        name=suite.name,
        path=suite.path,
        passed=rate >= threshold - 1e-12 if counted else True,
        pass_rate=rate,
        interval=wilson_interval(counts["passed"], counted),
        threshold=threshold,
        counted=counted,
        passed_count=counts["passed"],
        failed_count=counts["failed"],
        error_count=counts["error"],
        skipped_count=counts["skipped"],
        flaky_count=flaky,
        non_gating_count=non_gating,
    )


def decide(
    results: RunResults,
    policy: GatePolicy | None = None,
    comparison: Comparison | None = None,
    *,
    baseline: RunResults | Comparison | None = None,
) -> Verdict:
    """Apply ``policy`` (default ``GatePolicy()``) to ``results``. ``comparison`` is the baseline
    comparison used by ``fail_on="regression"``; ``baseline`` may be given instead, as the base
    run's results (compared here) or as a ready comparison."""
    policy = policy or GatePolicy()
    if comparison is None and baseline is not None:
        if isinstance(baseline, RunResults):
            from gate.baseline import compare

            comparison = compare(results, baseline)
        else:
            comparison = baseline
    suites = tuple(suite_verdict(s, policy) for s in results.suites)
    passed_n = sum(s.passed_count for s in suites)
    failed_n = sum(s.failed_count for s in suites)
    errors_n = sum(s.error_count for s in suites)
    skipped_n = sum(s.skipped_count for s in suites)
    flaky_n = sum(s.flaky_count for s in suites)
    non_gating_n = sum(s.non_gating_count for s in suites)
    counted = sum(s.counted for s in suites)
    rate = passed_n / counted if counted else 1.0
    interval = wilson_interval(passed_n, counted)
    if policy.threshold is not None:
        threshold = policy.threshold
    else:
        threshold = max((s.threshold for s in suites), default=DEFAULT_THRESHOLD)

    reasons: list[str] = []
    failed = False
    fail_on = str(policy.fail_on).replace("-", "_")  # tolerate the CLI spelling "any-failure"
    if fail_on == "regression" and comparison is None:
        reasons.append("fail_on=regression without a baseline: the threshold rule applies")
        fail_on = "threshold"
    if fail_on == "regression_or_threshold":
        fail_on = "threshold" if comparison is None else fail_on
    if fail_on in ("regression", "regression_or_threshold"):
        assert comparison is not None
        regressed = [c for c in comparison.changes if c.status == "regressed"]
        if regressed:
            failed = True
            names = ", ".join(f"{c.suite}/{c.case_id}" for c in regressed[:10])
            more = f" and {len(regressed) - 10} more" if len(regressed) > 10 else ""
            reasons.append(f"{len(regressed)} case(s) regressed against the baseline: {names}{more}")
    if fail_on in ("threshold", "regression_or_threshold"):
        for s in suites:
            if not s.passed:
                failed = True
                reasons.append(
                    f"suite {s.name}: pass rate {pct(s.pass_rate)} ({s.passed_count}/{s.counted}) "
                    f"is below the threshold {pct(s.threshold)}"
                )
    if fail_on == "any_failure":
        if failed_n:
            failed = True
            reasons.append(f"{failed_n} case(s) failed")
        if errors_n and policy.errors_count:
            failed = True
            reasons.append(f"{errors_n} case(s) could not be evaluated (errors)")

    incomplete = False
    if not results.complete:
        incomplete = True
        reasons.append(
            "the evaluation is incomplete"
            + (f": {results.incomplete_reason}" if results.incomplete_reason else "")
        )
    evaluated = passed_n + failed_n
    if errors_n and evaluated == 0:
        incomplete = True
        reasons.append(f"no case could be evaluated: all {errors_n} evaluated case(s) ended in errors")

    if incomplete:
        exit_code, passed = EXIT_INCOMPLETE, False
    elif failed:
        exit_code, passed = EXIT_GATE_FAILED, False
    else:
        exit_code, passed = EXIT_PASSED, True

    word = "PASSED" if passed else ("INCOMPLETE" if incomplete else "FAILED")
    if counted:
        core = (
            f"{passed_n}/{counted} passed ({pct(rate)}, 95% CI {pct(interval[0])}-{pct(interval[1])}), "
            f"threshold {pct(threshold)}"
        )
    else:
        core = "no cases evaluated"
    summary = (
        f"tool-eval-gate {word}: {core}; {failed_n} failed, {errors_n} errors"
        f"{'' if policy.errors_count else ' (not counted)'}, {skipped_n} skipped, {flaky_n} flaky"
        + (f", {non_gating_n} non-gating (not counted)" if non_gating_n else "")
    )
    return Verdict(
        passed=passed,
        exit_code=exit_code,
        pass_rate=rate,
        interval=interval,
        threshold=threshold,
        passed_count=passed_n,
        failed_count=failed_n,
        error_count=errors_n,
        skipped_count=skipped_n,
        flaky_count=flaky_n,
        suites=suites,
        reasons=tuple(reasons),
        summary_line=summary,
        counted=counted,
        complete=not incomplete,
        fail_on=policy.fail_on,
        errors_count=policy.errors_count,
    )
