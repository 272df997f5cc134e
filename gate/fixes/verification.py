"""Whether a candidate is verified: which cases it is re-run on, what each of them says, and when the
cases run so far already decide against it.

A candidate is re-run on every failing case it targets and on the passing gating cases of the suites
it affects: all of them, or under a budget the cases that call (or expect) a tool whose definition
changed or a tool it was confused with, then the others in file order while the budget's estimate
allows (what each case's trials took in the run). A prompt paragraph reaches every case, so it is
re-run on all of them or not at all. A candidate is verified when every targeted case now passes
under its own reducer and no passing case fails: with trials, none is significantly worse than in
the run (the exact test of the baseline comparison, ``gate.verdict.baseline.change_status``, at its
significance). A case that could not be evaluated leaves the candidate undecided. As soon as the
trials that ran decide against the candidate whatever the others say (a targeted case that cannot
pass any more, a passing case worse whatever its other trials give), the rest need not run. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gate.results.fixes import CandidateCase, CandidateStatus, CaseOutcome, CaseRole, SpanKind
from gate.results.outcomes import CaseResult, RunResults
from gate.suite.model import Case
from gate.util.stats import fisher_one_sided_p
from gate.util.wording import plural
from gate.verdict.baseline import change_status
from gate.verdict.curtailment import Seen, outcomes

BudgetUnit = Literal["requests", "usd"]
_JUDGED_KINDS = {"criteria", "semantic_contains", "ranking", "choice", "clarification", "trajectory"}


@dataclass(frozen=True)
class Budget:
    """What the search may still spend: ``left`` requests or USD (``unit``)."""

    unit: BudgetUnit
    left: float


@dataclass(frozen=True)
class Selection:
    """The cases a candidate is re-run on (``"<suite>/<case id>"``), and which passing ones in words."""

    targeted: tuple[str, ...]
    passing: tuple[str, ...]
    scope: str
    short: str = ""  # why even the cases it must be re-run on exceed the budget ("" when they fit)


def parse_budget(text: str) -> Budget:
    """``--fix-budget``: a number of requests (``200``) or US dollars (``$0.50``, ``0.5usd``).
    ``ValueError`` saying what is accepted otherwise."""
    raw = text.strip().lower().replace(" ", "")
    dollars = raw.startswith("$") or raw.endswith("usd")
    number = raw.removeprefix("$").removesuffix("usd")
    try:
        value = float(number) if dollars else float(int(number))
    except ValueError:
        raise ValueError(
            f"a number of requests (200) or of US dollars ($0.50, 0.5usd), got {text!r}"
        ) from None
    if not value > 0 or value != value or value == float("inf"):
        raise ValueError(f"must be greater than 0, got {text!r}")
    return Budget("usd" if dollars else "requests", value)


def ref(case: CaseResult) -> str:
    return f"{case.suite}/{case.case_id}"


def cost(case: CaseResult, unit: BudgetUnit) -> float:
    """What re-running ``case`` is expected to take: its trials' model replies and judge questions in
    the run (at least one request), or their cost."""
    if unit == "usd":
        return sum(t.metrics.cost_usd for t in case.trials)
    asked = sum(t.record.turns + sum(c.kind in _JUDGED_KINDS for c in t.checks) for t in case.trials)
    return float(max(asked, len(case.trials), 1))


def _names(case: CaseResult) -> set[str]:
    """The tools the case's trials called and its expectation names."""
    called = {call.name for trial in case.trials for call in trial.record.calls}
    for calls in (case.expected, *(case.expected.get("alternatives") or ())):
        if isinstance(calls, dict):
            called |= {str(c.get("tool")) for c in calls.get("calls") or () if isinstance(c, dict)}
    return called


