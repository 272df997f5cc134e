"""The suites whose tools come from MCP servers, with the tools the servers list.

``run`` loads every suite offline first (as ``validate`` does), decides which suites and cases it
evaluates (``--changed-since``, ``--case``, ``--tag``, ``--shard``) and whether it may start their
commands (:mod:`gate.trust.decision`); only then are the servers of the suites it runs started, and
those suites read again with their tools, so that every check of a tool file (the expectations and
mocks against the tools' schemas, unknown tools) holds for the listed tools too. The base side of
``--baseline auto`` starts the merge base's own servers, from the merge base's tree; a base suite
whose server fails has no base side (as a base suite that does not load).
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Sequence
from pathlib import Path

from gate.errors import GateError, InputError, Problem
from gate.files.suite_loader import load_suites
from gate.run.base_side import BaseSide
from gate.suite.model import Suite
from gate.tool_servers.listing import list_server_tools


def _require_sdk(suites: Sequence[Suite]) -> None:
    if importlib.util.find_spec("mcp") is None:
        where = suites[0].agent.tool_servers[0].source
        raise InputError(
            [
                Problem(
                    where.path,
                    where.line,
                    where.column,
                    "this suite takes its tools from an MCP server, and the mcp package is not installed",
                    "pip install 'tool-eval-gate[mcp]' (or 'tool-eval-gate[all]')",
                )
            ]
        )


def _reloaded(suites: Sequence[Suite], root: Path) -> dict[str, Suite]:
    """The suites with MCP servers, read again with their servers' tools (path -> suite); the problems
    of the listed tools are invalid input (exit 2), a server that fails stops the run (exit 3)."""
    serving = [s for s in suites if s.agent.tool_servers]
    if not serving:
        return {}
    _require_sdk(serving)
    loaded = load_suites([root / s.path for s in serving], root=root, lister=list_server_tools)
    if loaded.problems:
        raise InputError(list(loaded.problems))
    return {s.path: s for s in loaded.suites}


def _as_selected(listed: Suite, offline: Suite) -> Suite:
    """``listed`` with only the cases selected in ``offline`` (the run's selection and shard)."""
    chosen = {case.id for case in offline.cases}
    return dataclasses.replace(listed, cases=tuple(c for c in listed.cases if c.id in chosen))


def with_listed_tools(suites: Sequence[Suite], root: Path) -> list[Suite]:
    """``suites`` (loaded offline) with the tools their MCP servers list."""
    listed = _reloaded(suites, root)
    return [_as_selected(listed[s.path], s) if s.path in listed else s for s in suites]


def base_with_listed_tools(side: BaseSide) -> BaseSide:
    """The base side with the tools the merge base's servers list; a base suite whose server fails or
    lists invalid tools is left without a base side, the reason among the side's problems."""
    root = Path(side.directory.name)
    kept: list[Suite] = []
    without = list(side.without_base)
    problems = list(side.problems)
    for suite in side.suites:
        try:
            kept += with_listed_tools([suite], root)
        except GateError as exc:
            without.append(suite.name)
            problems.append(f"base {side.commit[:12]}: {exc}")
    return dataclasses.replace(
        side, suites=tuple(kept), without_base=tuple(without), problems=tuple(problems)
    )
