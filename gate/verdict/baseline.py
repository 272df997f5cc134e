"""Baseline comparison: each case of the head run against the same case (suite name, case id) of the
base branch's run.

Statuses: ``new`` (not in the base), ``removed`` (only in the base), ``fixed`` (failed -> passed),
``regressed`` (passed -> failed), ``still_failing`` (failed -> failed), ``unchanged`` (everything
else). A case that is an error or skipped on either side cannot be compared and is ``unchanged``
with a note. With more than one trial on either side, passed -> failed is called a regression only
when the drop in passed trials is significant (one-sided Fisher's exact test, alpha 0.05);
otherwise it is ``unchanged`` with a note giving the trial counts and p-value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from gate.analysis.analyse import Recommendation
from gate.results.outcomes import CaseResult, Failure, RunResults, SuiteResult
from gate.util.escape import truncate
from gate.util.stats import fisher_one_sided_p, regression_significant
from gate.util.wording import plural

ChangeStatus = Literal["regressed", "fixed", "new", "removed", "still_failing", "unchanged"]
# Every status, in the order reports list them.
CHANGE_STATUSES: tuple[ChangeStatus, ...] = get_args(ChangeStatus)

ALPHA = 0.05
HEADLINE_CHANGES = 5  # regressions (and fixes) per suite the headline tells one by one
MAX_WHAT_CHARS = 120  # what changed in a case's behaviour, in one headline sentence


@dataclass(frozen=True)
class CaseChange:
    suite: str
    case_id: str
    status: ChangeStatus
    head_status: str | None  # None when removed
    base_status: str | None  # None when new
    head_passed_trials: int = 0
    head_trials: int = 0
    base_passed_trials: int = 0
    base_trials: int = 0
    note: str = ""
    file: str = ""
    line: int = 0
    p_value: float | None = None  # the one-sided exact test, when trials were compared
    what: str = ""  # what changed in the agent's behaviour ("get_forecast is no longer called")
    input: str = ""  # the case's (last) user input, shortened
    culprit: str = ""  # "path:line" of the changed line that likely explains it, when one is known


@dataclass(frozen=True)
class SideFigures:
    """One side's figures for a suite (or for all compared suites)."""

    pass_rate: float
    passed: int
    counted: int
    mean_score: float
    tokens: int
    cost_usd: float
    latency_ms: float  # mean per case
    errors: int = 0  # gating cases that could not be evaluated
    judged: int = 0  # gating cases passed, failed or errored (what the error budget is a share of)


@dataclass(frozen=True)
class SuiteDelta:
    suite: str
    head: SideFigures
    base: SideFigures | None  # None: the suite is new in the PR


@dataclass(frozen=True)
class Comparison:
    changes: tuple[CaseChange, ...]
    counts: dict[str, int] = field(default_factory=dict)  # status -> number of cases (every status present)
    base_pass_rate: float = 1.0  # the base's pass rate over the compared cases, counted as the verdict counts
    head_pass_rate: float = 1.0
    suites: tuple[SuiteDelta, ...] = ()
    overall: SuiteDelta | None = None  # the suites that have a base side, pooled

    def of(self, status: ChangeStatus) -> tuple[CaseChange, ...]:
        return tuple(c for c in self.changes if c.status == status)


def _trial_counts(case: CaseResult) -> tuple[int, int]:
    evaluated = [t for t in case.trials if t.status != "error"]
    return sum(1 for t in evaluated if t.status == "passed"), len(evaluated)


def change_status(
    head_status: str,
    base_status: str,
    head_counts: tuple[int, int],
    base_counts: tuple[int, int],
    non_gating: bool = False,
) -> ChangeStatus:
    """The comparison's call on one case present on both sides, from each side's case status and
    (passed, counted) trials: a non-gating case, or an error or skip on either side, is not compared;
    passed -> failed is a regression with at most one trial a side, else only when significant."""
    if non_gating or head_status in ("error", "skipped") or base_status in ("error", "skipped"):
        return "unchanged"
    if base_status == "passed" and head_status == "failed":
        (hp, hn), (bp, bn) = head_counts, base_counts
        if max(hn, bn) <= 1 or regression_significant(bp, bn, hp, hn, ALPHA):
            return "regressed"
        return "unchanged"
    if base_status == "failed" and head_status == "passed":
        return "fixed"
    if base_status == "failed" and head_status == "failed":
        return "still_failing"
    return "unchanged"


