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

from dataclasses import dataclass, field
from typing import Literal

from gate.results import CaseResult, RunResults
from gate.stats import fisher_one_sided_p, regression_significant

ChangeStatus = Literal["new", "fixed", "regressed", "still_failing", "unchanged", "removed"]
CHANGE_STATUSES: tuple[str, ...] = ("regressed", "fixed", "new", "removed", "still_failing", "unchanged")

ALPHA = 0.05


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


@dataclass(frozen=True)
class Comparison:
    changes: tuple[CaseChange, ...]
    counts: dict[str, int] = field(default_factory=dict)  # status -> number of cases (every status present)
    base_pass_rate: float = 1.0  # passed / (passed + failed) of the base, over its compared cases
    head_pass_rate: float = 1.0

    def of(self, status: str) -> tuple[CaseChange, ...]:
        return tuple(c for c in self.changes if c.status == status)


def _trial_counts(case: CaseResult) -> tuple[int, int]:
    evaluated = [t for t in case.trials if t.status != "error"]
    return sum(1 for t in evaluated if t.status == "passed"), len(evaluated)


def _compare_case(head: CaseResult, base: CaseResult) -> CaseChange:
    hp, hn = _trial_counts(head)
    bp, bn = _trial_counts(base)
    common = dict(
        suite=head.suite,
        case_id=head.case_id,
        head_status=head.status,
        base_status=base.status,
        head_passed_trials=hp,
        head_trials=hn,
        base_passed_trials=bp,
        base_trials=bn,
        file=head.file,
        line=head.line,
    )
    hs, bs = head.status, base.status
    non_gating = head.non_gating or base.non_gating
    if non_gating:
        return CaseChange(status="unchanged", note=f"not compared: non-gating ({non_gating})", **common)  # type: ignore[arg-type]
    if hs in ("error", "skipped") or bs in ("error", "skipped"):
        side = "head" if hs in ("error", "skipped") else "base"
        what = hs if side == "head" else bs
        return CaseChange(status="unchanged", note=f"not compared: {what} in the {side} run", **common)  # type: ignore[arg-type]
    if bs == "passed" and hs == "failed":
        if max(hn, bn) <= 1:
            return CaseChange(status="regressed", **common)  # type: ignore[arg-type]
        p = fisher_one_sided_p(bp, bn, hp, hn)
        if regression_significant(bp, bn, hp, hn, ALPHA):
            return CaseChange(
                status="regressed", note=f"{hp}/{hn} vs {bp}/{bn} trials passed, p={p:.3f}", **common
            )  # type: ignore[arg-type]
        return CaseChange(
            status="unchanged",
            note=f"failed now but not significantly worse: {hp}/{hn} vs {bp}/{bn} trials passed (p={p:.2f})",
            **common,  # type: ignore[arg-type]
        )
    if bs == "failed" and hs == "passed":
        return CaseChange(status="fixed", **common)  # type: ignore[arg-type]
    if bs == "failed" and hs == "failed":
        return CaseChange(status="still_failing", **common)  # type: ignore[arg-type]
    return CaseChange(status="unchanged", **common)  # type: ignore[arg-type]


def _rate(cases: list[CaseResult]) -> float:
    evaluated = [c for c in cases if c.status in ("passed", "failed") and c.non_gating is None]
    return sum(1 for c in evaluated if c.status == "passed") / len(evaluated) if evaluated else 1.0


def compare(head: RunResults, base: RunResults) -> Comparison:
    """Compare every case of ``head`` with ``base``, keyed by (suite name, case id).

    Changes come in head order (suites, then cases), followed by removed cases in base order."""
    base_cases: dict[tuple[str, str], CaseResult] = {}
    for s in base.suites:
        for c in s.cases:
            base_cases.setdefault((s.name, c.case_id), c)
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
                    )
                )
                continue
            head_compared.append(c)
            base_compared.append(b)
            changes.append(_compare_case(c, b))
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
    counts = {status: 0 for status in CHANGE_STATUSES}
    for change in changes:
        counts[change.status] += 1
    return Comparison(
        changes=tuple(changes),
        counts=counts,
        base_pass_rate=_rate(base_compared),
        head_pass_rate=_rate(head_compared),
    )
