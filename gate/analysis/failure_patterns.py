"""The tables of the failure-pattern analysis, each counted from the failed cases on its own:

* counts by reason: how many failed cases show each reason of the taxonomy, and how often;
* a confusion table of expected tool vs called tool: ``wrong_tool`` failures, plus, within one
  trial, a missing call of A next to an extra (or hallucinated) call of B; a missing call with no
  counterpart is (A, None), an extra call with none is (None, B);
* the arguments that fail most per tool: failures of (tool, argument) out of all calls of that tool;
* hallucinated tool names, with the defined tool most likely meant (expected there, else the closest by
  what its definition says it does, else by spelling).

Only failed trials of failed cases count, and each of their failures once: a call's argument that
both the case's expectation and the tool's own schema reject is one failure, counted under the
expectation's reason (``distinct_failures``). Case references are ``"<suite>/<case id>"``. Pure.
"""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gate.analysis.definition_facts import name_words, purpose_words
from gate.results.messages import SystemMessage
from gate.results.outcomes import ARGUMENT_REASONS, REASON_TITLES, CaseResult, Failure, RunResults, ToolInfo
from gate.util.escape import json_text
from gate.util.wording import closest

# The failures the table of arguments counts: an expectation's argument failures and schema violations.
_TABLED_REASONS = ARGUMENT_REASONS | {"schema_violation"}
_SENT_SHOWN = 5  # distinct values the model sent, kept per argument for the advice
_TYPO = 0.8  # a hallucinated name at least this similar to a defined one is a misspelling of it
_SPELLED = 0.5  # when nothing else says which tool was meant: the closest name at least this similar


@dataclass(frozen=True)
class ReasonCount:
    reason: str
    title: str
    cases: int  # failed cases showing this reason
    occurrences: int  # failures with this reason over all failed trials


@dataclass(frozen=True)
class Confusion:
    expected: str | None  # None: nothing was expected (an extra call)
    called: str | None  # None: nothing was called instead (a missing call)
    cases: int
    case_refs: tuple[str, ...]


@dataclass(frozen=True)
class ArgumentFailure:
    tool: str
    argument: str
    failures: int  # failed calls (trial-level)
    calls: int  # all calls of the tool over every evaluated trial
    reasons: tuple[tuple[str, int], ...]  # reason -> count, most frequent first
    example_expected: object = None
    example_actual: object = None
    case_refs: tuple[str, ...] = ()
    sent: tuple[object, ...] = ()  # distinct values the model sent that failed (absent ones left out)


# Why a hallucinated name's closest tool is the one: the failed trials expected it where the name was
# called; its name and description speak of what the name says (``shared`` holds those words); or
# only its name is spelled alike.
ClosestBy = Literal["expected", "purpose", "spelling"]


@dataclass(frozen=True)
class Hallucination:
    name: str
    cases: int
    case_refs: tuple[str, ...]
    closest: str | None  # the defined tool most likely meant
    closest_by: ClosestBy | None = None
    shared: tuple[str, ...] = ()  # for "purpose": the name's words the tool's definition holds


@dataclass(frozen=True)
class FailedCase:
    """A failed case as the tables read it: its reference, the distinct failures of each failed
    trial, whether a clarification check failed, and (for advice that quotes them) the user's request
    and the system prompt of its first failed trial ("" when there is none)."""

    ref: str
    trials: tuple[tuple[Failure, ...], ...]
    clarification_failed: bool
    request: str = ""
    system_prompt: str = ""


# --- one failure per fault -----------------------------------------------------------------------


def _top(path: str) -> str:
    """The top-level argument of an argument path (``address`` of ``address.city``)."""
    for i, char in enumerate(path):
        if char in ".[" and i:
            return path[:i]
    return path


def _fault(failure: Failure) -> tuple[str, ...] | None:
    """What a failure is about, the same for a schema violation and the expectation failure that see
    the same fault: (kind, tool, top-level argument[, value]). None: not about an argument."""
    if failure.tool is None or failure.argument is None:
        return None
    argument = _top(failure.argument)
    if failure.reason == "schema_violation":
        validator = str(failure.expected).split(":", 1)[0] if isinstance(failure.expected, str) else ""
        if validator == "required":
            return ("missing", failure.tool, argument)
        if validator == "additionalProperties":
            return ("unexpected", failure.tool, argument)
    elif failure.reason == "missing_argument":
        return ("missing", failure.tool, argument)
    elif failure.reason == "unexpected_argument":
        return ("unexpected", failure.tool, argument)
    elif failure.reason not in ("type_error", "value_error"):
        return None
    return ("value", failure.tool, argument, json_text(failure.actual))


