"""What every output shows of a run's conclusion (DESIGN section 7, "Decide once, then write"): the
verdict in words and the figures beside it, each suite's line. Pure.

``conclude`` judges the run once; this module decides, once, how that judgement is told: the
verdict's title, its one-line summary, the line of case counts, the pass rate with its interval and
threshold, what its reasons are called, and each suite's mood and rate. Every renderer (Markdown,
HTML, JUnit, the console, the JSON results' ``verdict``, the action's annotations and outputs)
formats these words and figures; none words the verdict itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gate.results.outcomes import RunResults, SuiteResult
from gate.scoring.suite_metrics import SuiteMetrics, suite_metrics
from gate.verdict.policy import Mood, SuiteVerdict, Verdict, pct, verdict_mood

NO_CASES = "No cases evaluated."
NO_SUITE_VERDICT = "no verdict: errors beyond the budget"
OWN_THRESHOLDS = "each suite against its own threshold"
_TITLES: dict[Mood, str] = {
    "passed": "tool-eval-gate passed",
    "failed": "tool-eval-gate failed",
    "incomplete": "tool-eval-gate: evaluation incomplete",
    "unverified": "tool-eval-gate: not verified",
}
_SUMMARY_WORDS: dict[Mood, str] = {
    "passed": "PASSED",
    "failed": "FAILED",
    "incomplete": "INCOMPLETE",
    "unverified": "NOT VERIFIED",
}
_REASONS_LABEL: dict[Mood, str] = {
    "passed": "Notes",
    "failed": "Why it failed",
    "incomplete": "Why it is incomplete",
    "unverified": "Why it is not verified",
}


@dataclass(frozen=True)
class PassRate:
    """The pass rate as the reports show it: ``rate`` (``80.0%``), ``cases`` (``16/20 cases, 95% CI
    58.4%–91.9%``), the ``threshold`` and whether the suites are held to thresholds of their own (the
    one shown is then the strictest)."""

    rate: str
    cases: str
    threshold: str
    own_thresholds: bool


@dataclass(frozen=True)
class VerdictWords:
    """The verdict in words: its ``mood`` (passed, failed, incomplete), ``title`` (``tool-eval-gate
    failed``), the one-line ``summary``, the line of case ``counts``, the ``pass_rate`` (None when no
    case was evaluated: ``NO_CASES``), what its ``reasons`` are called (``reasons_label``) and, for a
    run that stopped early, the sentence that says so (``incomplete``, "" otherwise)."""

    mood: Mood
    title: str
    summary: str
    counts: str
    pass_rate: PassRate | None
    reasons_label: str
    reasons: tuple[str, ...]
    incomplete: str


@dataclass(frozen=True)
class SuiteLine:
    """A suite as the reports list it: its results, its verdict, its ``mood`` (``incomplete`` when it
    has no verdict of its own, errors beyond the budget: ``NO_SUITE_VERDICT``), its pass rate against its
    threshold (``80.0% / 90.0%``, ``–`` when nothing was counted) and its metrics."""

    result: SuiteResult
    verdict: SuiteVerdict
    mood: Mood
    rate: str
    metrics: SuiteMetrics

    @property
    def undecided(self) -> bool:
        return self.verdict.undecided


def summary_line(verdict: Verdict) -> str:
    """``tool-eval-gate FAILED: 16/20 passed (80.0%, 95% CI 58.4%-91.9%), threshold 90.0%; 3 failed,
    1 errors, 0 skipped, 2 flaky``: the verdict on one line (the console's last line, the JUnit file's
    first comment, the JSON results' ``summary``)."""
    if verdict.counted:
        low, high = verdict.interval
        core = (
            f"{verdict.passed_count}/{verdict.counted} passed ({pct(verdict.pass_rate)}, "
            f"95% CI {pct(low)}-{pct(high)}), threshold {pct(verdict.threshold)}"
        )
    else:
        core = "no cases evaluated"
    non_gating = sum(s.non_gating_count for s in verdict.suites)
    return (
        f"tool-eval-gate {_SUMMARY_WORDS[verdict_mood(verdict)]}: {core}; {verdict.failed_count} failed, "
        f"{verdict.error_count} errors{'' if verdict.errors_count else ' (not counted)'}, "
        f"{verdict.skipped_count} skipped, {verdict.flaky_count} flaky"
        + (f", {non_gating} non-gating (not counted)" if non_gating else "")
    )


def _counts(verdict: Verdict) -> str:
    """``3 passed · 1 failed · 0 errors · 0 skipped · 1 flaky``, with the errors said not counted
    under ``--errors ignore`` and the known-flaky (non-gating) cases that were left out."""
    non_gating = sum(s.non_gating_count for s in verdict.suites)
    return (
        f"{verdict.passed_count} passed · {verdict.failed_count} failed · {verdict.error_count} errors"
        f"{'' if verdict.errors_count else ' (not counted)'} · {verdict.skipped_count} skipped · "
        f"{verdict.flaky_count} flaky" + (f" · {non_gating} non-gating (not counted)" if non_gating else "")
    )


def _pass_rate(verdict: Verdict) -> PassRate | None:
    if not verdict.counted:
        return None
    low, high = verdict.interval
    strictest = min((s.threshold for s in verdict.suites), default=verdict.threshold)
    return PassRate(
        rate=pct(verdict.pass_rate),
        cases=f"{verdict.passed_count}/{verdict.counted} cases, 95% CI {pct(low)}–{pct(high)}",
        threshold=pct(verdict.threshold),
        own_thresholds=verdict.threshold != strictest,
    )


def verdict_words(verdict: Verdict, results: RunResults) -> VerdictWords:
    """The words every output tells ``verdict`` in (``results``: whether the run stopped early)."""
    mood = verdict_mood(verdict)
    incomplete = ""
    if not results.complete:
        incomplete = (
            f"The evaluation is incomplete: {results.incomplete_reason or 'the run stopped early'}. "
            'Cases that did not run are errors marked "not run".'
        )
    return VerdictWords(
        mood=mood,
        title=_TITLES[mood],
        summary=summary_line(verdict),
        counts=_counts(verdict),
        pass_rate=_pass_rate(verdict),
        reasons_label=_REASONS_LABEL[mood],
        reasons=verdict.reasons,
        incomplete=incomplete,
    )


def _suite_line(result: SuiteResult, verdict: SuiteVerdict) -> SuiteLine:
    mood: Mood = "incomplete" if verdict.undecided else "passed" if verdict.passed else "failed"
    rate = f"{pct(verdict.pass_rate)} / {pct(verdict.threshold)}" if verdict.counted else "–"
    if verdict.undecided:
        rate += f" ({NO_SUITE_VERDICT})"
    return SuiteLine(result, verdict, mood, rate, suite_metrics(result.cases))


def suite_lines(results: RunResults, verdict: Verdict) -> tuple[SuiteLine, ...]:
    """Each suite of ``results`` with its verdict (``decide`` gives one per suite, in their order)."""
    return tuple(_suite_line(r, v) for r, v in zip(results.suites, verdict.suites, strict=True))


@dataclass(frozen=True)
class ReportView:
    """What every output shows of a conclusion: the verdict in words and the suites' lines."""

    verdict: VerdictWords
    suites: tuple[SuiteLine, ...]


def report_view(results: RunResults, verdict: Verdict) -> ReportView:
    return ReportView(verdict_words(verdict, results), suite_lines(results, verdict))


__all__: Sequence[str] = (
    "NO_CASES",
    "NO_SUITE_VERDICT",
    "OWN_THRESHOLDS",
    "PassRate",
    "ReportView",
    "SuiteLine",
    "VerdictWords",
    "report_view",
    "summary_line",
    "suite_lines",
    "verdict_words",
)
