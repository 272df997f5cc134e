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
* ``fail_on="regression"``: the gate fails only on cases the baseline comparison calls regressed,
  and, with ``errors_count``, on gating cases that passed on the base and are errors on the head (a
  pull request's program can make a case it broke an error: ``_unevaluated_passes``). Without a
  comparison it falls back to the threshold rule (and says so in ``reasons``).
* ``fail_on="regression_or_threshold"`` (the default with a baseline): the gate fails on significant
  regressions *and* on any suite under its threshold. Regressions alone would pass a PR that keeps a
  suite broken; the threshold alone would pass a PR that breaks a case of a suite well above it.
  Without a comparison it is the threshold rule.
* ``fail_on="any_failure"``: any failed case (or counted error) fails the gate.
* Exit code 3 (incomplete) wins over pass/fail when ``results.complete`` is False, or when the
  evaluation was impossible: there were errors and not a single case could be evaluated (every
  non-skipped case is an error, e.g. the provider was unreachable). Then ``passed`` is False.
* **The error budget** (``max_error_rate``, default ``DEFAULT_MAX_ERROR_RATE``), whatever ``errors_count``
  says: a suite more of whose gating cases could not be evaluated than that share (errors over passed,
  failed and errors; exactly the share is within it), or none of whose cases could, has no verdict of
  its own (``undecided``); so has the base side of a suite when the rule judges regressions (its
  errored cases cannot be compared). Such a run exits 3, unless the gate fails whatever those cases
  would have given (a suite under its threshold even with every error counted as a pass, a
  regression, a failed case under ``any_failure``, or a suite within its budget that fails): then it
  fails (exit 1) and says that the errors were beyond the budget. A pass needs the evidence; a failure
  needs only one that stands. Errors within the budget follow ``errors_count``.
* **Not verified** (``results.unverified``: a replay could not answer some requests, DESIGN section 6):
  never a pass, whatever the error budget says. The run exits 3 (``verified`` False, mood
  ``unverified``) unless the gate fails on what was answered: a regression, a failed case under
  ``any_failure``, a suite under its threshold even with every error counted as a pass (exit 1, the
  reason said beside the failure). An error that the replay caused cannot make a suite fail either.
* Exit code 1 when the gate failed, 0 when it passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from gate.errors import EXIT_GATE_FAILED, EXIT_INCOMPLETE, EXIT_PASSED
from gate.results.outcomes import RunResults, SuiteResult
from gate.results.settings import FAIL_ON_VALUES, FailOn, RunSettings
from gate.suite.model import DEFAULT_THRESHOLD
from gate.util.stats import wilson_interval

if TYPE_CHECKING:
    from gate.verdict.baseline import Comparison

__all__ = [
    "DEFAULT_MAX_ERROR_RATE",
    "FAIL_ON_VALUES",
    "FailOn",
    "GatePolicy",
    "SuiteVerdict",
    "Verdict",
    "decide",
    "pct",
]

# The error budget: the share of a suite's cases that may end as errors (could not be evaluated)
# before the suite has no verdict. The complement of the default threshold: under the defaults, errors
# alone can never fail a suite (exit 1 always has a case the agent got wrong).
DEFAULT_MAX_ERROR_RATE = 0.1


@dataclass(frozen=True)
class GatePolicy:
    threshold: float | None = None  # overrides every suite's threshold when set
    errors_count: bool = True  # errors count as not passed (else they leave the denominator)
    fail_on: FailOn = "threshold"
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE  # the error budget, per suite

    @classmethod
    def from_settings(
        cls,
        settings: RunSettings,
        *,
        threshold: float | None = None,
        errors_count: bool | None = None,
        fail_on: FailOn | None = None,
        max_error_rate: float | None = None,
    ) -> GatePolicy:
        """The policy recorded in the results' settings (the default where nothing was recorded, the
        error budget too), with the arguments that are not None on top (the ``report`` command's flags)."""
        budget = cls.max_error_rate if settings.max_error_rate is None else settings.max_error_rate
        return cls(
            threshold=settings.threshold if threshold is None else threshold,
            errors_count=settings.errors != "ignore" if errors_count is None else errors_count,
            fail_on=fail_on or settings.fail_on or cls.fail_on,
            max_error_rate=budget if max_error_rate is None else max_error_rate,
        )


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
    # More of its cases could not be evaluated than the error budget allows (or none could): the suite
    # has no verdict of its own unless it fails whatever they would have given.
    over_error_budget: bool = False
    fails_anyway: bool = False  # under its threshold even with every error counted as a pass
    budget_note: str = ""  # what the error budget says of the suite ("" within it)
    # Beyond the error budget and its part of the verdict not decided whatever its errors would have
    # given (under the rule that applies): no verdict of its own.
    undecided: bool = False

    @property
    def budget_sentence(self) -> str:
        """What the error budget says of the suite and what follows ("" within the budget)."""
        if not self.over_error_budget:
            return ""
        follows = "it has no verdict" if self.undecided else "but it fails whatever they would have given"
        return f"{self.budget_note}; {follows}"


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
    counted: int = 0
    complete: bool = True
    fail_on: FailOn = GatePolicy.fail_on
    errors_count: bool = GatePolicy.errors_count
    verified: bool = True  # False: a replay could not answer some requests (``RunResults.unverified``)


Mood = Literal["passed", "failed", "incomplete", "unverified"]


def verdict_mood(verdict: Verdict) -> Mood:
    """What the verdict is, by its exit code: not verified (a replay could not answer some requests),
    incomplete (stopped early, or errors beyond the error budget), passed or failed."""
    if verdict.exit_code == EXIT_INCOMPLETE:
        return "incomplete" if verdict.verified else "unverified"
    return "passed" if verdict.passed else "failed"


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
    judged = counts["passed"] + counts["failed"] + counts["error"]
    note = budget_note(counts["error"], judged, policy.max_error_rate)
    # Every error a pass, would the suite still be under its threshold? Then it fails whatever they give.
    fails_anyway = judged > 0 and (counts["passed"] + counts["error"]) / judged < threshold - 1e-12
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
        over_error_budget=bool(note),
        fails_anyway=fails_anyway,
        budget_note=note,
    )


