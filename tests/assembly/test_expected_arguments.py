"""DESIGN §2: ``args: {}`` means the call has no arguments; leaving ``args`` out means any arguments.
A suite file through the real loader, scored against recorded calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.files.suite_loader import load_suites
from gate.scoring.trial import score_trial
from tests.builders import call, record

SUITE = """\
version: 1
name: args
agent:
  provider: openai
  model: gpt-4o-mini
  tools:
    - name: list_bookings
      description: List the bookings.
      parameters: {type: object, properties: {status: {type: string}, limit: {type: integer}}}
cases:
  - id: no-arguments
    input: List my bookings
    expect: {calls: [{tool: list_bookings, args: {}}]}
  - id: any-arguments
    input: List my bookings
    expect: {calls: [{tool: list_bookings}]}
  - id: none-but-extras-allowed
    input: List my bookings
    expect: {calls: [{tool: list_bookings, args: {}, allow_extra_args: true}]}
"""


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    root: Path = tmp_path_factory.mktemp("args")
    (root / "args.suite.yaml").write_text(SUITE, encoding="utf-8")
    result = load_suites([root], root=root)
    assert result.problems == ()
    return result.suites[0]


def _score(suite, case_id: str, arguments: dict):
    case = next(c for c in suite.cases if c.id == case_id)
    return score_trial(suite, case, record(call("list_bookings", arguments)), 0, {})


def test_args_empty_passes_a_call_without_arguments(loaded):
    assert _score(loaded, "no-arguments", {}).status == "passed"


def test_args_empty_fails_a_call_with_arguments_naming_each_unexpected_one(loaded):
    trial = _score(loaded, "no-arguments", {"status": "open", "limit": 5})
    assert trial.status == "failed"
    unexpected = [f for f in trial.failures if f.reason == "unexpected_argument"]
    assert [(f.tool, f.argument, f.actual) for f in unexpected] == [
        ("list_bookings", "status", "open"),
        ("list_bookings", "limit", 5),
    ]
    assert (
        unexpected[0].message
        == "list_bookings (call 1): argument 'status': sent \"open\", not in the expectation"
    )


@pytest.mark.parametrize("arguments", [{}, {"status": "open"}, {"status": "open", "limit": 5}])
def test_args_left_out_accepts_any_arguments(loaded, arguments):
    assert _score(loaded, "any-arguments", arguments).status == "passed"


def test_args_empty_with_allow_extra_args_accepts_any_arguments(loaded):
    assert _score(loaded, "none-but-extras-allowed", {"limit": 5}).status == "passed"
