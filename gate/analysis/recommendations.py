"""Recommendations: for each failure pattern, advice that points at the definition to change (the
tool's description or parameter line, or the system prompt) and is true of it.

Every piece of advice first reads what the definition already says (``gate.analysis.definition_facts``): an
argument the model leaves out is called optional or "already required" as the schema has it, wrong
values are set against the enum or range the schema already gives, an example is asked for only where
the definition has none, two confused tools show how many content words their descriptions really
share, and a description that already names the other tool is not told to do so again. When the
results do not hold a tool's schema (written before it was recorded), the advice says what to check
instead of claiming what is there. Messages are Markdown with every name escaped. Pure: no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gate.analysis.definition_facts import (
    ParameterFacts,
    closed_object,
    overlap,
    parameter_facts,
    says_when,
    says_when_not,
)
from gate.analysis.failure_patterns import ArgumentFailure, Confusion, FailedCase, Hallucination, pattern_refs
from gate.results.outcomes import REASON_TITLES, RunResults, SuiteResult, ToolInfo
from gate.suite.matchers import json_type
from gate.util.escape import md_inline_code, show
from gate.util.json_types import JsonObject
from gate.util.wording import mentions, plural

_SIMILAR = 0.5  # descriptions sharing at least this share of their content words are "similar"
_UNREAD = "these results do not hold the tool's schema"
_OPAQUE = "its schema defines it through anyOf/oneOf/allOf or $ref, which this analysis does not read"


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


def _c(name: object) -> str:
    """A name as inline code, safe in Markdown (names may come from the model)."""
    return md_inline_code(name)


def _value(value: object) -> str:
    return _c(show(value, 60))


def _values(values: Iterable[object]) -> str:
    return ", ".join(_value(v) for v in values)


class Locator:
    """Finds the definition a recommendation points at, and what that definition says: a tool is read
    in the suite of the cases the pattern cites (two suites may define different tools of one name)."""

    def __init__(self, results: RunResults, failed: Sequence[FailedCase] = ()):
        self.tools: dict[str, ToolInfo] = {}
        self.suites: dict[str, SuiteResult] = {}
        self.cases = {case.ref: case for case in failed}
        for suite in results.suites:
            self.suites[suite.name] = suite
            for t in suite.tools:
                self.tools.setdefault(t.name, t)

    def info(self, name: str | None, case_refs: Sequence[str] = ()) -> ToolInfo | None:
        """The definition of tool ``name`` in the suite of the first of ``case_refs`` that has one,
        else the first suite's that defines it."""
        for ref in case_refs:
            suite = self.suites.get(ref.split("/", 1)[0])
            found = next((t for t in suite.tools if t.name == name), None) if suite is not None else None
            if found is not None:
                return found
        return self.tools.get(name or "")

    def tool(
        self, name: str | None, argument: str | None = None, case_refs: Sequence[str] = ()
    ) -> tuple[str, int] | None:
        info = self.info(name, case_refs)
        if info is None:
            return None
        if argument and info.parameter_lines.get(argument):
            return info.file, info.parameter_lines[argument]
        return info.file, info.description_line or info.line

    def prompt(self, case_refs: Sequence[str]) -> tuple[str, int]:
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
        self, name: str | None, case_refs: Sequence[str], argument: str | None = None
    ) -> tuple[str, int]:
        return self.tool(name, argument, case_refs) or self.prompt(case_refs)

    def description(self, name: str | None, case_refs: Sequence[str] = ()) -> str:
        info = self.info(name, case_refs)
        return info.description if info is not None else ""

    def request(self, case_refs: Sequence[str]) -> str:
        """The user's request of the first of these cases that has one, quoted ("" when none has)."""
        text = next(
            (self.cases[r].request for r in case_refs if r in self.cases and self.cases[r].request), ""
        )
        return _c(show(text, 80).strip('"')) if text else ""

    def system_prompt(self, case_refs: Sequence[str]) -> str:
        return next((self.cases[r].system_prompt for r in case_refs if r in self.cases), "")

    def suite_tools(self, case_refs: Sequence[str]) -> tuple[str, ...]:
        suite = self.suites.get(case_refs[0].split("/", 1)[0]) if case_refs else None
        return tuple(t.name for t in suite.tools) if suite is not None else ()

    def facts(self, name: str, argument: str, case_refs: Sequence[str] = ()) -> ParameterFacts:
        info = self.info(name, case_refs)
        return parameter_facts(info.parameters if info is not None else None, argument)