def budget_note(errors: int, judged: int, max_error_rate: float) -> str:
    """What the error budget says of ``errors`` of ``judged`` cases (passed, failed or errored): ""
    within it; else that none could be evaluated, or that more than ``max_error_rate`` of them could
    not (exactly that share is within the budget)."""
    if not errors:
        return ""
    if errors == judged:
        return f"none of its {judged} case(s) could be evaluated"
    if errors / judged <= max_error_rate + 1e-12:
        return ""
    return (
        f"{errors} of {judged} cases could not be evaluated ({pct(errors / judged)}), more than the "
        f"error budget of {pct(max_error_rate)} (--max-error-rate)"
    )


@dataclass(frozen=True)
class _Totals:
    """The case counts of every suite together."""

    passed: int
    failed: int
    errors: int
    skipped: int
    flaky: int
    counted: int


def _totals(suites: Sequence[SuiteVerdict]) -> _Totals:
    return _Totals(
        passed=sum(s.passed_count for s in suites),
        failed=sum(s.failed_count for s in suites),
        errors=sum(s.error_count for s in suites),
        skipped=sum(s.skipped_count for s in suites),
        flaky=sum(s.flaky_count for s in suites),
        counted=sum(s.counted for s in suites),
    )


def _rule(policy: GatePolicy, comparison: Comparison | None) -> tuple[FailOn, list[str]]:
    """The ``fail_on`` rule that applies, and a note when the policy's could not."""
    fail_on = policy.fail_on
    if comparison is None and fail_on == "regression":
        return "threshold", ["fail_on=regression without a baseline: the threshold rule applies"]
    if comparison is None and fail_on == "regression_or_threshold":
        return "threshold", []
    return fail_on, []


def _regressions(comparison: Comparison) -> list[str]:
    regressed = [c for c in comparison.changes if c.status == "regressed"]
    if not regressed:
        return []
    names = ", ".join(f"{c.suite}/{c.case_id}" for c in regressed[:10])
    more = f" and {len(regressed) - 10} more" if len(regressed) > 10 else ""
    return [f"{len(regressed)} case(s) regressed against the baseline: {names}{more}"]


