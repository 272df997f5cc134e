"""Where a tool whose definition lives in code is written: its description, its name, its parameters,
found by their text in the repository's source files (:mod:`gate.util.source_text`).

Tools that an MCP server lists (or that an agent program offers the model) arrive as JSON, without a
file or line. Recommendations and review comments must still point at the line a developer edits:
the docstring or string that holds the description, the parameter's description (or its name near
the tool). A tool is placed at the line that names it before its description (``def get_weather(``,
``server.tool("get_weather", ...``); its description at the first line of the text; each parameter at
its description's line in the same file, else at the nearest line naming it. A tool whose text is
found nowhere stays where the suite names its source (``fallback``).

Pure: the source files come in as texts (``gate.files.source_files`` reads them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gate.suite.model import Source, ToolDef
from gate.util.source_text import Place, find_text, word_line

NAME_WINDOW = 60  # lines between a tool's name and its description, or a parameter and its tool


def place_tool(tool: ToolDef, sources: Mapping[str, str], order: Sequence[str], fallback: Source) -> ToolDef:
    """``tool`` with the file and lines where its definition is written (``fallback`` when unknown)."""
    described = find_text(tool.description, sources, order) if tool.description.strip() else None
    if described is None:
        named = _name_place(tool.name, sources, order)
        if named is None:
            return replace(tool, source=fallback, description_line=0, parameter_lines={})
        return replace(
            tool,
            source=Source(named.path, named.line, 1),
            description_line=0,
            parameter_lines=_parameter_lines(tool.parameters, sources, named),
        )
    text = sources[described.path]
    name_line = word_line(tool.name, text, described.line, NAME_WINDOW, before=True) or described.line
    anchor = Place(described.path, name_line)
    return replace(
        tool,
        source=Source(described.path, name_line, 1),
        description_line=described.line,
        parameter_lines=_parameter_lines(tool.parameters, sources, anchor),
    )


def _name_place(name: str, sources: Mapping[str, str], order: Sequence[str]) -> Place | None:
    """The first line naming the tool in the files the server is made of (``order``): without its
    description a name found elsewhere in the repository says too little."""
    for path in order:
        if path in sources:
            line = word_line(name, sources[path], 1, 10**9)
            if line is not None:
                return Place(path, line)
    return None


def _parameter_lines(parameters: Any, sources: Mapping[str, str], anchor: Place) -> dict[str, int]:
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    if not isinstance(properties, dict):
        return {}
    text = sources[anchor.path]
    lines: dict[str, int] = {}
    for name, schema in properties.items():
        described = schema.get("description") if isinstance(schema, dict) else None
        own = {anchor.path: text}
        place = find_text(described, own, near=anchor) if isinstance(described, str) else None
        if place is not None:
            lines[name] = place.line
            continue
        line = word_line(str(name), text, anchor.line, NAME_WINDOW, declared=True)
        line = line or word_line(str(name), text, anchor.line, NAME_WINDOW)
        if line is not None:
            lines[name] = line
    return lines