def select(
    results: RunResults,
    targeted: Sequence[str],
    suites: Iterable[str],
    kind: SpanKind,
    tools: set[str],
    budget: Budget | None,
) -> Selection:
    """The cases to re-run a candidate on: ``targeted``, then the passing gating cases of ``suites``
    as the budget allows (``tools``: the tools whose definition changed or that were confused with
    them; for a prompt paragraph every passing case is a must)."""
    wanted = set(suites)
    by_ref = {ref(c): c for s in results.suites for c in s.cases}
    passing = [
        c
        for s in results.suites
        if s.name in wanted
        for c in s.cases
        if c.status == "passed" and c.non_gating is None and ref(c) not in targeted
    ]
    must = [c for c in passing if kind == "prompt_paragraph" or _names(c) & tools]
    rest = [c for c in passing if c not in must]
    suites_text = ", ".join(sorted(wanted))
    if budget is None:
        return Selection(tuple(targeted), tuple(ref(c) for c in passing), _every(len(passing), suites_text))
    needed = sum(cost(by_ref[r], budget.unit) for r in targeted if r in by_ref)
    needed += sum(cost(c, budget.unit) for c in must)
    if needed > budget.left:
        short = f"the cases it must be re-run on need about {_amount(needed, budget.unit)}"
        return Selection(tuple(targeted), tuple(ref(c) for c in must), "", short)
    chosen, left = list(must), budget.left - needed
    for case in rest:
        if cost(case, budget.unit) <= left:
            chosen.append(case)
            left -= cost(case, budget.unit)
    if len(chosen) == len(passing):
        return Selection(tuple(targeted), tuple(ref(c) for c in passing), _every(len(passing), suites_text))
    order = {id(c): i for i, c in enumerate(passing)}
    chosen.sort(key=lambda c: order[id(c)])
    named = ", ".join(f"`{t}`" for t in sorted(tools)) or "the changed definition"
    scope = (
        f"a sample of {len(chosen)} of the {plural(len(passing), 'passing gating case')} of {suites_text} "
        f"(within --fix-budget): every one that calls or expects {named}, then others in file order"
    )
    return Selection(tuple(targeted), tuple(ref(c) for c in chosen), scope)


def _every(count: int, suites: str) -> str:
    return f"every passing gating case of {suites} ({count})"


def _amount(value: float, unit: BudgetUnit) -> str:
    return f"${value:.4f}" if unit == "usd" else plural(round(value), "request")


# --- what the cases say ------------------------------------------------------------------------------


def _counts(case: CaseResult) -> tuple[int, int]:
    evaluated = [t for t in case.trials if t.status != "error"]
    return sum(t.status == "passed" for t in evaluated), len(evaluated)


def outcome_of(role: CaseRole, status: str, passed: int, counted: int, before: CaseResult) -> CaseOutcome:
    """What a case whose trials under the candidate ended with ``status`` (``passed`` of ``counted``
    trials passed) says of it, against the same case in the run (``before``). A passing case that
    now fails under its reducer is broken when it passes no trial any more or the exact test finds it
    significantly worse; otherwise it wavered (within the noise of its trials)."""
    if status == "error":
        return "error"
    if role == "targeted":
        return "fixed" if status == "passed" else "still_failing"
    if status == "passed":
        return "kept"
    regressed = change_status(status, before.status, (passed, counted), _counts(before)) == "regressed"
    return "broke" if regressed or passed == 0 else "wavered"


def case_outcome(role: CaseRole, before: CaseResult, after: CaseResult | None) -> CandidateCase:
    """What a case says of a candidate: ``before`` is the case in the run, ``after`` re-run under the
    candidate (None: not run, the candidate was decided before it started)."""
    bp, bn = _counts(before)
    if after is None or not after.trials:
        return CandidateCase(before.suite, before.case_id, role, "not_run", 0, 0, bp, bn)
    ap, an = _counts(after)
    outcome = outcome_of(role, after.status, ap, an, before)
    dropped = role == "passing" and bn and an and ap * bn < bp * an
    p_value = fisher_one_sided_p(bp, bn, ap, an) if dropped else None
    why = ""
    if outcome in ("still_failing", "broke", "wavered", "error"):
        failure = next(iter(after.failures), None)
        why = failure.message if failure is not None else ""
    return CandidateCase(before.suite, before.case_id, role, outcome, ap, an, bp, bn, p_value, why)