def _rec(
    pattern: str,
    message: str,
    where: tuple[str, int],
    tool: str | None,
    argument: str | None,
    refs: Sequence[str],
    severity: int,
) -> list[Recommendation]:
    """The recommendation, or none when there is no file to point at."""
    if not where[0]:
        return []
    return [Recommendation(pattern, message, where[0], where[1], tool, argument, tuple(refs), severity)]


# --- confused tools ------------------------------------------------------------------------------


def _confusion_advice(
    expected: str, called: str, expected_desc: str, called_desc: str, request: str
) -> tuple[str, str]:
    """What to write, and in which tool's description (the tool the edit belongs to). What a
    description already says (the other tool's name, when to use it, when not to) is never asked for
    again: the cases' requests go into it as examples instead."""
    if not expected_desc:
        return (
            f"{_c(expected)} has no description: write one that says when to use it instead of {_c(called)}",
            expected,
        )
    examples = request or "the requests of these cases"
    if mentions(expected_desc, called) and mentions(called_desc, expected):
        return (
            "both descriptions already name the other tool, so the rule is written but not followed: "
            f"put it first in the description of {_c(expected)} with example requests for each tool "
            f"(such as {examples}), or state it in the system prompt",
            expected,
        )
    if mentions(expected_desc, called):
        if says_when_not(called_desc):
            return (
                f"the description of {_c(expected)} already names {_c(called)}, and {_c(called)}'s already "
                f"says when not to use it: add requests like {examples} to {_c(called)}'s description as "
                "examples of when it must not be called",
                called,
            )
        return (
            f"the description of {_c(expected)} already names {_c(called)}; say in {_c(called)}'s when not "
            f'to use it, e.g. "Not for …: use {_c(expected)}."',
            called,
        )
    if says_when(expected_desc):
        other = (
            f"{_c(called)}'s already says when not to use it"
            if says_when_not(called_desc)
            else f'say in {_c(called)}\'s when not to use it, e.g. "Not for …: use {_c(expected)}."'
        )
        return (
            f"the description of {_c(expected)} already says when to use it: add requests like {examples} "
            f"to it as examples of when it must be called, and name {_c(called)} in it; {other}",
            expected,
        )
    if mentions(called_desc, expected):
        return (
            f"the description of {_c(called)} already names {_c(expected)}; say in {_c(expected)}'s when to "
            f'use it instead, e.g. "Use {_c(expected)} for …; for … use {_c(called)}."',
            expected,
        )
    return (
        f"say in the description of {_c(expected)} when to use it instead of {_c(called)} "
        f"(and in {_c(called)}'s when not to), "
        f'e.g. "Use {_c(expected)} for …; for … use {_c(called)}."',
        expected,
    )


def _confusion(loc: Locator, c: Confusion) -> list[Recommendation]:
    assert c.expected is not None and c.called is not None
    expected_desc = loc.description(c.expected, c.case_refs)
    called_desc = loc.description(c.called, c.case_refs)
    share = overlap(expected_desc, called_desc)
    similar = ""
    if expected_desc and called_desc:
        similar = (
            f"; their descriptions share {share.shared} of their {share.total} distinct content words "
            f"({share.ratio:.0%})"
        )
    request = loc.request(c.case_refs)
    advice, edit = _confusion_advice(c.expected, c.called, expected_desc, called_desc, request)
    if similar and share.ratio >= _SIMILAR:
        advice += ", and make the two descriptions differ in what they are for"
    message = (
        f"{_c(c.called)} was called where {_c(c.expected)} was expected in "
        f"{plural(c.cases, 'case')}{similar}: {advice}."
    )
    severity = c.cases * 3 + (2 if similar and share.ratio >= _SIMILAR else 0)
    where = loc.tool_or_prompt(edit, c.case_refs)
    return _rec("confused_tools", message, where, edit, None, c.case_refs, severity)


