"""Where a tool whose definition lives in code is written: its description, its name, its parameters,
found by their text in the repository's source files (:mod:`gate.util.source_text`).

Tools that an MCP server lists (or that an agent program offers the model) arrive as JSON, without a
file or line. Recommendations and review comments must still point at the line a developer edits:
the docstring or string that holds the description, the parameter's description (or its name near
the tool). A tool is placed at the line that names it before its description (``def get_weather(``,
``server.tool("get_weather", ...``); its description at the first line of the text; each parameter at
its description's line in the same file, else at the nearest line naming it. A tool whose text is
found nowhere stays where the suite names its source (``fallback``).

Every tool of a listing is placed in one search of the repository (its cost does not grow with the
number of tools times the number of files). Pure: the source files come in as texts
(``gate.files.source_files`` reads them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gate.suite.model import Source, ToolDef
from gate.util.source_text import Place, SourceIndex

NAME_WINDOW = 60  # lines between a tool's name and its description, or a parameter and its tool


def place_tools(
    tools: Sequence[ToolDef], sources: Mapping[str, str], order: Sequence[str], fallback: Source
) -> tuple[ToolDef, ...]:
    """``tools`` with the file and lines where each definition is written (``fallback`` when
    unknown)."""
    index = SourceIndex(sources, order)
    described = index.find([tool.description if tool.description.strip() else "" for tool in tools])
    anchors: list[Place | None] = []
    for tool, place in zip(tools, described, strict=True):
        if place is None:
            anchors.append(index.first_naming(tool.name, order))
        else:
            name_line = index.word_line(tool.name, place.path, place.line, NAME_WINDOW, before=True)
            anchors.append(Place(place.path, name_line or place.line))
    wanted = [
        (number, name, description)
        for number, (tool, anchor) in enumerate(zip(tools, anchors, strict=True))
        if anchor is not None
        for name, description in _parameters(tool.parameters)
    ]
    near = index.find_near(
        [(d if isinstance(d, str) else "", anchors[n] or Place("", 0)) for n, _, d in wanted]
    )
    lines: dict[int, dict[str, int]] = {}
    for (number, name, _), place in zip(wanted, near, strict=True):
        anchor = anchors[number]
        assert anchor is not None
        line = place.line if place is not None else None
        line = line or index.word_line(name, anchor.path, anchor.line, NAME_WINDOW, declared=True)
        line = line or index.word_line(name, anchor.path, anchor.line, NAME_WINDOW)
        if line is not None:
            lines.setdefault(number, {})[name] = line
    return tuple(
        _placed(tool, place, anchor, lines.get(number, {}), fallback)
        for number, (tool, place, anchor) in enumerate(zip(tools, described, anchors, strict=True))
    )


def _placed(
    tool: ToolDef, described: Place | None, anchor: Place | None, parameters: dict[str, int], fallback: Source
) -> ToolDef:
    if anchor is None:
        return replace(tool, source=fallback, description_line=0, parameter_lines={})
    return replace(
        tool,
        source=Source(anchor.path, anchor.line, 1),
        description_line=described.line if described is not None else 0,
        parameter_lines=parameters,
    )


def _parameters(parameters: Any) -> list[tuple[str, Any]]:
    """(name, description) of each property of a parameter schema."""
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    if not isinstance(properties, dict):
        return []
    return [
        (str(name), schema.get("description") if isinstance(schema, dict) else None)
        for name, schema in properties.items()
    ]
