"""The tool definitions an agent program offered its model, read against the program's source (DESIGN
section 10: "The gate sees the model, not the agent", "Where a definition lives").

- ``shown_tools``: a program suite's tools as its results carry them (the reports' advice, the review
  comments, ``--suggest-fixes``): the definitions its requests offered, the first of each name in
  case, trial and request order, each placed at the line of the repository that holds its text (the
  program's own files first: ``watch`` and the files its command names). A definition equal to the
  suite's own keeps the suite's exact place unless the program's code holds its text; a tool the
  suite declares that no request offered stays the suite's.
- ``unshown``: the findings of ``gate.assembly.shown_definitions`` for the run (and its base side):
  the model was shown a definition the program's code does not hold, or the same definition on both
  sides of a change to the code's. They make the run not verified.

The edge of that pure module: it reads the program's files (and, only when a text must be placed
beyond them, the repository's other source files).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gate.assembly.shown_definitions import (
    ProgramCode,
    Unshown,
    not_the_code_s,
    not_verified,
    unchanged_for_the_model,
)
from gate.assembly.tool_sources import place_tools
from gate.files.server_tools import argv_files
from gate.files.source_files import Sources, glob_files, read_sources
from gate.providers.wire_requests import PROGRAM_SOURCE
from gate.results.outcomes import CaseResult, RunResults
from gate.results.run_record import OfferedTool
from gate.suite.model import Source, Suite, ToolDef
from gate.util.source_text import SourceIndex


@dataclass
class _Repository:
    """The program's files read at once, the repository's other source files only when needed."""

    root: Path
    files: tuple[str, ...]
    own: Sources
    _all: Sources | None = field(default=None)

    def everything(self) -> Sources:
        if self._all is None:
            self._all = read_sources(self.root, self.root.resolve(), self.files)
        return self._all


def _repository(suite: Suite, root: Path) -> _Repository:
    program = suite.agent.program
    assert program is not None
    real = root.resolve()
    first = [*glob_files(root, real, program.watch), *argv_files(root, real, program.argv)]
    suite_files = _suite_files(suite)
    files = tuple(f for f in dict.fromkeys(first) if f not in suite_files)
    return _Repository(root, files, read_sources(root, real, files, only_first=True))


def _suite_files(suite: Suite) -> frozenset[str]:
    """The suite file and the files its declared tools come from: the suite's own copies."""
    return frozenset({suite.path, *(t.source.path for t in suite.agent.tools if t.source.path)})


def offered_in(cases: Sequence[CaseResult]) -> tuple[OfferedTool, ...]:
    """Every definition the trials' requests offered, in case, trial and request order."""
    return tuple(tool for case in cases for trial in case.trials for tool in trial.record.offered_tools)


def shown_tools(suite: Suite, cases: Sequence[CaseResult], root: Path) -> tuple[ToolDef, ...]:
    """The program suite's tools as its results carry them (see the module doc). Every offered tool
    is looked for in one search of the program's files, then those to place in one search of the
    files they are in (gate.util.source_text: not one reading of the repository per tool)."""
    first: dict[str, OfferedTool] = {}
    for tool in offered_in(cases):
        first.setdefault(tool.name, tool)
    if not first:
        return suite.agent.tools
    repository = _repository(suite, root)
    program = suite.agent.program
    fallback = (program.source if program is not None else None) or Source(suite.path, 1, 1)
    offered = list(first.values())
    own = repository.own
    in_code = SourceIndex(own.texts, own.first).find([t.description for t in offered])
    shown: dict[str, ToolDef] = {}
    for where, sources in (("own", own), ("everything", None)):
        chosen = [
            ToolDef(t.name, t.description, t.parameters, PROGRAM_SOURCE)
            for t, at in zip(offered, in_code, strict=True)
            if (at is not None) == (where == "own") and (at is not None or _not_the_suite_s(suite, t))
        ]
        if chosen:
            found = sources if sources is not None else repository.everything()
            shown.update((t.name, t) for t in place_tools(chosen, found.texts, found.first, fallback))
    tools = [shown.get(t.name) or suite.tool(t.name) for t in offered]
    return (*(t for t in tools if t is not None), *(t for t in suite.agent.tools if t.name not in first))


def _not_the_suite_s(suite: Suite, tool: OfferedTool) -> bool:
    """Whether the program offered ``tool`` otherwise than its suite declares it (or the suite does not
    declare it): then it is placed by its text; else it is the suite's own definition, at its place."""
    declared = suite.tool(tool.name)
    return declared is None or (declared.description, declared.parameters) != (
        tool.description,
        tool.parameters,
    )


def _code(repository: _Repository, suite: Suite, everything: bool) -> ProgramCode:
    sources = repository.everything() if everything else repository.own
    return ProgramCode(repository.files, sources.texts, _suite_files(suite))


def unshown(
    head: RunResults,
    suites: Sequence[Suite],
    root: Path,
    base: RunResults | None = None,
    base_suites: Sequence[Suite] = (),
    base_root: Path | None = None,
) -> tuple[Unshown, ...]:
    """What the program suites of ``head`` (run from ``root``) showed their model that their code
    does not hold, and, with the base side (``base``, run from ``base_root``), the definitions a change
    to the code did not change for the model."""
    found: list[Unshown] = []
    by_path = {s.path: s for s in suites if s.agent.program is not None}
    base_by_path = {s.path: s for s in base_suites if s.agent.program is not None}
    base_results = {s.path: s for s in base.suites} if base is not None else {}
    for result in head.suites:
        suite = by_path.get(result.path)
        if suite is None:
            continue
        offered = offered_in(result.cases)
        repository = _repository(suite, root)
        findings: tuple[Unshown, ...] = not_the_code_s(suite.name, offered, _code(repository, suite, False))
        base_suite, base_result = base_by_path.get(result.path), base_results.get(result.path)
        if base_suite is not None and base_result is not None and base_root is not None:
            before = _code(_repository(base_suite, base_root), base_suite, False)
            shown = {f.shown.name for f in findings}
            head_offered = [t for t in offered if t.name not in shown]
            findings += unchanged_for_the_model(
                suite.name,
                head_offered,
                offered_in(base_result.cases),
                _code(repository, suite, False),
                before,
            )
        if findings:  # say where each text the model was shown is written: the repository's files are read
            everything = _code(repository, suite, True)
            findings = tuple(f.located(everything) for f in findings)
        found += findings
    return tuple(found)


def not_shown_reason(
    head: RunResults,
    suites: Sequence[Suite],
    root: Path,
    base: RunResults | None = None,
    base_suites: Sequence[Suite] = (),
    base_root: Path | None = None,
) -> str:
    """Why the run is not verified for what ``unshown`` finds ("" when it finds nothing)."""
    return not_verified(unshown(head, suites, root, base, base_suites, base_root))