def _compare_case(head: CaseResult, base: CaseResult) -> CaseChange:
    hp, hn = _trial_counts(head)
    bp, bn = _trial_counts(base)
    hs, bs = head.status, base.status
    non_gating = head.non_gating or base.non_gating
    change = CaseChange(
        suite=head.suite,
        case_id=head.case_id,
        status=change_status(hs, bs, (hp, hn), (bp, bn), bool(non_gating)),
        head_status=hs,
        base_status=bs,
        head_passed_trials=hp,
        head_trials=hn,
        base_passed_trials=bp,
        base_trials=bn,
        file=head.file,
        line=head.line,
    )
    if non_gating:
        return replace(change, note=f"not compared: non-gating ({non_gating})")
    if hs in ("error", "skipped") or bs in ("error", "skipped"):
        side = "head" if hs in ("error", "skipped") else "base"
        what = hs if side == "head" else bs
        return replace(change, note=f"not compared: {what} in the {side} run")
    if bs == "passed" and hs == "failed" and max(hn, bn) > 1:
        p = fisher_one_sided_p(bp, bn, hp, hn)
        if change.status == "regressed":
            note = f"{hp}/{hn} vs {bp}/{bn} trials passed, p={p:.3f}"
        else:
            note = f"failed now but not significantly worse: {hp}/{hn} vs {bp}/{bn} trials passed (p={p:.2f})"
        return replace(change, note=note, p_value=p)
    return change


def _figures(cases: Sequence[CaseResult], errors_count: bool) -> SideFigures:
    """One side's figures. The pass rate is the verdict's (``gate.verdict.policy``): known-flaky
    (non-gating) and skipped cases are not counted, errors count as not passed when ``errors_count``;
    the mean score is over the cases evaluated; tokens, cost and latency over every case that ran."""
    gating = [c for c in cases if c.non_gating is None]
    evaluated = [c for c in gating if c.status in ("passed", "failed")]
    passed = sum(1 for c in evaluated if c.status == "passed")
    errors = sum(1 for c in gating if c.status == "error")
    counted = len(evaluated) + (errors if errors_count else 0)
    run = [c for c in cases if c.trials]
    return SideFigures(
        pass_rate=passed / counted if counted else 1.0,
        passed=passed,
        counted=counted,
        mean_score=sum(c.score for c in evaluated) / len(evaluated) if evaluated else 0.0,
        tokens=sum(
            t.metrics.input_tokens + t.metrics.output_tokens
            for c in run
            for t in c.trials
            if t.status != "error"
        ),
        cost_usd=sum(t.metrics.cost_usd for c in run for t in c.trials),
        latency_ms=sum(c.metrics.latency_ms for c in run) / len(run) if run else 0.0,
        errors=errors,
        judged=len(evaluated) + errors,
    )


def _suite_deltas(
    head: RunResults, base: RunResults, errors_count: bool
) -> tuple[tuple[SuiteDelta, ...], SuiteDelta | None]:
    base_suites = {s.name: s for s in base.suites}
    deltas = tuple(
        SuiteDelta(
            suite=s.name,
            head=_figures(s.cases, errors_count),
            base=_figures(base_suites[s.name].cases, errors_count) if s.name in base_suites else None,
        )
        for s in head.suites
    )
    compared = [s for s in head.suites if s.name in base_suites]
    if not compared:
        return deltas, None
    overall = SuiteDelta(
        suite="overall",
        head=_figures([c for s in compared for c in s.cases], errors_count),
        base=_figures([c for s in compared for c in base_suites[s.name].cases], errors_count),
    )
    return deltas, overall


