"""The tools of an MCP server entry (``tools: [{mcp: ...}]``) as the suite loader sees them.

Offline (``validate``, or ``run`` before it decides which suites to start) the server is not started:
its tools are unknown, so names the suite uses that the server may define are not errors, and a note
says that the tool list comes from the server. When the loader is given a :class:`ToolLister` (``run``
with commands allowed), the server's ``tools/list`` is read and each tool is parsed and checked exactly
as a tool file's (an invalid one is a problem at the suite's ``mcp`` entry naming the server), then
placed at the lines of the repository's source that hold its description and parameters
(:mod:`gate.assembly.tool_sources`).

Files named in the server's argv and inside the repository are the suite's dependencies: a change to
the server's script triggers the suite under ``--changed-since``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from gate.assembly.suite_builder import ToolFile
from gate.assembly.tool_formats import MCP_KEYS, parse_tools
from gate.assembly.tool_sources import place_tools
from gate.errors import Problem
from gate.files.discovery import inside
from gate.files.source_files import Sources, glob_files, read_sources
from gate.suite.model import ToolServer
from gate.util.json_types import PathKey


class ToolLister(Protocol):
    """Starts (or reaches) a server and returns the tools its ``tools/list`` gave, every page, as JSON
    objects; raises a :class:`gate.errors.GateError` naming the server when it cannot."""

    def __call__(self, server: ToolServer) -> Sequence[Any]: ...


def offline_note(server: ToolServer) -> str:
    """What ``validate`` says of a server entry: it was not started."""
    return (
        f"{server.source.path}:{server.source.line}:{server.source.column}: note: the tools of this entry "
        f"come from the MCP server {server.label} when the suite runs (run --allow-commands); validate "
        "does not start it, so the tool names the suite uses are checked then"
        if server.command
        else f"{server.source.path}:{server.source.line}:{server.source.column}: note: the tools of this "
        f"entry come from the MCP server at {server.url} when the suite runs; validate does not reach it, "
        "so the tool names the suite uses are checked then"
    )


def argv_files(root: Path, real_root: Path, command: Sequence[str]) -> list[str]:
    """The files inside the repository that the server's argv names (relative to the root)."""
    found: list[str] = []
    for word in command:
        if not word or word.startswith("-") or "\0" in word or os.path.isabs(word):
            continue
        path = Path(os.path.normpath(root / word))
        try:
            if path.is_file() and inside(path, root) and inside(path.resolve(), real_root):
                found.append(path.relative_to(root).as_posix())
        except (OSError, ValueError):
            continue
    return found


@dataclass(frozen=True)
class _AtEntry:
    """Positions for parsing listed tools: every problem sits at the suite's ``mcp`` entry."""

    path: str
    line: int
    column: int

    def position(self, path: PathKey) -> tuple[int, int]:
        return self.line, self.column

    def key_position(self, path: PathKey) -> tuple[int, int]:
        return self.line, self.column


def listed_tools(server: ToolServer, items: Sequence[Any], sources: Sources) -> ToolFile:
    """The tools of a ``tools/list`` result, checked as a tool file's, each placed in the source."""
    kept = [
        {k: v for k, v in item.items() if k in MCP_KEYS} if isinstance(item, dict) else item for item in items
    ]
    at = _AtEntry(server.source.path, server.source.line, server.source.column)
    tools, problems = parse_tools(kept, at)
    named = [
        replace(p, message=f"the MCP server {server.label} lists an invalid tool: {p.message}")
        for p in problems
    ]
    names = frozenset(
        str(item["name"]) for item in kept if isinstance(item, dict) and isinstance(item.get("name"), str)
    )
    placed = place_tools(tools, sources.texts, sources.first, server.source)
    return ToolFile(placed, tuple(named), names)


def server_sources(root: Path, real_root: Path, server: ToolServer) -> Sources:
    """The repository's source files, the server's own (``watch`` globs, argv files) first."""
    first = [*glob_files(root, real_root, server.watch), *argv_files(root, real_root, server.command)]
    return read_sources(root, real_root, list(dict.fromkeys(first)))


def no_listing(server: ToolServer) -> Problem:
    """A server that listed no tool at all: the suite would test nothing."""
    return Problem(
        server.source.path,
        server.source.line,
        server.source.column,
        f"the MCP server {server.label} lists no tools",
        "check that the server registers its tools before it answers tools/list",
    )