def confusion_recommendations(
    loc: Locator, confusion: Sequence[Confusion], hallucinated: set[str]
) -> list[Recommendation]:
    return [
        rec
        for c in confusion
        if c.expected and c.called and c.called not in hallucinated
        for rec in _confusion(loc, c)
    ]


# --- arguments -----------------------------------------------------------------------------------


def _unread(facts: ParameterFacts) -> str:
    """Why the advice cannot say what the schema holds ("" when it can)."""
    if not facts.known:
        return _UNREAD
    if facts.opaque:
        return _OPAQUE
    return ""


def _json_type(value: object) -> str:
    """The JSON Schema type of a literal the advice can show (``integer`` for a whole number); ""
    for anything else (null, an array, an object)."""
    kind = json_type(value)
    if kind == "number" and isinstance(value, int):
        return "integer"
    return kind if kind in ("boolean", "number", "string") else ""


def _missing_advice(a: ArgumentFailure, facts: ParameterFacts, tool_desc: str) -> str:
    if why := _unread(facts):
        return (
            f"{why}: make sure it is listed in `required`, and say in its description where the value "
            "comes from"
        )
    if not facts.declared:
        return (
            f"the schema of {_c(a.tool)} does not define it: add it to its `properties` and `required` "
            "(the model cannot send what the schema does not offer), or drop it from the case"
        )
    if not facts.required:
        return (
            "it is optional in the schema: add it to `required` if every call needs it, and say in its "
            "description where the value comes from"
        )
    steps = []
    if not mentions(tool_desc, a.argument):
        steps.append(f'name it in the description of {_c(a.tool)} (e.g. "always pass {_c(a.argument)}")')
    if not facts.has_example and not facts.enum:
        steps.append("give it an example value (`examples`, or e.g. … in its description)")
    if not steps:
        steps.append(f"say in the system prompt that every call of {_c(a.tool)} needs it")
    return "it is already required in the schema: " + " and ".join(steps)


def _type_advice(a: ArgumentFailure, facts: ParameterFacts) -> str:
    wanted = facts.types[0] if facts.types else _json_type(a.example_expected)
    if why := _unread(facts):
        wanted_text = _c(wanted) if wanted else "the JSON type"
        return f"{why}: make sure it gives its type ({wanted_text}) and its description an example value"
    if not facts.declared:
        typed = f" ({_c(wanted)})" if wanted else ""
        return f"the schema of {_c(a.tool)} does not define it: add it with its type{typed}"
    if not facts.types:
        declaration = _c(f'"type": "{wanted or "…"}"')
        return f"the schema gives it no type: add {declaration} and an example value"
    sent = f"the model sent {_values(a.sent)}" if a.sent else "the model sent another type"
    declared = " or ".join(_c(t) for t in facts.types)
    literal = a.example_expected if _json_type(a.example_expected) else None
    contrast = ""
    if a.sent:
        contrast = (
            f" (e.g. {_value(literal)}, not {_value(a.sent[0])})"
            if literal is not None
            else f" (not {_value(a.sent[0])})"
        )
    return (
        f"the schema already declares it {declared}, yet {sent}: say in its description that it takes "
        f"a bare {_c(facts.types[0])}{contrast}"
    )


def _range_text(facts: ParameterFacts) -> str:
    def num(x: float | None) -> str:
        return "…" if x is None else f"{x:g}"

    return f"{num(facts.minimum)} to {num(facts.maximum)}"


def _in_range(value: object, facts: ParameterFacts) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    return (facts.minimum is None or value >= facts.minimum) and (
        facts.maximum is None or value <= facts.maximum
    )


def _expected_text(a: ArgumentFailure) -> str:
    return f" where the case expected {_value(a.example_expected)}" if a.example_expected is not None else ""