def _main_failure(case: CaseResult) -> Failure | None:
    """The failure the most failed trials share (the first one on a tie); for a case that failed with
    no trial failed (a mean under ``mean_pass_score``, every trial passed on its own), the reducer's
    reason. A passing trial's failures (a weighted trial above its pass score with an output check
    missed) never explain a case's failure."""
    seen: Counter[tuple[str, str | None, str | None]] = Counter()
    first: dict[tuple[str, str | None, str | None], Failure] = {}
    failing = [trial for trial in case.trials if trial.status != "passed"]
    if not failing and case.status == "failed":
        return case.failures[0] if case.failures else None
    for trial in failing:
        for f in trial.failures:
            key = (f.reason, f.tool, f.argument)
            seen[key] += 1
            first.setdefault(key, f)
    return first[seen.most_common(1)[0][0]] if seen else None


def _failure_effect(f: Failure) -> str:
    """What a failure means for the agent's behaviour, in a few words."""
    tool = f.tool or f.expected_tool or "a tool"
    if f.reason == "missing_call":
        return f"{tool} is not called"
    if f.reason == "wrong_tool":
        return f"{f.tool or 'another tool'} is called instead of {f.expected_tool or 'the expected tool'}"
    if f.reason in ("forbidden_call", "extra_call", "hallucinated_tool"):
        return f"{tool} is called ({f.reason.replace('_', ' ')})"
    if f.argument:
        return f"{tool} gets a wrong {f.argument} ({f.reason.replace('_', ' ')})"
    return f.message


def _what(change: CaseChange, head: CaseResult | None, base: CaseResult | None) -> str:
    if change.status == "regressed" and head is not None:
        f = _main_failure(head)
        if f is None:
            return "it fails now"
        text = _failure_effect(f)
        return text.replace(" is not called", " is no longer called") if f.reason == "missing_call" else text
    if change.status == "fixed" and base is not None:
        f = _main_failure(base)
        return f"passes now (before: {_failure_effect(f)})" if f is not None else "passes now"
    if change.status in ("still_failing", "new") and head is not None and head.status == "failed":
        f = _main_failure(head)
        return _failure_effect(f) if f is not None else ""
    return ""


def _input_of(case: CaseResult | None) -> str:
    for trial in case.trials if case is not None else ():
        text = " ".join(trial.record.input.split())
        if text:
            return truncate(text, 80, brief=True)
    return ""


def _culprit(
    change: CaseChange, suite: SuiteResult | None, changed: Mapping[str, Sequence[int]], what_tool: str | None
) -> str:
    """The changed line most likely behind ``change``: in the definition of the tool its failure
    names when that changed, else in the changed prompt, else the first changed line of a file the
    suite read."""
    if suite is None or not changed:
        return ""
    if what_tool:
        for tool in suite.tools:
            lines = changed.get(tool.file, ())
            if tool.name != what_tool or not lines:
                continue
            later = [t.line for t in suite.tools if t.file == tool.file and t.line > tool.line]
            end = min(later, default=10**9)
            inside = [n for n in lines if tool.line <= n < end]
            if inside:
                best = min(inside, key=lambda n: abs(n - (tool.description_line or tool.line)))
                return f"{tool.file}:{best}"
    if suite.prompt is not None and changed.get(suite.prompt.file):
        return f"{suite.prompt.file}:{changed[suite.prompt.file][0]}"
    for path in suite.triggered_by or {t.file: "" for t in suite.tools}:
        if changed.get(path):
            return f"{path}:{changed[path][0]}"
    return ""


def _explained(
    change: CaseChange,
    head: CaseResult | None,
    base: CaseResult | None,
    suite: SuiteResult | None,
    changed: Mapping[str, Sequence[int]],
) -> CaseChange:
    if change.status not in ("regressed", "fixed", "still_failing", "new"):
        return change
    blamed = head if change.status != "fixed" else base
    f = _main_failure(blamed) if blamed is not None else None
    tool = (f.expected_tool or f.tool) if f is not None else None
    return replace(
        change,
        what=truncate(_what(change, head, base), MAX_WHAT_CHARS, brief=True),
        input=_input_of(head or base),
        culprit=_culprit(change, suite, changed, tool) if change.status in ("regressed", "fixed") else "",
    )


