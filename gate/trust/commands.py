"""Which of a run's commands may start (DESIGN section 10, "Trust"): the part of the trust decision
(``gate.trust.decision``) that is about the programs a suite names.

A suite can name programs to run: its agent program, an MCP server (``Suite.commands``). The gate
runs them only when the person running it allowed it (``run --allow-commands``, the action's
``commands: allow``), and in GitHub Actions only on the events of ``COMMAND_EVENTS``: never on
``pull_request_target``, ``workflow_run``, ``issue_comment`` or any other event where a workflow holds
the repository's secrets while the code it checked out can come from a pull request. Pure: the caller
passes the event's name (``GITHUB_EVENT_NAME``, "" outside Actions).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from gate.errors import Problem
from gate.suite.model import Command, Suite
from gate.util.escape import truncate

ALLOW_FLAG = "--allow-commands"
ACTION_INPUT = "commands: allow"
# The events on which a suite's commands may run: a pull request's own events, whose runs get no
# secret when the pull request comes from a fork (GitHub withholds them), and events only the
# repository's maintainers (or its schedule) start, on its own code. Every other event is refused,
# those GitHub adds later included: pull_request_target, workflow_run (a fork's pull request triggers
# it), issue_comment (anyone can comment), issues, discussion, check_run, deployment... run with the
# repository's secrets, and a workflow can check out a pull request's code on any of them.
COMMAND_EVENTS = frozenset(
    {
        "pull_request",
        "pull_request_review",
        "pull_request_review_comment",
        "push",
        "merge_group",
        "schedule",
        "workflow_dispatch",
        "repository_dispatch",
        "release",
    }
)


def refused_event(event_name: str) -> bool:
    """Whether commands never run on this GitHub Actions event ("" is no event: not in Actions)."""
    return bool(event_name) and event_name not in COMMAND_EVENTS


def event_refusal(event_name: str) -> str:
    """Why commands do not run on ``event_name`` (see ``refused_event``)."""
    return (
        f"the gate never runs commands on {event_name}, where a workflow can hold the repository's secrets "
        "while the code it checked out comes from a pull request; they run only on "
        + ", ".join(sorted(COMMAND_EVENTS))
    )


EVENT_HINT = (
    "evaluate suites that run programs on pull_request (a fork's run gets no secrets there) and publish "
    "their results with the workflow_run pattern of docs/github-action.md (publishing runs no command)"
)


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
            if refused_event(event_name):
                message, hint = f"{what}, and {event_refusal(event_name)}", EVENT_HINT
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