def judge(cases: Sequence[CandidateCase]) -> tuple[CandidateStatus, str]:
    """The candidate's status from its cases, and why (for one that is not verified)."""
    broke = [c for c in cases if c.outcome == "broke"]
    still = [c for c in cases if c.outcome == "still_failing"]
    if broke:
        return "broke", f"it breaks {_refs(broke)}" + (f" and does not fix {_refs(still)}" if still else "")
    if still:
        return "not_fixed", f"it does not fix {_refs(still)}"
    unknown = [c for c in cases if c.outcome in ("error", "not_run")]
    if unknown:
        return "undecided", f"{_refs(unknown)} could not be evaluated under it"
    return "verified", ""


def _refs(cases: Sequence[CandidateCase]) -> str:
    shown = ", ".join(f"{c.suite}/{c.case_id}" for c in cases[:3])
    return shown + (f" and {len(cases) - 3} more" if len(cases) > 3 else "")


def evidence(cases: Sequence[CandidateCase]) -> str:
    """The evidence in one sentence: "fixes 3 of 3 failing cases, breaks 0 of 41 passing (5 trials
    each, p = 0.4)"."""
    targeted = [c for c in cases if c.role == "targeted"]
    passing = [c for c in cases if c.role == "passing"]
    fixed = sum(c.outcome == "fixed" for c in targeted)
    broke = sum(c.outcome == "broke" for c in passing)
    text = (
        f"fixes {fixed} of {plural(len(targeted), 'failing case')}, breaks {broke} of {len(passing)} passing"
    )
    wavered = sum(c.outcome == "wavered" for c in passing)
    if wavered:
        text += f", {wavered} of them lost trials within the noise"
    trials = sorted({c.trials for c in cases if c.trials})
    details = []
    if trials and trials[-1] > 1:
        details.append(
            f"{trials[0]} trials each" if len(trials) == 1 else f"{trials[0]}-{trials[-1]} trials each"
        )
        worst = min((c.p_value for c in passing if c.p_value is not None), default=None)
        details.append(f"p = {worst:.3f}" if worst is not None else "no passing case lost a trial")
    return text + (f" ({', '.join(details)})" if details else "")


# --- deciding early ------------------------------------------------------------------------------------


def possible(case: Case, role: CaseRole, seen: Seen, before: CaseResult) -> frozenset[CaseOutcome]:
    """Every outcome the case can still end with, from its finished trials (``seen``)."""
    return frozenset(outcome_of(role, status, p, n, before) for status, p, n in outcomes(case, seen))


def decided(case: Case, role: CaseRole, seen: Seen, before: CaseResult) -> bool:
    """Whether the case's finished trials (``seen``) decide what it says of the candidate: every
    completion gives one outcome, a passing case kept and one that wavered counting alike (neither
    breaks it), so a passing case stops once no completion can break it."""
    said = {"kept" if outcome == "wavered" else outcome for outcome in possible(case, role, seen, before)}
    return len(said) == 1


def decided_against(case: Case, role: CaseRole, seen: Seen, before: CaseResult) -> bool:
    """Whether the finished trials of ``case`` already rule the candidate out whatever its other
    trials say: a targeted case that can no longer pass, a passing case broken in every completion,
    or a case that can only end as an error (the candidate then cannot be verified)."""
    return possible(case, role, seen, before) <= {"still_failing", "broke", "error"}


def results_by_ref(results: RunResults) -> Mapping[str, CaseResult]:
    return {ref(c): c for s in results.suites for c in s.cases}


__all__ = [
    "Budget",
    "parse_budget",
    "Selection",
    "case_outcome",
    "cost",
    "decided",
    "decided_against",
    "outcome_of",
    "possible",
    "evidence",
    "judge",
    "results_by_ref",
    "select",
]
