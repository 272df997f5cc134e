"""The tool descriptions a trial's model was offered, and which differ between the two sides of a
comparison (the HTML report shows them per trial, head beside base). Pure.

An agent program's trial offered what its requests offered (``RunRecord.offered``); the model agent's
offers its suite's tools. A trial that sent no request was offered nothing. A tool "differs" when the
other side's trials were offered another description of that name; "absent" when they were offered
none of that name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gate.results.outcomes import ToolInfo, TrialResult

Difference = Literal["", "differs", "absent"]


@dataclass(frozen=True)
class ShownTool:
    """A tool as a trial's model was shown it."""

    name: str
    description: str


def trial_tools(trial: TrialResult, suite_tools: Sequence[ToolInfo]) -> tuple[ShownTool, ...]:
    """The tools ``trial``'s model was offered (each distinct description once, in order)."""
    record = trial.record
    if record.offered:
        shown = [ShownTool(t.name, t.description) for t in record.offered_tools]
    elif record.turns:
        shown = [ShownTool(t.name, t.description) for t in suite_tools]
    else:
        shown = []
    return tuple(dict.fromkeys(shown))


def side_descriptions(tools: Iterable[Sequence[ShownTool]]) -> dict[str, set[str]]:
    """Name -> every description of it that one side's trials were offered."""
    found: dict[str, set[str]] = {}
    for trial in tools:
        for tool in trial:
            found.setdefault(tool.name, set()).add(tool.description)
    return found


def difference(tool: ShownTool, other: Mapping[str, set[str]] | None) -> Difference:
    """How ``tool`` compares with what the other side was offered (None: there is no other side)."""
    if other is None:
        return ""
    if tool.name not in other:
        return "absent"
    return "" if tool.description in other[tool.name] else "differs"
