"""Which definitions a fix may reword, and for which failing cases: read from the run's conclusion.

The failing cases a wording can fix are the failed gating cases whose failed trials show only what
a model reading other words could do differently (a wrong or missing call, a wrong argument, an
answer that fails its checks...). A case that could not be evaluated, or failed because a reply was
cut at its token limit, the agent program crashed, the latency budget or the run's own budget was
exceeded, or the judge gave no verdict, is left alone, with the reason said.

Each piece of advice (the changed lines that regressions are traced to first, then the analysis's
recommendations, most severe first) implicates a definition: a tool's description, a parameter's
description when it has one, or a paragraph of the system prompt file; advice about something else
(a suite file, an inline prompt, a tool the model invented) implicates none. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from gate.analysis.analyse import Recommendation
from gate.results.fixes import SkippedCase, SpanKind
from gate.results.outcomes import CaseResult, RunResults, ToolInfo
from gate.suite.model import Source, Suite, ToolDef
from gate.util.escape import truncate
from gate.util.wording import mentions
from gate.verdict.conclusion import Conclusion

MAX_DEFINITIONS = 3  # definitions one search tries, in the order their advice comes
# Failures no rewording fixes: the trial was not a fair reading of the words.
UNFIXABLE = {
    "agent_crashed": "the agent program crashed",
    "latency_exceeded": "the latency budget was exceeded",
    "provider_error": "the provider failed",
    "reply_cut": "a reply was cut at its token limit",
    "judge_failed": "the judge gave no verdict",
}
_UNFIXABLE_STOPS = {
    "max_tokens": "a reply was cut at its token limit",
    "budget": "the run's request or cost budget was exceeded",
    "agent_crashed": "the agent program crashed",
    "provider_error": "the provider failed",
}


@dataclass(frozen=True)
class Target:
    """A definition the advice implicates: in ``file`` near ``line``, ``tool``'s description (or its
    ``argument``'s), or the system prompt paragraph at ``line``; the failing cases it should fix
    (``"<suite>/<case id>"``) and the advice, as the analysis wrote it."""

    kind: SpanKind
    file: str
    line: int
    tool: str | None
    argument: str | None
    cases: tuple[str, ...]
    advice: str
    text: str  # the definition's text as the model was shown it ("" for a paragraph: read from the file)

    @property
    def suites(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(ref.split("/", 1)[0] for ref in self.cases))


@dataclass(frozen=True)
class Targets:
    definitions: tuple[Target, ...]
    skipped_cases: tuple[SkippedCase, ...]


def unfixable(case: CaseResult) -> str:
    """Why no rewording can fix the case ("" when one may)."""
    if case.status == "error":
        error = next((t.record.error for t in case.trials if t.record.error), "") or "could not be evaluated"
        return "it could not be evaluated: " + truncate(" ".join(error.split()), 160, brief=True)
    for trial in case.trials:
        if trial.status != "failed":
            continue
        if trial.record.stop_reason in _UNFIXABLE_STOPS:
            return _UNFIXABLE_STOPS[trial.record.stop_reason]
        for failure in trial.failures:
            if failure.reason in UNFIXABLE:
                return UNFIXABLE[failure.reason]
    return ""


def find_targets(conclusion: Conclusion, suites: Sequence[Suite]) -> Targets:
    """The definitions to reword, in the order of the advice, and the failed or errored gating cases
    left alone (with why)."""
    by_name = {s.name: with_offered(s, conclusion.results) for s in suites}
    fixable: set[str] = set()
    skipped: list[SkippedCase] = []
    for suite in conclusion.results.suites:
        for case in suite.cases:
            if case.non_gating is not None or case.status not in ("failed", "error"):
                continue
            why = unfixable(case)
            if why:
                skipped.append(SkippedCase(suite.name, case.case_id, why))
            else:
                fixable.add(f"{suite.name}/{case.case_id}")
    found: list[Target] = []
    for advice in conclusion.advice:
        cases = tuple(ref for ref in advice.cases if ref in fixable)
        defined = by_name.get(cases[0].split("/", 1)[0]) if cases else None
        target = (
            _target(advice, cases, defined, _changed(conclusion.results)) if defined is not None else None
        )
        if target is not None and not any(_same(target, t) for t in found):
            found.append(target)
    return Targets(tuple(found), tuple(skipped))


def with_offered(suite: Suite, results: RunResults) -> Suite:
    """``suite`` with the definitions an agent program showed the model, as the run placed them in the
    program's source (the results' tools of the suite): the tools it offered beside the suite's own,
    and, where the results place one of the suite's tools elsewhere or with another text, the
    program's definition of it in place of the suite's copy. A rewording of such a definition reaches
    the model through the program's requests (``gate.fixes.apply.reword_body``); the suite the run
    uses is not changed by this."""
    if suite.agent.program is None:
        return suite
    shown = {
        info.name: info
        for result in results.suites
        if result.name == suite.name
        for info in result.tools
        if info.file
    }
    tools = [_shown(tool, shown.pop(tool.name, None)) for tool in suite.agent.tools]
    tools += [_shown(None, info) for info in shown.values()]
    return replace(suite, agent=replace(suite.agent, tools=tuple(t for t in tools if t is not None)))


def _shown(tool: ToolDef | None, info: ToolInfo | None) -> ToolDef | None:
    """The suite's ``tool``, or the definition the results hold of it (``info``) where that is another."""
    if info is None or (
        tool is not None and (tool.source.path, tool.description) == (info.file, info.description)
    ):
        return tool
    return ToolDef(
        name=info.name,
        description=info.description,
        parameters=info.parameters if info.parameters is not None else tool.parameters if tool else {},
        source=Source(info.file, info.line),
        description_line=info.description_line,
        parameter_lines=dict(info.parameter_lines),
    )