def distinct_failures(failures: Sequence[Failure]) -> tuple[Failure, ...]:
    """A trial's failures with each fault once: a schema violation about an argument that an
    expectation failure of the same trial already reports (the same missing or extra argument, or the
    same value of it) is left out, so the fault counts under the expectation's reason."""
    seen = {_fault(f) for f in failures if f.reason in ARGUMENT_REASONS and f.tool and f.argument is not None}
    return tuple(f for f in failures if f.reason != "schema_violation" or _fault(f) not in seen)


# --- the failed cases ----------------------------------------------------------------------------


def failed_cases(results: RunResults) -> tuple[FailedCase, ...]:
    """Every failed case with the distinct failures of its failed trials; a known-flaky (non-gating)
    case is left out: it never fails the gate, so it makes no pattern and asks for no change."""
    return tuple(
        _failed_case(f"{suite.name}/{case.case_id}", case)
        for suite in results.suites
        for case in suite.cases
        if case.status == "failed" and case.non_gating is None
    )


def _failed_case(ref: str, case: CaseResult) -> FailedCase:
    failed = [t for t in case.trials if t.status == "failed"]
    record = failed[0].record if failed else None
    system = next((m for m in record.messages if isinstance(m, SystemMessage)), None) if record else None
    return FailedCase(
        ref,
        tuple(distinct_failures(t.failures) for t in failed),
        any(c.kind == "clarification" and not c.passed for t in case.trials for c in t.checks),
        record.input if record is not None else "",
        system.content if system is not None else "",
    )


def calls_per_tool(results: RunResults) -> Counter[tuple[str, str]]:
    """How many calls each tool received over every evaluated (not errored) trial, per suite:
    (suite name, tool name) -> calls (two suites may define different tools of one name)."""
    return Counter(
        (suite.name, call.name)
        for suite in results.suites
        for case in suite.cases
        for trial in case.trials
        if trial.status != "error"
        for call in trial.record.calls
    )


# --- the tables ----------------------------------------------------------------------------------


def reason_counts(failed: Sequence[FailedCase]) -> tuple[ReasonCount, ...]:
    """Per reason: the failed cases showing it and its occurrences, most cases first."""
    cases: Counter[str] = Counter()
    occurrences: Counter[str] = Counter()
    for case in failed:
        reasons = [f.reason for trial in case.trials for f in trial]
        occurrences.update(reasons)
        cases.update(set(reasons))
    return tuple(
        sorted(
            (ReasonCount(r, REASON_TITLES.get(r, r), cases[r], occurrences[r]) for r in occurrences),
            key=lambda rc: (-rc.cases, -rc.occurrences, rc.reason),
        )
    )


def trial_confusions(failures: Sequence[Failure]) -> list[tuple[str | None, str | None]]:
    """The (expected, called) pairs one trial's failures show."""
    pairs: list[tuple[str | None, str | None]] = []
    missing: list[str] = []
    extra: list[str] = []
    for f in failures:
        if f.reason == "wrong_tool":
            pairs.append((f.expected_tool, f.tool))
        elif f.reason == "missing_call" and f.tool:
            missing.append(f.tool)
        elif f.reason in ("extra_call", "hallucinated_tool") and f.tool:
            extra.append(f.tool)
    pairs += zip(missing, extra, strict=False)
    pairs.extend((a, None) for a in missing[len(extra) :])
    pairs.extend((None, b) for b in extra[len(missing) :])
    return pairs


def confusion_table(failed: Sequence[FailedCase]) -> tuple[Confusion, ...]:
    refs: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
    for case in failed:
        for pair in dict.fromkeys(p for trial in case.trials for p in trial_confusions(trial)):
            refs[pair].append(case.ref)
    return tuple(
        sorted(
            (Confusion(e, c, len(r), tuple(r)) for (e, c), r in refs.items()),
            key=lambda x: (-x.cases, x.expected or "", x.called or ""),
        )
    )


