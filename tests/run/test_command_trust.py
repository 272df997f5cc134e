"""The trust rule for a suite's commands: allowed explicitly, never on pull_request_target."""

from __future__ import annotations

import dataclasses

from gate.run.command_trust import command_refusals
from gate.suite.model import Command, Source, Suite
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


def test_commands_never_run_on_pull_request_target_even_when_allowed() -> None:
    [problem] = command_refusals([program_suite()], allowed=True, event_name="pull_request_target")
    assert "pull_request_target" in problem.message and "secrets" in problem.message
    assert command_refusals([make_suite()], allowed=True, event_name="pull_request_target") == []


def test_the_same_command_of_the_head_and_base_side_is_named_once() -> None:
    suite = program_suite()
    assert len(command_refusals([suite, suite], allowed=False)) == 1
