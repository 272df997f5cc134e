"""The suites whose tools come from MCP servers, with the tools the servers list.

``run`` loads every suite offline first (as ``validate`` does), decides which suites and cases it
evaluates (``--changed-since``, ``--case``, ``--tag``, ``--shard``) and whether it may start their
commands (:mod:`gate.trust.decision`); only then are the servers of the suites it runs started, and
those suites read again with their tools, so that every check of a tool file (the expectations and
mocks against the tools' schemas, unknown tools) holds for the listed tools too. The base side of
``--baseline auto`` starts the merge base's own servers, from the merge base's tree; a base suite
whose server fails has no base side (as a base suite that does not load), and its regressions cannot
be told: a run that judges regressions is then not decided by it (``gate.verdict.policy``).
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Sequence
from pathlib import Path

from gate.errors import GateError, InputError, Problem
from gate.files.source_files import read_sources
from gate.files.suite_loader import load_suites
from gate.run.base_side import BaseSide
from gate.suite.model import Suite
from gate.tool_servers.listing import list_server_tools
from gate.util.escape import truncate
from gate.util.source_text import SourceIndex


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


class _Texts:
    """The source files of the base tree and of the working tree, read once when first needed."""

    def __init__(self, base_root: Path, head_root: Path):
        self.roots = (base_root, head_root)
        self._indexes: tuple[SourceIndex, SourceIndex] | None = None

    def _both(self) -> tuple[SourceIndex, SourceIndex]:
        if self._indexes is None:
            base, head = (read_sources(r, r.resolve(), ()) for r in self.roots)
            self._indexes = (SourceIndex(base.texts), SourceIndex(head.texts))
        return self._indexes

    def of_the_head(self, listed: Suite) -> str:
        """Why the merge base's servers of ``listed`` (a base suite) did not serve the merge base's
        definitions ("" when nothing says so): a tool description that the working tree's files write
        and the base tree's do not. A server runs with the job's installs, and an editable install, a
        workspace package or a path into the checkout hands it the pull request's code: the two sides
        would then show the model the same definitions, and the pull request's change would never
        be a regression. A description neither tree writes (built at run time) cannot be told."""
        served = {name for server in listed.agent.tool_servers if server.command for name in server.tools}
        for tool in listed.agent.tools:
            if tool.name not in served or not tool.description.strip():
                continue
            base, head = self._both()
            if base.find([tool.description])[0] is None and head.find([tool.description])[0] is not None:
                return (
                    f"the MCP server of {listed.path} at the merge base listed {tool.name} with the "
                    f"description the pull request's files write ({truncate(tool.description, 80)!r}), "
                    "which no file of the merge base holds: it read the checkout's files (an editable "
                    "install, a workspace package, a path into the checkout), so it is no base side"
                )
        return ""


def base_with_listed_tools(side: BaseSide, head_root: Path) -> BaseSide:
    """The base side with the tools the merge base's servers list; a base suite whose server fails,
    lists invalid tools or lists the pull request's definitions (it read the head's files) is left
    without a base side, the reason among the side's problems."""
    root = Path(side.directory.name)
    kept: list[Suite] = []
    without, failed = list(side.without_base), list(side.failed)
    problems = list(side.problems)
    texts = _Texts(root, head_root)
    for suite in side.suites:
        try:
            [listed] = with_listed_tools([suite], root)
            read_the_head = texts.of_the_head(listed)
            if read_the_head:
                raise InputError(read_the_head)
            kept.append(listed)
        except GateError as exc:
            without.append(suite.name)
            failed.append(suite.name)
            problems.append(f"base {side.commit[:12]}: {exc}")
    return dataclasses.replace(
        side, suites=tuple(kept), without_base=tuple(without), problems=tuple(problems), failed=tuple(failed)
    )
