"""What a finished run says on the console about its failures, without any flag (DESIGN §4).

One line per failed or errored case, the worst first (failed cases by ascending score, then the cases
that could not be evaluated), each with ``file:line``, the case id and its first reason; at most
``MAX_CASE_LINES`` of them, then how many more and where the full reports are. An error that stopped
the run is named first (the provider errors name the host for a connection error, never a
credential).
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.reports.trial_counts import trials_text
from gate.results.outcomes import REASON_TITLES, CaseResult, RunResults
from gate.util.escape import truncate

MAX_CASE_LINES = 20  # a console screen; the reports hold every case
MAX_REASON_CHARS = 200  # one reason on one console line


def _one_line(text: str) -> str:
    return truncate(" ".join(text.split()), MAX_REASON_CHARS)


def _case_reason(case: CaseResult) -> str:
    """The first reason of a failed or errored case, on one line."""
    if case.status == "error":
        errors = [t.record.error for t in case.trials if t.record.error]
        if errors:
            return _one_line(errors[0])
    failures = case.failures
    if failures:
        first = failures[0]
        more = f" (+{len(failures) - 1} more)" if len(failures) > 1 else ""
        return _one_line(f"{REASON_TITLES.get(first.reason, first.reason)}: {first.message}") + more
    return "could not be evaluated" if case.status == "error" else "failed"


def _trials(case: CaseResult) -> str:
    text = trials_text(case)
    return f" [{text}]" if text else ""


def _worst_first(results: RunResults) -> list[CaseResult]:
    """Failed then errored cases, the worst first: failed by ascending score, then errored; ties in
    suite order."""
    cases = [c for s in results.suites for c in s.cases if c.status in ("failed", "error")]
    order = {id(c): i for i, c in enumerate(cases)}
    return sorted(cases, key=lambda c: (c.status == "error", c.score, order[id(c)]))


def failure_lines(results: RunResults, report_paths: Sequence[str]) -> list[str]:
    """The console lines about what went wrong (empty for a clean run)."""
    lines: list[str] = []
    if results.incomplete_reason:
        lines.append(f"run incomplete: {_one_line(results.incomplete_reason)}")
    cases = _worst_first(results)
    if cases:
        lines.append(f"failed cases ({len(cases)}, worst first):")
        for case in cases[:MAX_CASE_LINES]:
            mark = "FAIL " if case.status == "failed" else "ERROR"
            lines.append(
                f"  {mark} {case.file}:{case.line} {case.case_id}{_trials(case)}: {_case_reason(case)}"
            )
        if len(cases) > MAX_CASE_LINES:
            lines.append(f"  ... and {len(cases) - MAX_CASE_LINES} more")
    if lines:
        where = (
            ", ".join(report_paths) if report_paths else "none written (give --json, --junit or --markdown)"
        )
        lines.append(f"full reports: {where}")
    return lines
