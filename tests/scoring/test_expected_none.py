"""`calls: []` written in a suite means "expected none", pinned by DESIGN.md section 3: none made passes,
one made fails. Loaded from YAML and scored, end to end through the pure core."""

from __future__ import annotations

from pathlib import Path

from gate.files.suite_loader import load_suites
from gate.scoring.trial import score_trial
from tests.builders import call, record

SUITE = """\
version: 1
name: expected-none
agent:
  provider: openai
  model: m
  tools:
    - type: function
      function:
        name: get_weather
        description: Current weather for a city.
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
  - id: explicit-empty-list
    input: What is a cold front?
    expect: {calls: []}
  - id: no-call-expectation-at-all
    input: Tell me anything.
    expect: {max_calls: 5}
"""


def _suite(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "s.suite.yaml").write_text(SUITE)
    result = load_suites([tmp_path], root=tmp_path)
    assert result.problems == ()
    return result.suites[0]


def test_explicit_empty_calls_list_fails_when_a_call_is_made(tmp_path):
    suite = _suite(tmp_path)
    case = suite.cases[0]
    assert case.expect.calls.no_calls
    assert score_trial(suite, case, record(calls=()), 0, {}).status == "passed"
    made = score_trial(suite, case, record(calls=(call("get_weather", {"city": "Paris"}),)), 0, {})
    assert made.status == "failed"
    assert [f.reason for f in made.failures] == ["forbidden_call"]


def test_without_any_call_expectation_calls_are_unconstrained(tmp_path):
    suite = _suite(tmp_path)
    case = suite.cases[1]
    assert not case.expect.calls.no_calls
    made = score_trial(suite, case, record(calls=(call("get_weather", {"city": "Paris"}),)), 0, {})
    assert made.status == "passed"