def _constrained_value_advice(a: ArgumentFailure, facts: ParameterFacts) -> str:
    """Wrong values of an argument whose schema already gives its allowed values or range."""
    if facts.enum:
        allowed, outside = f"`enum`: {_values(facts.enum)}", [v for v in a.sent if v not in facts.enum]
    else:
        allowed, outside = f"range {_range_text(facts)}", [v for v in a.sent if not _in_range(v, facts)]
    if outside:
        described = " and its description names them" if _states_constraint(facts) else ""
        mapping = "which of the user's words map to which allowed value"
        if _json_type(a.example_expected):  # a literal the case expects: show the mapping it wants
            mapping += f" (e.g. {_value(outside[0])} means {_value(a.example_expected)})"
        return (
            f"its schema already gives the allowed values ({allowed}){described}, "
            f"yet the model sent {_values(outside)}: say in its description {mapping}"
        )
    sent = _values(a.sent) or "other values"
    return (
        f"the model sent {sent}, which its schema allows ({allowed}){_expected_text(a)}: say in its "
        "description how to choose the value from the request"
        + ("" if facts.has_example else ", with an example")
    )


def _value_advice(a: ArgumentFailure, facts: ParameterFacts) -> str:
    if why := _unread(facts):
        return (
            f"{why}: if it does not list the allowed values (`enum`) or range, add them, and give an example "
            "value in its description"
        )
    if not facts.declared:
        return f"the schema of {_c(a.tool)} does not define it: add it with its allowed values or range"
    if facts.enum or facts.has_range:
        return _constrained_value_advice(a, facts)
    if set(facts.types) & {"integer", "number"}:
        limit = "give its range (`minimum`/`maximum`) in the schema"
    elif "string" in facts.types:
        limit = (
            "if it takes a fixed set of values, list them in `enum`; else say in its description how to "
            "write it (format, spelling)"
        )
    else:
        limit = "give its allowed values (`enum`) or range (`minimum`/`maximum`) in the schema"
    return limit if facts.has_example else f"{limit}, and give an example value in its description"


def _unexpected_advice(a: ArgumentFailure, facts: ParameterFacts, parameters: JsonObject | None) -> str:
    if why := _unread(facts):
        return (
            f"{why}: if it does not define {_c(a.argument)}, say which parameters {_c(a.tool)} takes, "
            "or add it if the agent is right"
        )
    if facts.declared:
        optional = "an optional" if not facts.required else "a"
        allow = _c(f"{a.argument}: {{optional: true}}")
        return (
            f"it is {optional} parameter of {_c(a.tool)}, but the case expects calls without it: "
            f"if sending it is fine, allow it in the case ({allow} or "
            "`allow_extra_args: true`); otherwise say in its description when to leave it out"
        )
    if closed_object(parameters):
        return (
            f"the schema of {_c(a.tool)} does not define it and already forbids other arguments "
            f"(`additionalProperties: false`): add it if the agent is right, else list the arguments "
            f"{_c(a.tool)} takes in its description"
        )
    return (
        f"the schema of {_c(a.tool)} does not define it: add it if the agent is right, else set "
        "`additionalProperties: false` and list the arguments it takes in its description"
    )


def _states_constraint(facts: ParameterFacts) -> bool:
    """Whether the parameter's description already says its allowed values or its bounds."""
    if facts.enum:
        return all(mentions(facts.description, str(v)) for v in facts.enum)
    bounds = [b for b in (facts.minimum, facts.maximum) if b is not None]
    return bool(bounds) and all(mentions(facts.description, f"{b:g}") for b in bounds)


def _schema_advice(a: ArgumentFailure, facts: ParameterFacts) -> str:
    rule = f" ({_value(a.example_expected)})" if isinstance(a.example_expected, str) else ""
    head = f"the model's arguments broke a rule its schema already states{rule}"
    if a.argument == "(arguments)":  # a rule about the arguments object as a whole
        return f"{head}: state that rule in the description of {_c(a.tool)}, with an example call"
    if why := _unread(facts):
        return f"{head}; {why}: state that rule in its description in words, with an example value"
    if not facts.declared:
        parameter = f"{_c(a.argument)} is not one of its parameters"
        return f"{head}: {parameter}: list the parameters {_c(a.tool)} takes in its description"
    if _states_constraint(facts):
        return f"{head}, and its description says it too: give an example call in {_c(a.tool)}'s description"
    example = "" if facts.has_example else ", with an example value"
    return f"{head}: state that rule in its description in words{example}"


