"""What a finished run says on the console, without any flag (DESIGN §4): a line per suite, the
model requests and their cost, why the gate failed, the failed cases and the verdict line.

With a base side (a pull request's run), what the change did comes first, as the Markdown report
says it: each regression and fix with its trial counts and the changed line behind it.

The failed cases: one line per failed or errored case, each with ``file:line``, the case id and its
first reason, in the order every report lists them (``gate.verdict.view``: with a base side the
regressions first, then the cases failing now only, then those that failed on the base too; within
each, and without a base side, the worst first); at most ``MAX_CASE_LINES`` of them, then how many
more and where the full reports are. An error that stopped the run is named first (the provider
errors name the host for a connection error, never a credential).
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.reports.failure_details import details_text
from gate.reports.fix_report import console_lines
from gate.reports.requests_text import request_lines, requests_by_side
from gate.reports.run_facts import model_lines, trigger_lines
from gate.reports.trial_counts import curtailed_line, trials_text
from gate.results.outcomes import REASON_TITLES, CaseResult, RunResults
from gate.util.escape import json_text, truncate
from gate.verdict.baseline import Comparison, headline
from gate.verdict.conclusion import Conclusion
from gate.verdict.policy import pct
from gate.verdict.view import GROUP_WORDS, NO_SUITE_VERDICT, CaseOrder

MAX_CASE_LINES = 20  # a console screen; the reports hold every case
MAX_REASON_CHARS = 200  # one reason on one console line
MAX_ERROR_LINES = 13  # an error's lines after its first, under its case (once for the same text)


def _one_line(text: str) -> str:
    return truncate(" ".join(text.split()), MAX_REASON_CHARS)


def _case_reason(case: CaseResult) -> str:
    """The first reason of a failed or errored case, on one line (an error's first line)."""
    if case.status == "error":
        errors = [t.record.error for t in case.trials if t.record.error]
        if errors:
            return _one_line(errors[0].split("\n", 1)[0])
    failures = case.failures
    if failures:
        first = failures[0]
        more = f" (+{len(failures) - 1} more)" if len(failures) > 1 else ""
        details = details_text(first, str, json_text)
        return _one_line(f"{REASON_TITLES.get(first.reason, first.reason)}: {first.message}{details}") + more
    return "could not be evaluated" if case.status == "error" else "failed"


def _trials(case: CaseResult) -> str:
    text = trials_text(case)
    return f" [{text}]" if text else ""


def _more_of_error(case: CaseResult, said: set[str]) -> list[str]:
    """The lines of an errored case's error after its first (an agent program that ended before its
    first request: the end of its standard error), indented; once for the same text."""
    error = (
        next((t.record.error for t in case.trials if t.record.error), "") if case.status == "error" else ""
    )
    more = error.split("\n", 1)[1] if "\n" in error else ""
    if not more.strip() or more in said:
        return []
    said.add(more)
    return [f"      {truncate(line, MAX_REASON_CHARS)}" for line in more.splitlines()[-MAX_ERROR_LINES:]]


def _case_lines(cases: Sequence[CaseResult], limit: int, order: CaseOrder) -> list[str]:
    lines = []
    said: set[str] = set()
    for case in cases[:limit]:
        mark = "FAIL " if case.status == "failed" else "ERROR"
        regressed = f" ({GROUP_WORDS['regressed']})" if order.group(case) == "regressed" else ""
        lines.append(
            f"  {mark} {case.file}:{case.line} {case.case_id}{_trials(case)}{regressed}: {_case_reason(case)}"
        )
        lines += _more_of_error(case, said)
    if len(cases) > limit:
        lines.append(f"  ... and {len(cases) - limit} more")
    return lines


def _failed_heading(order: CaseOrder) -> str:
    """``failed cases (3, worst first):``; with a base side, how many stand where against it."""
    cases = order.failing
    if not order.groups:
        return f"failed cases ({len(cases)}, worst first):"
    counted = [order.group(c) for c in cases]
    parts = [f"{counted.count(g)} {word}" for g, word in GROUP_WORDS.items() if g in counted]
    return f"failed cases ({len(cases)}: {', '.join(parts)}; regressions first):"


def failure_lines(conclusion: Conclusion, report_paths: Sequence[str]) -> list[str]:
    """The console lines about what went wrong (empty for a clean run): the failed cases in the
    view's order. Known-flaky (non-gating) cases are not among them: they follow, said to be what they
    are."""
    results, order = conclusion.results, conclusion.view.cases
    lines: list[str] = []
    if results.incomplete_reason:
        lines.append(f"run incomplete: {_one_line(results.incomplete_reason)}")
    if results.unverified:
        lines.append(_one_line(results.unverified))
    cases = order.failing
    if cases:
        lines.append(_failed_heading(order))
        lines += _case_lines(cases, MAX_CASE_LINES, order)
    flaky = order.known_flaky
    if flaky:
        lines.append(f"known-flaky cases that did not pass ({len(flaky)}, non-gating: not counted):")
        lines += _case_lines(flaky, MAX_CASE_LINES - min(len(cases), MAX_CASE_LINES), order)
    if lines:
        where = (
            ", ".join(report_paths) if report_paths else "none written (give --json, --junit or --markdown)"
        )
        lines.append(f"full reports: {where}")
    return lines


_SUITE_MARKS = {"incomplete": "ERR ", "passed": "ok  ", "failed": "FAIL"}


def suite_lines(conclusion: Conclusion) -> list[str]:
    """One line per suite: mark, pass rate, threshold and counts."""
    lines = []
    for line in conclusion.view.suites:
        suite = line.verdict
        shown = pct(suite.pass_rate) if suite.counted else "-"
        lines.append(
            f"{_SUITE_MARKS[line.mood]} {suite.name}: {shown} ({suite.passed_count}/{suite.counted}), "
            f"threshold {pct(suite.threshold)}; {suite.failed_count} failed, {suite.error_count} errors, "
            f"{suite.skipped_count} skipped, {suite.flaky_count} flaky"
            + (f"; {NO_SUITE_VERDICT}" if line.undecided else "")
        )
    return lines


def verdict_lines(conclusion: Conclusion) -> list[str]:
    """Why the gate failed (or the notes on how it was decided), then the verdict line."""
    words = conclusion.view.verdict
    return [*(f"  - {reason}" for reason in words.reasons), words.summary]


def _request_lines(results: RunResults) -> list[str]:
    """The model requests sent and how their attempts ended, their estimated cost, where their time
    went (and, when timeouts took most of it, to raise --timeout), where the prices came from, and
    with a base side the requests of each side; nothing when no request was sent."""
    settings = results.settings
    stats = results.total_requests  # both sides of a comparison
    prices = settings.prices or {}
    out = request_lines(stats)  # none when nothing was sent (replay, every case skipped)
    if out and stats.unpriced:
        unknown = [name for name, p in prices.items() if not p.known]
        out[0] += f" (no price for {', '.join(unknown) or 'some models'}: give it with --prices FILE)"
    sources = sorted({p.source for p in prices.values() if p.known})
    if sources and out:
        out.append("prices from: " + ", ".join(sources))
    if settings.baseline is not None:
        out.append(requests_by_side(settings))
    return out


def _run_facts(conclusion: Conclusion) -> list[str]:
    """What chose the suites and models, when the run was told: the files changed since
    ``--changed-since`` that made each suite run, the models ``--model`` / ``--judge-model`` chose (or
    the baseline's, when they differ from the head's)."""
    results = conclusion.results
    settings = results.settings
    lines = []
    triggers = trigger_lines(results)
    if triggers:
        lines += [f"changed since {settings.changed_since}:", *(f"  {line}" for line in triggers)]
    models = model_lines(results, conclusion.baseline)
    if settings.model or settings.judge_model or any(m.startswith("the baseline") for m in models):
        lines += models
    return lines


def pr_lines(comparison: Comparison | None) -> list[str]:
    """What the change did, as the Markdown report's first section says it: each regression and fix
    (its trial counts, the changed line behind it), the cases added or removed."""
    if comparison is None:
        return []
    # Whole: a sentence's parts are bounded, and the changed line is its end.
    return [
        "what this change did:",
        *(f"  {' '.join(sentence.split())}" for sentence in headline(comparison)),
    ]


def _curtailed(results: RunResults) -> list[str]:
    line = curtailed_line([c for suite in results.suites for c in suite.cases])
    return [line] if line else []


def closing_lines(
    conclusion: Conclusion, report_paths: Sequence[str], cache_lines: Sequence[str] = ()
) -> list[str]:
    """What ``run`` prints when it is over: the suites, the requests (then ``cache_lines``, what the
    response cache did), the trials curtailed, why the gate failed, the failed cases, what the search
    for verified fixes found and sent (apart from the run's requests) and the verdict line."""
    return [
        *suite_lines(conclusion),
        *_run_facts(conclusion),
        *pr_lines(conclusion.comparison),
        *_request_lines(conclusion.results),
        *cache_lines,
        *_curtailed(conclusion.results),
        *verdict_lines(conclusion)[:-1],
        *failure_lines(conclusion, report_paths),
        *console_lines(conclusion.results.fixes),
        conclusion.view.verdict.summary,
    ]
