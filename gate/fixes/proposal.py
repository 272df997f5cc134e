"""The one request that asks the fix model for replacement texts of a definition, and its answer read.

The fix model gets the text to replace (and the whole definition it belongs to: the tool with its
parameters and the other tools beside it, or the whole system prompt), the advice that implicates
it, the failing cases' transcripts in short and a few passing cases that use the same tool, and the
rules a replacement must follow (the ones the gate checks afterwards: no case's values or requests
copied in, nothing but that text, what its literal can hold). It answers through a forced tool call
with up to N texts. Pure: the runner sends it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.fixes.spans import Span
from gate.results.outcomes import CaseResult, TrialResult
from gate.suite.model import Suite, ToolDef
from gate.util.escape import json_text, truncate
from gate.util.json_types import JsonObject

TOOL_NAME = "propose_replacements"
MAX_FAILING = 5  # failing cases shown to the fix model
MAX_PASSING = 3  # passing cases that use the same tool
MAX_CASE_CHARS = 1_500  # one case, condensed

_SYSTEM = (
    "You improve the wording of one definition that an AI agent reads before it decides which tool to "
    "call and how. You are shown the text to replace, the definition it belongs to, the cases where the "
    "agent failed with it, cases where it succeeded, and an analysis of the failures. Propose "
    "replacement texts for exactly that text, each a complete alternative, the most promising first.\n"
    "Rules: write only the replacement of that text, never the rest of the definition (no JSON, no "
    "names or parameters of it, no other paragraph); describe when and how the tool is used in general "
    "terms: never copy a case's particular values (names, places, numbers, identifiers) or quote a "
    "user's request; keep what the passing cases rely on. Answer by calling "
    f"{TOOL_NAME}."
)
_KIND_WORDS = {
    "tool_description": "the description of the tool `{tool}`",
    "parameter_description": "the description of the parameter `{argument}` of the tool `{tool}`",
    "prompt_paragraph": "a paragraph of the system prompt ({file})",
}


@dataclass(frozen=True)
class Proposal:
    """The request's parts: its system and user text and the forced tool's parameter schema."""

    system: str
    user: str
    tool_description: str
    tool_parameters: JsonObject


def proposal(
    span: Span,
    suite: Suite,
    advice: Sequence[str],
    failing: Sequence[CaseResult],
    passing: Sequence[CaseResult],
    count: int,
) -> Proposal:
    """The request for up to ``count`` replacement texts of ``span`` (a definition of ``suite``)."""
    what = _KIND_WORDS[span.kind].format(tool=span.tool, argument=span.argument, file=span.file)
    parts = [
        f"## The text to replace: {what}",
        _fenced(span.text.strip()),
        *_definition(span, suite),
        "## What the analysis of the failures says",
        *(f"- {line}" for line in advice),
        f"## Cases that failed ({min(len(failing), MAX_FAILING)} of {len(failing)})",
        *(_case_text(case, "failed") for case in failing[:MAX_FAILING]),
    ]
    if passing:
        parts += ["## Cases that passed with the current text", *(_case_text(c, "passed") for c in passing)]
    parts += [f"## Your answer\nPropose up to {count} replacement texts of {what}.{_constraint(span)}"]
    return Proposal(
        _SYSTEM,
        "\n\n".join(parts),
        "Propose replacement texts for the definition, most promising first.",
        {
            "type": "object",
            "properties": {
                "candidates": {
                    "type": "array",
                    "maxItems": count,
                    "items": {
                        "type": "object",
                        "properties": {
                            "text": {"type": "string", "description": "the whole replacement text"},
                            "why": {"type": "string", "description": "what it changes, in one sentence"},
                        },
                        "required": ["text"],
                    },
                }
            },
            "required": ["candidates"],
        },
    )


def _fenced(text: str) -> str:
    return f"<<<\n{text}\n>>>"


def _definition(span: Span, suite: Suite) -> list[str]:
    if span.kind == "prompt_paragraph":
        prompt = suite.agent.system_prompt
        return ["## The whole system prompt", _fenced(prompt.template if prompt is not None else "")]
    tool = suite.tool(span.tool or "")
    others = [t for t in suite.agent.tools if t.name != span.tool]
    out = ["## The tool it belongs to", _fenced(json_text(_shown(tool)) if tool is not None else "")]
    if others:
        out += ["## The other tools the agent has", "\n".join(f"- {t.name}: {t.description}" for t in others)]
    return out


def _shown(tool: ToolDef) -> JsonObject:
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def _constraint(span: Span) -> str:
    """What the span's literal can hold, said to the model (the gate refuses the rest)."""
    if span.encoding != "code":
        return ""
    quote = span.style
    lines = "" if len(quote) == 3 or quote == "`" else " on one line,"
    where = f"inside {quote}...{quote}"
    return f" It is written in source code {where}: write it{lines} without backslashes or {quote[0]}."


def _first(case: CaseResult, status: str) -> TrialResult | None:
    return next((t for t in case.trials if t.status == status), case.trials[0] if case.trials else None)


def _case_text(case: CaseResult, status: str) -> str:
    trial = _first(case, status)
    lines = [f"### Case {case.case_id} ({status})"]
    if trial is not None:
        lines.append(f"The user said: {json_text(trial.record.input)}")
    calls = _expected_calls(case.expected)
    if calls:
        lines.append(f"Expected calls: {calls}")
    if trial is not None:
        made = "; ".join(f"{c.name}({c.raw_arguments})" for c in trial.record.calls) or "no tool"
        lines.append(f"The agent called: {made}")
        if trial.record.output:
            lines.append(f"Its answer: {json_text(trial.record.output)}")
        if status == "failed":
            lines += [f"Why it failed: {f.reason}: {f.message}" for f in trial.failures[:5]]
    return truncate("\n".join(lines), MAX_CASE_CHARS)


def _expected_calls(expected: Mapping[str, object]) -> str:
    calls = expected.get("calls")
    if not isinstance(calls, list):
        return ""
    return "; ".join(
        f"{c.get('tool')}({json_text(c.get('args')) if c.get('args') is not None else 'any arguments'})"
        for c in calls
        if isinstance(c, dict)
    )


def candidates(arguments: JsonObject, count: int) -> tuple[str, ...]:
    """The replacement texts of the fix model's answer: at most ``count``, each once, in its order;
    anything that is not a non-empty text is passed over (the screening reads the rest)."""
    found: list[str] = []
    items = arguments.get("candidates")
    for item in items if isinstance(items, list) else ():
        text = item.get("text") if isinstance(item, dict) else item
        if isinstance(text, str) and text.strip() and text not in found:
            found.append(text)
    return tuple(found[:count])


__all__ = ["TOOL_NAME", "Proposal", "candidates", "proposal"]
