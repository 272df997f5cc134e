"""Failure-pattern analysis: what went wrong across all failed cases, and what to change.

* counts by reason (how many failed cases show each reason of the taxonomy, and how often);
* a confusion table of expected tool vs called tool: ``wrong_tool`` failures, plus, within one
  trial, a missing call of A next to an extra (or hallucinated) call of B; a missing call with no
  counterpart is (A, None), an extra call with none is (None, B);
* the arguments that fail most per tool: failures of (tool, argument) out of all calls of that tool;
* hallucinated tool names;
* recommendations: for each pattern, concrete advice pointing at the file and line to change (the
  tool's description or parameter line, or the system prompt), most severe first.

Case references in ``cases`` are ``"<suite>/<case id>"``. Pure: no I/O.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from gate.escape import md_inline_code, show
from gate.results import REASON_TITLES, CaseResult, Failure, RunResults, SuiteResult, ToolInfo

ARGUMENT_REASONS = (
    "missing_argument",
    "unexpected_argument",
    "type_error",
    "value_error",
    "schema_violation",
)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the and or of to for in on at by with from is are be this that it its as use used uses when "
    "which can will get gets returns return".split()
)


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


@dataclass(frozen=True)
class Hallucination:
    name: str
    cases: int
    case_refs: tuple[str, ...]
    closest: str | None  # the closest defined tool name


@dataclass(frozen=True)
class Recommendation:
    pattern: str
    message: str
    file: str
    line: int
    tool: str | None
    argument: str | None
    cases: tuple[str, ...]
    severity: int


@dataclass(frozen=True)
class Analysis:
    reasons: tuple[ReasonCount, ...]
    confusion: tuple[Confusion, ...]
    arguments: tuple[ArgumentFailure, ...]
    hallucinated: tuple[Hallucination, ...]
    recommendations: tuple[Recommendation, ...]
    failed_cases: int = 0


def words(text: str) -> set[str]:
    """The content words of a description (lower case, without stop words)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def jaccard(a: str, b: str) -> float:
    """Word overlap of two descriptions: |A ∩ B| / |A ∪ B| of their content words (0 when empty)."""
    wa, wb = words(a), words(b)
    union = wa | wb
    return len(wa & wb) / len(union) if union else 0.0


def _c(name: object) -> str:
    """A name as inline code, safe in Markdown (names may come from the model)."""
    return md_inline_code(name)


def _failed_trial_failures(case: CaseResult) -> list[tuple[Failure, ...]]:
    return [t.failures for t in case.trials if t.status == "failed"]


def _trial_confusions(failures: tuple[Failure, ...]) -> list[tuple[str | None, str | None]]:
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
    for a, b in zip(missing, extra, strict=False):
        pairs.append((a, b))
    pairs.extend((a, None) for a in missing[len(extra) :])
    pairs.extend((None, b) for b in extra[len(missing) :])
    return pairs


class _Locator:
    """Finds the definition a recommendation should point at."""

    def __init__(self, results: RunResults):
        self.tools: dict[str, ToolInfo] = {}
        self.suites: dict[str, SuiteResult] = {}
        for suite in results.suites:
            self.suites[suite.name] = suite
            for t in suite.tools:
                self.tools.setdefault(t.name, t)

    def tool(self, name: str | None, argument: str | None = None) -> tuple[str, int] | None:
        info = self.tools.get(name or "")
        if info is None:
            return None
        if argument and info.parameter_lines.get(argument):
            return info.file, info.parameter_lines[argument]
        return info.file, info.description_line or info.line

    def prompt(self, case_refs: tuple[str, ...]) -> tuple[str, int]:
        for ref in case_refs:
            suite = self.suites.get(ref.split("/", 1)[0])
            if suite is not None and suite.prompt is not None:
                return suite.prompt.file, suite.prompt.line
        for ref in case_refs:
            suite = self.suites.get(ref.split("/", 1)[0])
            if suite is not None:
                return suite.path, 1
        return "", 0

    def tool_or_prompt(
        self, name: str | None, case_refs: tuple[str, ...], argument: str | None = None
    ) -> tuple[str, int]:
        return self.tool(name, argument) or self.prompt(case_refs)


