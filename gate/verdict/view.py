"""What every output shows of a run's conclusion (DESIGN section 7, "Decide once, then write"): the
verdict in words and the figures beside it, each suite's line, the order of the cases. Pure.

``conclude`` judges the run once; this module decides, once, how that judgement is told: the
verdict's title, its one-line summary, the line of case counts, the pass rate with its interval and
threshold, what its reasons are called, each suite's mood and rate, and the order the failed cases
are listed in (worst first; on a pull request the regressions first). Every renderer (Markdown,
HTML, JUnit, the console, the JSON results' ``verdict``, the action's annotations and outputs)
formats these words, figures and lists; none words the verdict or sorts the cases itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.results.outcomes import CaseResult, RunResults, SuiteResult
from gate.scoring.pass_hat_k import suite_pass_hat_k
from gate.scoring.suite_metrics import SuiteMetrics, suite_metrics
from gate.verdict.baseline import FAILING_GROUPS, Comparison, FailingGroup, failing_groups
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
    threshold (``80.0% / 90.0%``, ``–`` when nothing was counted), its metrics and its pass^k (k -> the
    mean and the cases it is over; empty when no case ran two trials or more)."""

    result: SuiteResult
    verdict: SuiteVerdict
    mood: Mood
    rate: str
    metrics: SuiteMetrics
    pass_hat_k: Mapping[int, tuple[float, int]]

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
    return SuiteLine(result, verdict, mood, rate, suite_metrics(result.cases), suite_pass_hat_k(result.cases))


def suite_lines(results: RunResults, verdict: Verdict) -> tuple[SuiteLine, ...]:
    """Each suite of ``results`` with its verdict (``decide`` gives one per suite, in their order)."""
    return tuple(_suite_line(r, v) for r, v in zip(results.suites, verdict.suites, strict=True))


CaseKey = tuple[str, str]  # (suite, case id)
# What a failing case is called by where it stands against the base side.
GROUP_WORDS: dict[FailingGroup, str] = {
    "regressed": "regressed",
    "new": "new",
    "old": "failed on the base too",
}

# Where a case that did not fail stands in the HTML report's list of every case (after the failing
# ones): what the change fixed, flaky passes, known-flaky passes, cases the change added or removed,
# then the rest.
_OTHER_KINDS = ("fixed", "flaky", "non-gating", "new", "removed", "passed", "skipped")


def _worst_first(
    cases: Sequence[tuple[int, CaseResult]], groups: Mapping[CaseKey, FailingGroup]
) -> tuple[CaseResult, ...]:
    """Failed and errored cases in the one order every output lists them in: with a base side, the
    regressions, then the cases failing now only, then those failing on the base too (``groups``);
    within each, failed before could-not-be-evaluated, the lowest score first, then the most failures,
    then as the run lists them (``cases`` holds each case's place in the run)."""
    rank = {group: i for i, group in enumerate(FAILING_GROUPS)}

    def key(item: tuple[int, CaseResult]) -> tuple[int, bool, float, int, int]:
        place, case = item
        group = rank[groups.get((case.suite, case.case_id), "new")]
        return (group, case.status == "error", case.score, -len(case.failures), place)

    return tuple(case for _, case in sorted(cases, key=key))


def _others(cases: Sequence[tuple[int, CaseResult]], comparison: Comparison | None) -> tuple[CaseKey, ...]:
    """The cases that are not failing (and those the change removed), by ``_OTHER_KINDS``, then by
    score, then as the run lists them (a removed case as the base listed it)."""
    changes = {(c.suite, c.case_id): c.status for c in comparison.changes} if comparison else {}
    keyed: list[tuple[int, float, int, CaseKey]] = []
    for place, case in cases:
        kinds = {changes.get((case.suite, case.case_id), ""), case.status}
        kinds |= {"flaky"} if case.flaky else set()
        kinds |= {"non-gating"} if case.non_gating is not None else set()
        rank = min(i for i, kind in enumerate(_OTHER_KINDS) if kind in kinds)
        keyed.append((rank, case.score, place, (case.suite, case.case_id)))
    removed = comparison.of("removed") if comparison is not None else ()
    keyed += [(_OTHER_KINDS.index("removed"), 0.0, i, (c.suite, c.case_id)) for i, c in enumerate(removed)]
    return tuple(key for *_, key in sorted(keyed))


@dataclass(frozen=True)
class CaseOrder:
    """The order every output lists cases in, decided once. ``failing``: the failed and errored
    cases that gate, the worst first (with a base side, the regressions first, see ``_worst_first``);
    ``known_flaky``: those of the known-flaky (non-gating) cases, in the same order, listed after the
    others and never counted; ``groups``: where each failing case stands against the base side
    (regressed, new, old; empty without one); ``every``: every case the reports list, head's and
    removed ones, by key: the failing, the known-flaky failing, then the others (``_others``)."""

    failing: tuple[CaseResult, ...]
    known_flaky: tuple[CaseResult, ...]
    groups: Mapping[CaseKey, FailingGroup]
    every: tuple[CaseKey, ...]

    def group(self, case: CaseResult) -> FailingGroup | None:
        """Where ``case`` stands against the base side (None without one)."""
        return self.groups.get((case.suite, case.case_id))


def case_order(results: RunResults, comparison: Comparison | None) -> CaseOrder:
    placed = list(enumerate(c for s in results.suites for c in s.cases))
    bad = [(i, c) for i, c in placed if c.status in ("failed", "error")]
    groups = failing_groups(comparison)
    failing = _worst_first([(i, c) for i, c in bad if c.non_gating is None], groups)
    known_flaky = _worst_first([(i, c) for i, c in bad if c.non_gating is not None], groups)
    others = _others([(i, c) for i, c in placed if c.status not in ("failed", "error")], comparison)
    every = tuple((c.suite, c.case_id) for c in failing + known_flaky) + others
    return CaseOrder(failing, known_flaky, groups, every)


@dataclass(frozen=True)
class ReportView:
    """What every output shows of a conclusion: the verdict in words, the suites' lines and the
    order of the cases."""

    verdict: VerdictWords
    suites: tuple[SuiteLine, ...]
    cases: CaseOrder


def report_view(results: RunResults, verdict: Verdict, comparison: Comparison | None) -> ReportView:
    return ReportView(
        verdict_words(verdict, results), suite_lines(results, verdict), case_order(results, comparison)
    )


__all__: Sequence[str] = (
    "NO_CASES",
    "CaseKey",
    "CaseOrder",
    "GROUP_WORDS",
    "NO_SUITE_VERDICT",
    "OWN_THRESHOLDS",
    "PassRate",
    "ReportView",
    "SuiteLine",
    "VerdictWords",
    "case_order",
    "report_view",
    "summary_line",
    "suite_lines",
    "verdict_words",
)