def _argument_advice(loc: Locator, a: ArgumentFailure, reason: str) -> str:
    facts = loc.facts(a.tool, a.argument, a.case_refs)
    if reason == "missing_argument":
        return _missing_advice(a, facts, loc.description(a.tool, a.case_refs))
    if reason == "type_error":
        return _type_advice(a, facts)
    if reason == "value_error":
        return _value_advice(a, facts)
    if reason == "unexpected_argument":
        info = loc.info(a.tool, a.case_refs)
        return _unexpected_advice(a, facts, info.parameters if info is not None else None)
    return _schema_advice(a, facts)


_WHAT = {
    "missing_argument": "was left out",
    "unexpected_argument": "was sent without being expected",
    "type_error": "had the wrong type",
    "value_error": "had a wrong value",
    "schema_violation": "broke the tool's schema",
}


def _argument(loc: Locator, a: ArgumentFailure) -> list[Recommendation]:
    reason, count = a.reasons[0]
    example = ""
    if reason != "missing_argument" and (a.example_expected is not None or a.example_actual is not None):
        example = f" (expected {_value(a.example_expected)}, got {_value(a.example_actual)})"
    what = _WHAT.get(reason, "was wrong")
    advice = _argument_advice(loc, a, reason)
    rate = f"{count} of {plural(a.calls, 'call')}"
    others = [f"{REASON_TITLES.get(r, r)} {n}" for r, n in a.reasons[1:]]
    if others:
        rate += f" (other failures of it: {', '.join(others)})"
    message = f"Argument {_c(a.argument)} of {_c(a.tool)} {what} in {rate}{example}: {advice}."
    arg = None if a.argument == "(arguments)" else a.argument
    where = loc.tool_or_prompt(a.tool, a.case_refs, arg)
    return _rec(f"argument_{reason}", message, where, a.tool, arg, a.case_refs, a.failures * 2)


def argument_recommendations(loc: Locator, arguments: Sequence[ArgumentFailure]) -> list[Recommendation]:
    return [rec for a in arguments for rec in _argument(loc, a)]


# --- hallucinated tools --------------------------------------------------------------------------


def _closest_text(h: Hallucination) -> str:
    """Which defined tool was most likely meant, and why (empty when none is close)."""
    if h.closest is None:
        return ""
    if h.closest_by == "expected":
        return f" The cases expected {_c(h.closest)} where it was called."
    if h.closest_by == "purpose":
        said = ", ".join(_c(w) for w in h.shared)
        return (
            f" The defined tool closest to it by what it does is {_c(h.closest)} "
            f"(its definition speaks of {said})."
        )
    return f" The defined tool closest to it by name is {_c(h.closest)}."


def _hallucination_advice(loc: Locator, h: Hallucination) -> tuple[str, tuple[str, int]]:
    """What to change so the model calls a real tool, from what the system prompt says, and where."""
    closest = _closest_text(h)
    prompt = loc.system_prompt(h.case_refs)
    if not prompt:
        return (
            f"If the prompt mentions {_c(h.name)}, name the real tool instead; list the available "
            f"tools by their exact names in the system prompt.{closest}"
        ), loc.prompt(h.case_refs)
    if mentions(prompt, h.name):
        return (
            f"The system prompt mentions {_c(h.name)}: name the real tool there instead.{closest}",
            loc.prompt(h.case_refs),
        )
    tools = loc.suite_tools(h.case_refs)
    unnamed = [t for t in tools if not mentions(prompt, t)]
    if unnamed:
        return (
            f"The system prompt does not mention it, nor {', '.join(_c(t) for t in unnamed[:5])}: list the "
            f"available tools by their exact names in it.{closest}"
        ), loc.prompt(h.case_refs)
    request = loc.request(h.case_refs)
    example = f" (e.g. {request})" if request else ""
    examples = request or "these cases' requests"
    if h.closest is None:
        advice = "say in the description of the tool it needed that it is the tool for such requests"
    elif says_when(loc.description(h.closest, h.case_refs)):
        advice = (
            f"{_c(h.closest)}'s description already says when to use it: add requests like "
            f"{examples} to it as examples of when it must be called"
        )
    else:
        advice = f"say in {_c(h.closest)}'s description that it is the tool for such requests{example}"
    return (
        f"The system prompt does not mention it and already names every defined tool: {advice}.{closest}",
        loc.tool_or_prompt(h.closest, h.case_refs),
    )