def compare(head: RunResults, base: RunResults, *, errors_count: bool = True) -> Comparison:
    """Compare every case of ``head`` with ``base``, keyed by (suite name, case id).

    Changes come in head order (suites, then cases), followed by removed cases in base order.
    Regressions and fixes say what changed in the agent's behaviour and, when the head records the
    changed lines (``run --baseline auto``), which changed line likely explains them."""
    base_cases: dict[tuple[str, str], CaseResult] = {}
    for s in base.suites:
        for c in s.cases:
            base_cases.setdefault((s.name, c.case_id), c)
    changed = head.settings.baseline.changed_lines if head.settings.baseline is not None else {}
    changes: list[CaseChange] = []
    seen: set[tuple[str, str]] = set()
    head_compared: list[CaseResult] = []
    base_compared: list[CaseResult] = []
    for s in head.suites:
        for c in s.cases:
            key = (s.name, c.case_id)
            seen.add(key)
            b = base_cases.get(key)
            if b is None:
                hp, hn = _trial_counts(c)
                changes.append(
                    CaseChange(
                        suite=s.name,
                        case_id=c.case_id,
                        status="new",
                        head_status=c.status,
                        base_status=None,
                        head_passed_trials=hp,
                        head_trials=hn,
                        file=c.file,
                        line=c.line,
                        what=_what_new(c),
                        input=_input_of(c),
                    )
                )
                continue
            head_compared.append(c)
            base_compared.append(b)
            changes.append(_explained(_compare_case(c, b), c, b, s, changed))
    for key, b in base_cases.items():
        if key not in seen:
            bp, bn = _trial_counts(b)
            changes.append(
                CaseChange(
                    suite=key[0],
                    case_id=key[1],
                    status="removed",
                    head_status=None,
                    base_status=b.status,
                    base_passed_trials=bp,
                    base_trials=bn,
                    file=b.file,
                    line=b.line,
                )
            )
    counts: dict[str, int] = {status: 0 for status in CHANGE_STATUSES}
    for change in changes:
        counts[change.status] += 1
    suites, overall = _suite_deltas(head, base, errors_count)
    return Comparison(
        changes=tuple(changes),
        counts=counts,
        base_pass_rate=_figures(base_compared, errors_count).pass_rate,
        head_pass_rate=_figures(head_compared, errors_count).pass_rate,
        suites=suites,
        overall=overall,
    )


def _what_new(case: CaseResult) -> str:
    f = _main_failure(case) if case.status == "failed" else None
    return _failure_effect(f) if f is not None else ""


def _trials_text(change: CaseChange) -> str:
    head = f"{change.head_passed_trials}/{change.head_trials}"
    counts = f"{head} vs {change.base_passed_trials}/{change.base_trials}"
    return f"{counts}, p = {change.p_value:.3f}" if change.p_value is not None else counts


def change_sentence(change: CaseChange) -> str:
    """One regression or fix in words: what changed, for which input, with the trial counts and the
    changed line that likely explains it."""
    text = change.what or change.case_id
    if change.input:
        text += f" for {change.input!r}"
    text += f" ({change.case_id}: {_trials_text(change)})"
    if change.culprit:
        text += f" after the change to {change.culprit}"
    return text