def _unevaluated_passes(
    results: RunResults, comparison: Comparison, suites: Sequence[SuiteVerdict]
) -> list[str]:
    """Gating cases of ``suites`` that passed on the base and are errors on the head: with errors
    counting against the gate, each counts as a regression would. The comparison cannot call them
    regressed (nothing was evaluated), but a pass cannot stand on them either: an agent program is the
    pull request's code, and one that ends before its first model request on the case its change
    broke makes that case an error, not a failure."""
    names = {s.name for s in suites}
    erred = {
        (case.suite, case.case_id)
        for suite in results.suites
        if suite.name in names
        for case in suite.cases
        if case.status == "error" and case.non_gating is None
    }
    lost = [c for c in comparison.changes if (c.suite, c.case_id) in erred and c.base_status == "passed"]
    if not lost:
        return []
    listed = ", ".join(f"{c.suite}/{c.case_id}" for c in lost[:10])
    more = f" and {len(lost) - 10} more" if len(lost) > 10 else ""
    return [
        f"{len(lost)} case(s) that passed on the base could not be evaluated on the head (errors count "
        f"against the gate): {listed}{more}"
    ]


def _under_threshold(suites: Sequence[SuiteVerdict]) -> list[str]:
    return [
        f"suite {s.name}: pass rate {pct(s.pass_rate)} ({s.passed_count}/{s.counted}) "
        f"is below the threshold {pct(s.threshold)}"
        for s in suites
        if not s.passed
    ]


def _any_failure(totals: _Totals, policy: GatePolicy) -> list[str]:
    reasons = [f"{totals.failed} case(s) failed"] if totals.failed else []
    if totals.errors and policy.errors_count:
        reasons.append(f"{totals.errors} case(s) could not be evaluated (errors)")
    return reasons


_REGRESSION_RULES = ("regression", "regression_or_threshold")
_THRESHOLD_RULES = ("threshold", "regression_or_threshold")


def _failing(
    rule: FailOn,
    comparison: Comparison | None,
    suites: Sequence[SuiteVerdict],
    policy: GatePolicy,
    results: RunResults,
) -> list[str]:
    """Why the gate fails under ``rule`` (empty: it does not)."""
    reasons: list[str] = []
    if rule in _REGRESSION_RULES and comparison is not None:
        reasons += _regressions(comparison)
        if policy.errors_count and not results.unverified:  # a replay's misses: not verified instead
            reasons += _unevaluated_passes(results, comparison, suites)
    if rule in _THRESHOLD_RULES:
        reasons += _under_threshold(suites)
    if rule == "any_failure":
        reasons += _any_failure(_totals(suites), policy)
    return reasons


def _stands_unanswered(suite: SuiteVerdict, rule: FailOn) -> bool:
    """In a run a replay could not wholly answer, whether ``suite``'s part of the verdict is decided
    whatever its errors (the cases it could not answer among them) would have given."""
    if not suite.error_count:
        return True
    if rule in _THRESHOLD_RULES:
        return suite.fails_anyway
    return rule == "any_failure" and suite.failed_count > 0


def _stands(suite: SuiteVerdict, rule: FailOn) -> bool:
    """Whether ``suite``'s part of the verdict is decided whatever its errors would have given: within
    the error budget; or beyond it but failing anyway (under its threshold with every error a pass;
    under ``any_failure``, a case failed)."""
    if not suite.over_error_budget:
        return True
    if rule in _THRESHOLD_RULES:
        return suite.fails_anyway
    return rule == "any_failure" and suite.failed_count > 0


def _beyond_budget(
    rule: FailOn, comparison: Comparison | None, suites: Sequence[SuiteVerdict], policy: GatePolicy
) -> tuple[list[str], bool]:
    """What the error budget says of the suites beyond it (and, when the rule judges regressions, of
    their base sides), and whether any of them is left without a verdict."""
    reasons = [f"suite {s.name}: {s.budget_sentence}" for s in suites if s.over_error_budget]
    undecided = any(s.undecided for s in suites)
    if comparison is None or rule not in _REGRESSION_RULES:
        return reasons, undecided
    for delta in comparison.suites:
        base = delta.base
        note = budget_note(base.errors, base.judged, policy.max_error_rate) if base is not None else ""
        if note:
            undecided = True
            reasons.append(f"the base side of suite {delta.suite}: {note}; regressions there cannot be told")
    return reasons, undecided


