"""Whether the suites of a run may make the gate run their commands (DESIGN section 10, "Trust").

A suite can name programs to run: its agent program, an MCP server (``Suite.commands``). The gate
runs them only when the person running it allowed it (``run --allow-commands``, the action's
``commands: allow``), and never on ``pull_request_target``, where a workflow holds the repository's
secrets while the pull request can change the code a command runs. Pure: the caller passes the
event's name (``GITHUB_EVENT_NAME``).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from gate.errors import Problem
from gate.suite.model import Command, Suite
from gate.util.escape import truncate

ALLOW_FLAG = "--allow-commands"
ACTION_INPUT = "commands: allow"
REFUSED_EVENT = "pull_request_target"


def _shown(command: Command) -> str:
    return truncate(shlex.join(command.argv), 80, brief=True)


def first_program(suites: Sequence[Suite]) -> str:
    """The first command the suites make the gate run, as messages name it ("the MCP server
    `python server.py` of suites/x.suite.yaml:7"); "" when they run none."""
    for suite in suites:
        for command in suite.commands:
            where = command.source or suite.source
            at = f"{where.path}:{where.line}" if where else suite.path
            return f"the {command.purpose} `{_shown(command)}` of {at}"
    return ""


def command_refusals(suites: Sequence[Suite], *, allowed: bool, event_name: str = "") -> list[Problem]:
    """One problem per command the run may not start (none when it may start them all), located
    where the command is written."""
    problems: list[Problem] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for suite in suites:
        for command in suite.commands:
            if (suite.path, command.argv) in seen:
                continue
            seen.add((suite.path, command.argv))
            where = command.source or suite.source
            what = f"suite {suite.name!r} runs its {command.purpose} ({_shown(command)})"
            if event_name == REFUSED_EVENT:
                message = (
                    f"{what}, and the gate never runs commands on {REFUSED_EVENT}: that workflow holds "
                    "the repository's secrets while the pull request can change the code the command runs"
                )
                hint = (
                    "run program suites on the pull_request event (or the workflow_run pattern of "
                    "docs/github-action.md)"
                )
            elif not allowed:
                message = f"{what}; the gate runs a suite's commands only when you allow it"
                hint = f"pass {ALLOW_FLAG} to run (the action: {ACTION_INPUT})"
            else:
                continue
            problems.append(
                Problem(
                    where.path if where else suite.path,
                    where.line if where else 0,
                    where.column if where else 0,
                    message,
                    hint=hint,
                )
            )
    return problems
