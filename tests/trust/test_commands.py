"""The trust rule for a suite's commands: allowed explicitly, and never on an event where the repository's
secrets meet a pull request's code (pull_request_target, workflow_run, issue_comment, ...)."""

from __future__ import annotations

import dataclasses

import pytest

from gate.suite.model import Command, Source, Suite
from gate.trust.commands import command_refusals
from tests.builders import suite as make_suite

PROGRAM = Command(
    ("python", "agents/travel.py"), "agent program", source=Source("evals/travel.suite.yaml", 4, 3)
)


def program_suite() -> Suite:
    return dataclasses.replace(
        make_suite(), name="travel", path="evals/travel.suite.yaml", commands=(PROGRAM,)
    )


def test_a_suite_with_a_command_is_refused_unless_allowed_naming_the_suite_and_the_flag() -> None:
    [problem] = command_refusals([program_suite()], allowed=False)
    text = problem.render()
    assert text.startswith("evals/travel.suite.yaml:4:3: suite 'travel' runs its agent program")
    assert "python agents/travel.py" in text
    assert "--allow-commands" in text and "commands: allow" in text


def test_allowed_commands_run_and_suites_without_commands_never_need_the_flag() -> None:
    assert command_refusals([program_suite()], allowed=True) == []
    assert command_refusals([make_suite()], allowed=False) == []


@pytest.mark.parametrize(
    "event_name",
    # the repository's secrets while a pull request (or a comment on one) decides what is checked out;
    # and an event the gate does not know (GitHub adds events): refused until it is known to be safe
    [
        "pull_request_target",
        "workflow_run",
        "issue_comment",
        "issues",
        "check_run",
        "deployment",
        "new_event",
    ],
)
def test_commands_never_run_where_the_repositorys_secrets_can_meet_a_pull_requests_code(event_name) -> None:
    [problem] = command_refusals([program_suite()], allowed=True, event_name=event_name)
    assert f"the gate never runs commands on {event_name}" in problem.message and "secrets" in problem.message
    assert "pull_request" in problem.hint and "workflow_run pattern" in problem.hint
    assert command_refusals([make_suite()], allowed=True, event_name=event_name) == []  # no command


@pytest.mark.parametrize(
    "event_name",
    # a pull request's own events (a fork's run gets no secrets); the repository's own code; outside
    # GitHub Actions (no event)
    [
        "pull_request",
        "pull_request_review",
        "pull_request_review_comment",
        "push",
        "merge_group",
        "schedule",
        "workflow_dispatch",
        "repository_dispatch",
        "release",
        "",
    ],
)
def test_allowed_commands_run_on_a_pull_requests_own_events_and_the_repositorys_own(event_name) -> None:
    assert command_refusals([program_suite()], allowed=True, event_name=event_name) == []
    assert len(command_refusals([program_suite()], allowed=False, event_name=event_name)) == 1


def test_the_same_command_of_the_head_and_base_side_is_named_once() -> None:
    suite = program_suite()
    assert len(command_refusals([suite, suite], allowed=False)) == 1