def _failed_bases(names: Sequence[str], suites: Sequence[SuiteVerdict]) -> list[str]:
    """Why the suites the merge base holds but whose base side could not be set up (it did not load
    there, its MCP server did not start) leave the run undecided when regressions are judged: a pull
    request can make the base side fail (remove a dependency the base's code needs, which the job then
    does not install), and a suite without a base side has no regressions."""
    evaluated = {s.name for s in suites}
    return [
        f"the base side of suite {name} could not be set up at the merge base (see the warnings: it did "
        "not load, or its MCP server did not start); regressions there cannot be told"
        for name in names
        if name in evaluated
    ]


def _incomplete(results: RunResults, totals: _Totals) -> list[str]:
    """Why the evaluation is incomplete (empty: it is complete)."""
    reasons = []
    if not results.complete:
        why = f": {results.incomplete_reason}" if results.incomplete_reason else ""
        reasons.append(f"the evaluation is incomplete{why}")
    if totals.errors and totals.passed + totals.failed == 0:
        reasons.append(f"no case could be evaluated: all {totals.errors} evaluated case(s) ended in errors")
    return reasons


def decide(
    results: RunResults, policy: GatePolicy | None = None, comparison: Comparison | None = None
) -> Verdict:
    """Apply ``policy`` (default ``GatePolicy()``) to ``results``. ``comparison`` is the baseline
    comparison used by ``fail_on="regression"`` (``gate.verdict.conclusion.conclude`` draws both)."""
    policy = policy or GatePolicy()
    suites = tuple(suite_verdict(s, policy) for s in results.suites)
    totals = _totals(suites)
    interval = wilson_interval(totals.passed, totals.counted)
    if policy.threshold is not None:
        threshold = policy.threshold
    else:
        threshold = max((s.threshold for s in suites), default=DEFAULT_THRESHOLD)
    rule, notes = _rule(policy, comparison)
    suites = tuple(replace(s, undecided=not _stands(s, rule)) if s.over_error_budget else s for s in suites)
    incomplete = _incomplete(results, totals)
    # Nothing evaluated at all is said once (incomplete), not suite by suite.
    evaluated = totals.passed + totals.failed > 0
    budget, undecided = _beyond_budget(rule, comparison, suites, policy) if evaluated else ([], False)
    if rule in _REGRESSION_RULES and results.settings.baseline is not None:
        failed_bases = _failed_bases(results.settings.baseline.suites_base_failed, suites)
        budget, undecided = budget + failed_bases, undecided or bool(failed_bases)
    # A failure stands only on suites whose verdict does not depend on what could not be evaluated.
    unverified = [results.unverified] if results.unverified else []
    decided = [s for s in suites if not s.undecided and (not unverified or _stands_unanswered(s, rule))]
    failing = _failing(rule, comparison, decided, policy, results)
    if unverified and (incomplete or not failing):
        exit_code, reasons = EXIT_INCOMPLETE, notes + failing + budget + unverified + incomplete
    elif incomplete:
        exit_code, reasons = EXIT_INCOMPLETE, notes + failing + budget + incomplete
    elif failing:
        exit_code, reasons = EXIT_GATE_FAILED, notes + failing + budget + unverified
    elif undecided:
        exit_code, reasons = EXIT_INCOMPLETE, notes + budget
    else:
        exit_code, reasons = EXIT_PASSED, notes + budget
    return Verdict(
        passed=exit_code == EXIT_PASSED,
        exit_code=exit_code,
        pass_rate=totals.passed / totals.counted if totals.counted else 1.0,
        interval=interval,
        threshold=threshold,
        passed_count=totals.passed,
        failed_count=totals.failed,
        error_count=totals.errors,
        skipped_count=totals.skipped,
        flaky_count=totals.flaky,
        suites=suites,
        reasons=tuple(reasons),
        counted=totals.counted,
        complete=not incomplete,
        fail_on=policy.fail_on,
        errors_count=policy.errors_count,
        verified=not unverified,
    )