def argument_table(
    failed: Sequence[FailedCase], calls: Counter[tuple[str, str]]
) -> tuple[ArgumentFailure, ...]:
    """Per (tool, argument): its failures out of all calls of the tool in the suites of the failing
    cases (``calls`` from :func:`calls_per_tool`), the most failures first."""
    fails: dict[tuple[str, str], list[Failure]] = defaultdict(list)
    refs: dict[tuple[str, str], list[str]] = defaultdict(list)
    for case in failed:
        for f in (f for trial in case.trials for f in trial):
            if f.reason in _TABLED_REASONS and f.tool:
                key = (f.tool, f.argument or "(arguments)")
                fails[key].append(f)
                if case.ref not in refs[key]:
                    refs[key].append(case.ref)
    table = [
        _argument_failure(tool, arg, f, _calls_in(calls, tool, refs[tool, arg]), tuple(refs[tool, arg]))
        for (tool, arg), f in fails.items()
    ]
    table.sort(key=lambda a: (-a.failures, -(a.failures / a.calls if a.calls else 1), a.tool, a.argument))
    return tuple(table)


def _calls_in(calls: Counter[tuple[str, str]], tool: str, refs: Sequence[str]) -> int:
    """The calls of ``tool`` in the suites of the cases ``refs`` names (``"<suite>/<case id>"``)."""
    return sum(calls[suite, tool] for suite in dict.fromkeys(ref.split("/", 1)[0] for ref in refs))


def _argument_failure(
    tool: str, argument: str, fails: list[Failure], calls: int, refs: tuple[str, ...]
) -> ArgumentFailure:
    by_reason = Counter(f.reason for f in fails)
    example = next((f for f in fails if f.expected is not None or f.actual is not None), fails[0])
    sent = {
        json_text(f.actual): f.actual
        for f in fails
        if f.actual is not None and f.reason != "missing_argument"
    }
    return ArgumentFailure(
        tool=tool,
        argument=argument,
        failures=len(fails),
        calls=max(calls, len(fails)),
        reasons=tuple(sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0]))),
        example_expected=example.expected,
        example_actual=example.actual,
        case_refs=refs,
        sent=tuple(sent.values())[:_SENT_SHOWN],
    )


def hallucinations(
    failed: Sequence[FailedCase], defined: Mapping[str, Sequence[ToolInfo]]
) -> tuple[Hallucination, ...]:
    """Hallucinated tool names, each with the tool of the suites of its cases most likely meant
    (``defined``: suite name -> its tools; another suite's tool is not one the agent had): the tool
    its failed trials expected where it was called, else the one it misspells (``get_wether``), else
    the one whose name and description hold the most of the name's words (``list_appointments``: a
    ``get_patient`` that "lists upcoming appointments"), else the closest by spelling."""
    refs: dict[str, list[str]] = defaultdict(list)
    expected: dict[str, Counter[str]] = defaultdict(Counter)
    for case in failed:
        for trial in case.trials:
            for f in trial:
                if f.reason == "hallucinated_tool" and f.tool and case.ref not in refs[f.tool]:
                    refs[f.tool].append(case.ref)
            for meant, called in trial_confusions(trial):
                if meant and called:
                    expected[called][meant] += 1
    found = []
    for name, cases in refs.items():
        tools = {t.name: t for ref in cases for t in defined.get(ref.split("/", 1)[0], ())}
        found.append(Hallucination(name, len(cases), tuple(cases), *_meant(name, expected[name], tools)))
    return tuple(sorted(found, key=lambda h: (-h.cases, h.name)))


def _meant(
    name: str, expected: Counter[str], tools: Mapping[str, ToolInfo]
) -> tuple[str | None, ClosestBy | None, tuple[str, ...]]:
    """The defined tool ``name`` most likely stands for, why, and the words its definition shares."""
    if expected:
        best = max(sorted(expected), key=lambda tool: expected[tool])
        return best, "expected", ()
    typo = closest(name, sorted(tools), _TYPO)
    if typo is not None:  # get_wether: a misspelling, whatever the definitions say
        return typo, "spelling", ()
    wanted = name_words(name)
    scored = []
    for tool in tools.values():
        shared = wanted & purpose_words(tool.name, tool.description)
        scored.append(
            (len(shared), difflib.SequenceMatcher(None, name, tool.name).ratio(), tool.name, shared)
        )
    if scored:
        count, _, best_name, shared = max(scored, key=lambda s: (s[0], s[1], s[2]))
        if count:
            return best_name, "purpose", tuple(sorted(shared))
    spelled = closest(name, sorted(tools), _SPELLED)
    return (spelled, "spelling", ()) if spelled is not None else (None, None, ())


def pattern_refs(failed: Sequence[FailedCase]) -> dict[tuple[str, str | None], list[str]]:
    """(reason, tool) -> the failed cases showing it, in case order."""
    refs: dict[tuple[str, str | None], list[str]] = defaultdict(list)
    for case in failed:
        for key in dict.fromkeys((f.reason, f.tool) for trial in case.trials for f in trial):
            refs[key].append(case.ref)
    return refs