def analyse(results: RunResults) -> Analysis:
    reason_cases: Counter[str] = Counter()
    reason_occ: Counter[str] = Counter()
    confusion_refs: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
    arg_fail: dict[tuple[str, str], list[Failure]] = defaultdict(list)
    arg_refs: dict[tuple[str, str], list[str]] = defaultdict(list)
    calls_per_tool: Counter[str] = Counter()
    halluc_refs: dict[str, list[str]] = defaultdict(list)
    pattern_refs: dict[tuple[str, str | None], list[str]] = defaultdict(list)  # (reason, tool) -> cases
    clarification_refs: list[str] = []
    defined: set[str] = set()
    failed_cases = 0

    for suite in results.suites:
        defined.update(t.name for t in suite.tools)
        for case in suite.cases:
            for t in case.trials:
                if t.status != "error":
                    for c in t.record.calls:
                        calls_per_tool[c.name] += 1
            if case.status != "failed":
                continue
            failed_cases += 1
            ref = f"{suite.name}/{case.case_id}"
            seen_reasons: set[str] = set()
            seen_pairs: set[tuple[str | None, str | None]] = set()
            seen_args: set[tuple[str, str]] = set()
            seen_patterns: set[tuple[str, str | None]] = set()
            for failures in _failed_trial_failures(case):
                for f in failures:
                    reason_occ[f.reason] += 1
                    seen_reasons.add(f.reason)
                    if f.reason in ARGUMENT_REASONS and f.tool:
                        key = (f.tool, f.argument or "(arguments)")
                        arg_fail[key].append(f)
                        seen_args.add(key)
                    if f.reason == "hallucinated_tool" and f.tool:
                        if ref not in halluc_refs[f.tool]:
                            halluc_refs[f.tool].append(ref)
                    seen_patterns.add((f.reason, f.tool))
                for pair in _trial_confusions(failures):
                    seen_pairs.add(pair)
                for check in (c for tr in case.trials for c in tr.checks):
                    if check.kind == "clarification" and not check.passed and ref not in clarification_refs:
                        clarification_refs.append(ref)
            for r in seen_reasons:
                reason_cases[r] += 1
            for pair in seen_pairs:
                confusion_refs[pair].append(ref)
            for key in seen_args:
                arg_refs[key].append(ref)
            for pattern_key in seen_patterns:
                pattern_refs[pattern_key].append(ref)

    reasons = tuple(
        sorted(
            (ReasonCount(r, REASON_TITLES.get(r, r), reason_cases[r], reason_occ[r]) for r in reason_occ),
            key=lambda rc: (-rc.cases, -rc.occurrences, rc.reason),
        )
    )
    confusion = tuple(
        sorted(
            (Confusion(e, c, len(refs), tuple(refs)) for (e, c), refs in confusion_refs.items()),
            key=lambda x: (-x.cases, x.expected or "", x.called or ""),
        )
    )
    arguments = []
    for (tool_name, arg), fails in arg_fail.items():
        by_reason = Counter(f.reason for f in fails)
        example = next((f for f in fails if f.expected is not None or f.actual is not None), fails[0])
        arguments.append(
            ArgumentFailure(
                tool=tool_name,
                argument=arg,
                failures=len(fails),
                calls=max(calls_per_tool[tool_name], len(fails)),
                reasons=tuple(sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0]))),
                example_expected=example.expected,
                example_actual=example.actual,
                case_refs=tuple(arg_refs[(tool_name, arg)]),
            )
        )
    arguments.sort(key=lambda a: (-a.failures, -(a.failures / a.calls if a.calls else 1), a.tool, a.argument))
    hallucinated = tuple(
        sorted(
            (
                Hallucination(
                    name,
                    len(refs),
                    tuple(refs),
                    next(iter(difflib.get_close_matches(name, sorted(defined), n=1, cutoff=0.5)), None),
                )
                for name, refs in halluc_refs.items()
            ),
            key=lambda h: (-h.cases, h.name),
        )
    )
    recs = _recommendations(
        _Locator(results),
        confusion,
        tuple(arguments),
        hallucinated,
        pattern_refs,
        clarification_refs,
        defined,
    )
    return Analysis(reasons, confusion, tuple(arguments), hallucinated, recs, failed_cases)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _recommendations(
    loc: _Locator,
    confusion: tuple[Confusion, ...],
    arguments: tuple[ArgumentFailure, ...],
    hallucinated: tuple[Hallucination, ...],
    pattern_refs: dict[tuple[str, str | None], list[str]],
    clarification_refs: list[str],
    defined: set[str],
) -> tuple[Recommendation, ...]:
    recs: list[Recommendation] = []
    hallucinated_names = {h.name for h in hallucinated}

    def add(
        pattern: str,
        message: str,
        where: tuple[str, int],
        tool: str | None,
        argument: str | None,
        refs: tuple[str, ...] | list[str],
        severity: int,
    ) -> None:
        if where[0]:
            recs.append(
                Recommendation(pattern, message, where[0], where[1], tool, argument, tuple(refs), severity)
            )

    for c in confusion:
        if c.expected and c.called and c.called not in hallucinated_names:
            expected_desc = loc.tools[c.expected].description if c.expected in loc.tools else ""
            called_desc = loc.tools[c.called].description if c.called in loc.tools else ""
            overlap = jaccard(expected_desc, called_desc)
            similar = (
                f"; their descriptions share {overlap:.0%} of their words"
                if expected_desc and called_desc
                else ""
            )
            advice = (
                f"say in the description of {_c(c.expected)} when to use it instead of {_c(c.called)} "
                f"(and in {_c(c.called)}'s when not to), "
                f'e.g. "Use {c.expected} for …; for … use {c.called}."'
            )
            if overlap >= 0.5:
                advice += ", and make the two descriptions differ in what they are for"
            message = (
                f"{_c(c.called)} was called where {_c(c.expected)} was expected in "
                f"{_plural(c.cases, 'case')}{similar}: {advice}."
            )
            add(
                "confused_tools",
                message,
                loc.tool_or_prompt(c.expected, c.case_refs),
                c.expected,
                None,
                c.case_refs,
                c.cases * 3 + (2 if overlap >= 0.5 else 0),
            )

    for a in arguments:
        main_reason = a.reasons[0][0]
        rate = f"{a.failures} of {_plural(a.calls, 'call')}"
        example = ""
        if a.example_expected is not None or a.example_actual is not None:
            example = f" (expected {_c(show(a.example_expected, 60))}, got {_c(show(a.example_actual, 60))})"
        if main_reason == "value_error":
            advice = "give its allowed values or range and an example value in its description"
        elif main_reason == "type_error":
            advice = "state its type and format in the schema and give an example"
        elif main_reason == "missing_argument":
            advice = "mark it required in the schema and say in its description where the value comes from"
        elif main_reason == "unexpected_argument":
            advice = (
                f"the schema does not define it: say which parameters {_c(a.tool)} takes, or add "
                f"{_c(a.argument)} to the schema if the agent is right"
            )
        else:
            advice = "make its schema constraints explicit in its description (type, format, allowed values)"
        message = f"Argument {_c(a.argument)} of {_c(a.tool)} was wrong in {rate}{example}: {advice}."
        arg = None if a.argument == "(arguments)" else a.argument
        add(
            f"argument_{main_reason}",
            message,
            loc.tool_or_prompt(a.tool, a.case_refs, arg),
            a.tool,
            arg,
            a.case_refs,
            a.failures * 2,
        )

    for h in hallucinated:
        closest = f" The closest defined tool is {_c(h.closest)}." if h.closest else ""
        message = (
            f"The agent called {_c(h.name)}, which is not defined, in {_plural(h.cases, 'case')}. "
            f"If the prompt mentions {_c(h.name)}, name the real tool instead; list the available "
            f"tools by their exact names in the system prompt.{closest}"
        )
        add("hallucinated_tool", message, loc.prompt(h.case_refs), h.name, None, h.case_refs, h.cases * 3)

    simple_patterns = {
        "missing_call": (
            "missing_call",
            "{tool} was not called in {n} where it should have been: say in its "
            "description when it must be called (the situations and the user requests that need it).",
        ),
        "extra_call": (
            "extra_call",
            "{tool} was called without being expected in {n}: say in its description "
            "when it must not be called.",
        ),
        "forbidden_call": (
            "forbidden_call",
            "{tool} was called although the case forbids it in {n}: say in its "
            "description what it must not be used for.",
        ),
        "wrong_count": (
            "wrong_count",
            "{tool} was called the wrong number of times in {n}: say in its "
            "description whether one call covers several items or one call is needed per item.",
        ),
        "invalid_arguments": (
            "invalid_arguments",
            "{tool} received arguments that are not valid JSON in {n}: "
            "simplify its parameters (fewer, flatter, shorter) and give an example call.",
        ),
    }
    prompt_patterns = {
        "order_violation": "The calls came in the wrong order in {n}: state the required order of steps "
        "in the system prompt.",
        "over_call_budget": "The agent exceeded the call budget in {n}: tell it in the system prompt "
        "to stop calling tools once it has what it needs, and to batch requests where a tool allows it.",
        "output_check_failed": "The final answer failed its checks in {n}: say in the system prompt "
        "what the answer must contain and in what form.",
    }
    by_reason: dict[str, dict[str | None, list[str]]] = defaultdict(dict)
    for (reason, tool), refs in pattern_refs.items():
        by_reason[reason][tool] = refs
    for reason, (pattern, template) in simple_patterns.items():
        for tool, refs in sorted(
            by_reason.get(reason, {}).items(), key=lambda kv: (-len(kv[1]), kv[0] or "")
        ):
            if not tool or tool in hallucinated_names:
                continue
            if reason == "missing_call":  # cases already explained as a confusion with another tool
                paired = {r for c in confusion if c.expected == tool and c.called for r in c.case_refs}
                refs = [r for r in refs if r not in paired]
            if reason == "extra_call":
                if tool not in defined:
                    continue
                paired = {r for c in confusion if c.called == tool and c.expected for r in c.case_refs}
                refs = [r for r in refs if r not in paired]
            if not refs:
                continue
            message = template.format(tool=_c(tool), n=_plural(len(refs), "case"))
            add(pattern, message, loc.tool_or_prompt(tool, tuple(refs)), tool, None, refs, len(refs) * 2)
    for reason, template in prompt_patterns.items():
        refs = sorted({r for tool_refs in by_reason.get(reason, {}).values() for r in tool_refs})
        if refs:
            add(
                reason,
                template.format(n=_plural(len(refs), "case")),
                loc.prompt(tuple(refs)),
                None,
                None,
                refs,
                len(refs),
            )
    if clarification_refs:
        message = (
            f"The agent did not handle missing information as expected in "
            f"{_plural(len(clarification_refs), 'case')}: tell it in the system prompt to ask the user "
            "for what it lacks instead of guessing (and not to ask when it has everything)."
        )
        add(
            "no_clarification",
            message,
            loc.prompt(tuple(clarification_refs)),
            None,
            None,
            clarification_refs,
            len(clarification_refs) * 2,
        )

    merged: dict[tuple[str, str, int, str | None, str | None], Recommendation] = {}
    for r in recs:
        key = (r.pattern, r.file, r.line, r.tool, r.argument)
        if key in merged:
            old = merged[key]
            merged_refs = tuple(dict.fromkeys(old.cases + r.cases))
            merged[key] = Recommendation(
                old.pattern,
                old.message,
                old.file,
                old.line,
                old.tool,
                old.argument,
                merged_refs,
                old.severity + r.severity,
            )
        else:
            merged[key] = r
    return tuple(
        sorted(
            merged.values(),
            key=lambda r: (-r.severity, r.pattern, r.file, r.line, r.tool or "", r.argument or ""),
        )
    )