def hallucination_recommendations(
    loc: Locator, hallucinated: Sequence[Hallucination]
) -> list[Recommendation]:
    recs: list[Recommendation] = []
    for h in hallucinated:
        advice, where = _hallucination_advice(loc, h)
        message = (
            f"The agent called {_c(h.name)}, which is not defined, in {plural(h.cases, 'case')}. {advice}"
        )
        recs += _rec("hallucinated_tool", message, where, h.name, None, h.case_refs, h.cases * 3)
    return recs


# --- patterns of one tool, patterns of the prompt ------------------------------------------------

_TOOL_PATTERNS = {
    "missing_call": "{tool} was not called in {n} where it should have been: say in its "
    "description when it must be called (the situations and the user requests that need it).",
    "extra_call": "{tool} was called without being expected in {n}: say in its description "
    "when it must not be called.",
    "forbidden_call": "{tool} was called although the case forbids it in {n}: say in its "
    "description what it must not be used for.",
    "wrong_count": "{tool} was called the wrong number of times in {n}: say in its "
    "description whether one call covers several items or one call is needed per item.",
    "invalid_arguments": "{tool} received arguments that are not valid JSON in {n}: "
    "simplify its parameters (fewer, flatter, shorter) and give an example call.",
}
_UNDESCRIBED = (
    "{tool} has no description, and it {what} in {n}: write one that says when it must be called "
    "and when not."
)
_UNDESCRIBED_WHAT = {
    "missing_call": "was not called where it should have been",
    "extra_call": "was called without being expected",
    "forbidden_call": "was called although the case forbids it",
    "wrong_count": "was called the wrong number of times",
}
_PROMPT_PATTERNS = {
    "order_violation": "The calls came in the wrong order in {n}: state the required order of steps "
    "in the system prompt.",
    "over_call_budget": "The agent exceeded the call budget in {n}: tell it in the system prompt "
    "to stop calling tools once it has what it needs, and to batch requests where a tool allows it.",
    "output_check_failed": "The final answer failed its checks in {n}: say in the system prompt "
    "what the answer must contain and in what form.",
}


def _explained_by_confusion(reason: str, tool: str, confusion: Sequence[Confusion]) -> set[str]:
    """The cases where ``tool``'s missing (or extra) call is already explained as a confusion."""
    if reason == "missing_call":
        return {r for c in confusion if c.expected == tool and c.called for r in c.case_refs}
    if reason == "extra_call":
        return {r for c in confusion if c.called == tool and c.expected for r in c.case_refs}
    return set()


def _tool_pattern_message(loc: Locator, reason: str, tool: str, refs: Sequence[str]) -> str:
    cases = plural(len(refs), "case")
    description = loc.description(tool, refs)
    if reason in _UNDESCRIBED_WHAT and tool in loc.tools and not description.strip():
        return _UNDESCRIBED.format(tool=_c(tool), what=_UNDESCRIBED_WHAT[reason], n=cases)
    told = {"missing_call": says_when, "extra_call": says_when_not, "forbidden_call": says_when_not}.get(
        reason
    )
    if told is not None and told(description):
        when = "when to use it" if reason == "missing_call" else "when not to use it"
        must = "must" if reason == "missing_call" else "must not"
        examples = loc.request(refs) or "these cases' requests"
        return (
            f"{_c(tool)} {_UNDESCRIBED_WHAT[reason]} in {cases}, although its description already says "
            f"{when}: add requests like {examples} to it as examples of when it {must} be called."
        )
    return _TOOL_PATTERNS[reason].format(tool=_c(tool), n=cases)