def _same(a: Target, b: Target) -> bool:
    return (a.kind, a.file, a.tool, a.argument) == (b.kind, b.file, b.tool, b.argument) and (
        a.kind != "prompt_paragraph" or a.line == b.line
    )


def _changed(results: RunResults) -> Mapping[str, tuple[int, ...]]:
    record = results.settings.baseline
    return record.changed_lines if record is not None else {}


def _target(
    advice: Recommendation, cases: tuple[str, ...], suite: Suite, changed: Mapping[str, tuple[int, ...]]
) -> Target | None:
    tool = _tool_at(suite, advice)
    if tool is not None:
        argument = advice.argument if _described(tool, advice.argument) else None
        if argument is not None:
            line = tool.parameter_lines.get(argument, tool.description_line or tool.source.line)
            kind: SpanKind = "parameter_description"
            text = str(tool.parameters["properties"][argument]["description"])
        else:
            line, kind, text = tool.description_line or tool.source.line, "tool_description", tool.description
        return Target(kind, tool.source.path, line, tool.name, argument, cases, advice.message, text)
    prompt = suite.agent.system_prompt
    if prompt is None or not prompt.from_file or advice.file != prompt.source.path:
        return None
    line = _prompt_line(prompt.template, advice, changed.get(prompt.source.path, ()))
    return Target("prompt_paragraph", prompt.source.path, line, None, None, cases, advice.message, "")


def _tool_at(suite: Suite, advice: Recommendation) -> ToolDef | None:
    """The suite's tool the advice is about: the one it names, defined where it points; for a changed
    line that regressions are traced to (or a tool the model invented), the tool whose description is
    written on the line it points at."""
    tool = suite.tool(advice.tool) if advice.tool is not None else None
    if tool is not None:
        return tool if tool.source.path == advice.file else None
    return next(
        (t for t in suite.agent.tools if t.source.path == advice.file and t.description_line == advice.line),
        None,
    )


def _described(tool: ToolDef, argument: str | None) -> bool:
    """Whether ``argument`` is a parameter of ``tool`` that has a description of its own."""
    properties = tool.parameters.get("properties") if argument else None
    schema = properties.get(argument) if isinstance(properties, dict) else None
    return (
        isinstance(schema, dict)
        and isinstance(schema.get("description"), str)
        and bool(schema["description"].strip())
    )


def _prompt_line(template: str, advice: Recommendation, changed: Sequence[int]) -> int:
    """The line of the prompt paragraph the advice is about: the changed line it points at; else the
    first paragraph that names the tool it is about; else the first line the change touched; else
    the line it points at."""
    if advice.line in changed:
        return advice.line
    if advice.tool:
        for number, text in enumerate(template.splitlines(), 1):
            if mentions(text, advice.tool):
                return number
    return changed[0] if changed else advice.line


__all__ = ["MAX_DEFINITIONS", "Target", "Targets", "find_targets", "unfixable", "with_offered"]
