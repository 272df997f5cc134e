"""A candidate applied in memory: the suite (and an agent program's requests) as if the file said it.

A rewording replaces the text the model was shown, and only where it was shown: a tool's description
(or a parameter's) is replaced in the suite's tool of that name whose text is still the old one, a
prompt paragraph at its place in the prompt's template (the prompt file's text). An agent program
sends its own definitions in its requests (DESIGN.md section 10): the same rewording is applied to
the tools of each request it sends, in the neutral tools and in the body that goes upstream, so the
model is shown exactly what the program would send had its source said the new text. The files are
never written. Pure.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gate.results.fixes import SpanKind
from gate.suite.model import Prompt, Suite, ToolDef


@dataclass(frozen=True)
class Rewording:
    """``old`` (as the model was shown it) becomes ``new``: in ``tool``'s description or its
    ``argument``'s, or, for a prompt paragraph, at offset ``at`` of the prompt file ``file``."""

    kind: SpanKind
    file: str
    old: str
    new: str
    tool: str | None = None
    argument: str | None = None
    at: int = 0


def apply(suite: Suite, rewordings: Sequence[Rewording]) -> Suite:
    """``suite`` with every rewording applied, in order."""
    tools, prompt = suite.agent.tools, suite.agent.system_prompt
    for rewording in rewordings:
        if rewording.kind == "prompt_paragraph":
            prompt = _prompt(prompt, rewording)
        else:
            tools = tuple(_tool(tool, rewording) for tool in tools)
    unchanged = all(a is b for a, b in zip(tools, suite.agent.tools, strict=True))
    if unchanged and prompt is suite.agent.system_prompt:
        return suite  # the same object: the suite does not hold the definition
    return replace(suite, agent=replace(suite.agent, tools=tools, system_prompt=prompt))


def _prompt(prompt: Prompt | None, rewording: Rewording) -> Prompt | None:
    if prompt is None or prompt.source.path != rewording.file:
        return prompt
    template, at, end = prompt.template, rewording.at, rewording.at + len(rewording.old)
    if template[at:end] != rewording.old:
        return prompt
    return replace(prompt, template=template[:at] + rewording.new + template[end:])


def _tool(tool: ToolDef, rewording: Rewording) -> ToolDef:
    if tool.name != rewording.tool:
        return tool
    if rewording.argument is None:
        return replace(tool, description=rewording.new) if tool.description == rewording.old else tool
    parameters = _with_parameter(tool.parameters, rewording)
    return tool if parameters is None else replace(tool, parameters=parameters)


def _with_parameter(schema: Mapping[str, Any], rewording: Rewording) -> dict[str, Any] | None:
    """A copy of the parameter schema with the argument's description reworded; None when the
    argument's description is not the old text."""
    properties = schema.get("properties")
    prop = properties.get(rewording.argument) if isinstance(properties, Mapping) else None
    if not isinstance(prop, Mapping) or prop.get("description") != rewording.old:
        return None
    return {
        **schema,
        "properties": {**properties, rewording.argument: {**prop, "description": rewording.new}},  # type: ignore[dict-item]
    }


def reword_tools(tools: tuple[ToolDef, ...], rewordings: Sequence[Rewording]) -> tuple[ToolDef, ...]:
    """The tools an agent program offered in a request, reworded."""
    for rewording in rewordings:
        if rewording.kind != "prompt_paragraph":
            tools = tuple(_tool(tool, rewording) for tool in tools)
    return tools


def reword_body(body: Mapping[str, Any], rewordings: Sequence[Rewording]) -> dict[str, Any]:
    """An agent program's request body (Chat Completions, Responses or Messages) with its tools
    reworded; the rest as it is."""
    listed = body.get("tools")
    if not isinstance(listed, list) or not any(r.kind != "prompt_paragraph" for r in rewordings):
        return dict(body)
    tools = copy.deepcopy(listed)
    for entry in tools:
        spec = entry.get("function") if isinstance(entry, dict) and "function" in entry else entry
        if not isinstance(spec, dict):
            continue
        for rewording in rewordings:
            if rewording.kind == "prompt_paragraph" or spec.get("name") != rewording.tool:
                continue
            if rewording.argument is None:
                if spec.get("description") == rewording.old:
                    spec["description"] = rewording.new
                continue
            for key in ("parameters", "input_schema", "inputSchema"):
                schema = spec.get(key)
                if isinstance(schema, dict):
                    changed = _with_parameter(schema, rewording)
                    spec[key] = schema if changed is None else changed
    return {**body, "tools": tools}


__all__ = ["Rewording", "apply", "reword_body", "reword_tools"]