def tool_pattern_recommendations(
    loc: Locator,
    by_reason: dict[str, dict[str | None, list[str]]],
    confusion: Sequence[Confusion],
    hallucinated: set[str],
) -> list[Recommendation]:
    recs: list[Recommendation] = []
    for reason in _TOOL_PATTERNS:
        for tool, refs in sorted(
            by_reason.get(reason, {}).items(), key=lambda kv: (-len(kv[1]), kv[0] or "")
        ):
            if not tool or tool in hallucinated or (reason == "extra_call" and tool not in loc.tools):
                continue
            explained = _explained_by_confusion(reason, tool, confusion)
            kept = [r for r in refs if r not in explained]
            if kept:
                message = _tool_pattern_message(loc, reason, tool, kept)
                recs += _rec(reason, message, loc.tool_or_prompt(tool, kept), tool, None, kept, len(kept) * 2)
    return recs


def prompt_pattern_recommendations(
    loc: Locator, by_reason: dict[str, dict[str | None, list[str]]], clarification_refs: Sequence[str]
) -> list[Recommendation]:
    recs: list[Recommendation] = []
    for reason, template in _PROMPT_PATTERNS.items():
        refs = sorted({r for tool_refs in by_reason.get(reason, {}).values() for r in tool_refs})
        if refs:
            message = template.format(n=plural(len(refs), "case"))
            recs += _rec(reason, message, loc.prompt(refs), None, None, refs, len(refs))
    if clarification_refs:
        message = (
            f"The agent did not handle missing information as expected in "
            f"{plural(len(clarification_refs), 'case')}: tell it in the system prompt to ask the user "
            "for what it lacks instead of guessing (and not to ask when it has everything)."
        )
        where = loc.prompt(clarification_refs)
        recs += _rec(
            "no_clarification", message, where, None, None, clarification_refs, len(clarification_refs) * 2
        )
    return recs


# --- all of them ---------------------------------------------------------------------------------


def merged(recs: Iterable[Recommendation]) -> tuple[Recommendation, ...]:
    """Recommendations of the same pattern pointing at the same place as one (cases joined, severities
    added), most severe first."""
    by_key: dict[tuple[str, str, int, str | None, str | None], Recommendation] = {}
    for r in recs:
        key = (r.pattern, r.file, r.line, r.tool, r.argument)
        old = by_key.get(key)
        if old is None:
            by_key[key] = r
        else:
            cases = tuple(dict.fromkeys(old.cases + r.cases))
            by_key[key] = Recommendation(
                old.pattern,
                old.message,
                old.file,
                old.line,
                old.tool,
                old.argument,
                cases,
                old.severity + r.severity,
            )
    return tuple(
        sorted(
            by_key.values(),
            key=lambda r: (-r.severity, r.pattern, r.file, r.line, r.tool or "", r.argument or ""),
        )
    )


def recommend(
    results: RunResults,
    failed: Sequence[FailedCase],
    confusion: Sequence[Confusion],
    arguments: Sequence[ArgumentFailure],
    hallucinated: Sequence[Hallucination],
) -> tuple[Recommendation, ...]:
    """Every recommendation the failure patterns of the ``failed`` cases call for, most severe first."""
    loc = Locator(results, failed)
    invented = {h.name for h in hallucinated}
    by_reason: dict[str, dict[str | None, list[str]]] = defaultdict(dict)
    for (reason, tool), refs in pattern_refs(failed).items():
        by_reason[reason][tool] = refs
    clarification = [case.ref for case in failed if case.clarification_failed]
    return merged(
        [
            *confusion_recommendations(loc, confusion, invented),
            *argument_recommendations(loc, arguments),
            *hallucination_recommendations(loc, hallucinated),
            *tool_pattern_recommendations(loc, by_reason, confusion, invented),
            *prompt_pattern_recommendations(loc, by_reason, clarification),
        ]
    )