def headline(comparison: Comparison) -> tuple[str, ...]:
    """What the PR did, one sentence per regression or fix (regressions first, at most
    ``HEADLINE_CHANGES`` of each per suite, then how many more and which), then the cases added or
    removed; a single sentence when nothing changed."""
    out: list[str] = []
    said: tuple[tuple[ChangeStatus, str, str], ...] = (
        ("regressed", "regression", "regressions"),
        ("fixed", "fix", "fixes"),
    )
    for status, word, words in said:
        by_suite: dict[str, list[CaseChange]] = {}
        for change in comparison.of(status):
            by_suite.setdefault(change.suite, []).append(change)
        for suite, changes in by_suite.items():
            out += [f"{word} in {suite}: {change_sentence(c)}" for c in changes[:HEADLINE_CHANGES]]
            rest = changes[HEADLINE_CHANGES:]
            if rest:
                ids = truncate(", ".join(c.case_id for c in rest), 200, brief=True)
                out.append(f"{plural(len(rest), 'more ' + word, 'more ' + words)} in {suite}: {ids}")
    new_suites = [d.suite for d in comparison.suites if d.base is None]
    if new_suites:
        out.append(f"new suite(s) without a base side: {', '.join(new_suites)}")
    counts = comparison.counts
    added = sum(1 for c in comparison.of("new") if c.suite not in new_suites)
    if added or counts.get("removed"):
        removed = plural(counts.get("removed", 0), "case")
        out.append(f"{plural(added, 'case')} added, {removed} removed")
    if not comparison.of("regressed") and not comparison.of("fixed"):
        compared = sum(1 for c in comparison.changes if c.status not in ("new", "removed"))
        noisy = sum(1 for c in comparison.of("unchanged") if c.note.startswith("failed now"))
        sentence = f"no significant regression and no fix in the {plural(compared, 'case')} compared"
        if noisy:
            sentence += f" ({noisy} failed now but not significantly worse than on the base)"
        out.insert(0, sentence)
    return tuple(out)


FailingGroup = Literal["regressed", "new", "old"]
FAILING_GROUPS: tuple[FailingGroup, ...] = get_args(FailingGroup)


def failing_groups(comparison: Comparison | None) -> dict[tuple[str, str], FailingGroup]:
    """(suite, case id) -> where a case failing now stands against the base, the order the reports
    list failed cases in (what a pull request's reader asks first): ``regressed``, then ``new`` (it
    fails now and did not on the base: a case the PR added, a drop not significant, an error where
    the base passed), then ``old`` (it failed, or could not be evaluated, on the base too). Empty
    without a comparison (the reports then list the worst first)."""
    if comparison is None:
        return {}
    groups: dict[tuple[str, str], FailingGroup] = {}
    for change in comparison.changes:
        if change.status == "regressed":
            group: FailingGroup = "regressed"
        elif change.status == "still_failing" or change.base_status in ("failed", "error"):
            group = "old"
        else:
            group = "new"
        groups[(change.suite, change.case_id)] = group
    return groups


def line_effects(comparison: Comparison) -> tuple[Recommendation, ...]:
    """One review comment per changed line that regressions or fixes are traced to: which cases
    this change broke and which it fixed, regressions first (in the analysis's recommendation form,
    which the publisher posts; its severity is the number of cases)."""
    from gate.util.escape import md_text

    by_line: dict[str, list[CaseChange]] = {}
    for change in (*comparison.of("regressed"), *comparison.of("fixed")):
        if change.culprit and ":" in change.culprit:
            by_line.setdefault(change.culprit, []).append(change)
    effects = []
    for culprit, changes in by_line.items():
        path, _, number = culprit.rpartition(":")
        broke = [c for c in changes if c.status == "regressed"]
        fixed = [c for c in changes if c.status == "fixed"]
        parts = []
        for word, group in (("broke", broke), ("fixed", fixed)):
            if group:
                shown = "; ".join(
                    f"`{c.suite}/{c.case_id}`: {md_text(change_sentence(c))}" for c in group[:5]
                )
                more = f"; and {len(group) - 5} more" if len(group) > 5 else ""
                parts.append(f"this change {word} {plural(len(group), 'case')}: {shown}{more}")
        effects.append(
            Recommendation(
                pattern="baseline " + ("regression" if broke else "fix"),
                message=". ".join(p[0].upper() + p[1:] for p in parts) + ".",
                file=path,
                line=int(number) if number.isdigit() else 0,
                tool=None,
                argument=None,
                cases=tuple(f"{c.suite}/{c.case_id}" for c in changes),
                severity=len(changes),
            )
        )
    return tuple(effects)
