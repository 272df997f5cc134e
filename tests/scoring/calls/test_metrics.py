"""Metrics (gate.scoring.calls.metrics): tool-name precision / recall / F1 and argument accuracy, directly."""

from __future__ import annotations

import pytest

from gate.scoring.calls.metrics import (
    ArgumentChecks,
    ToolNameScores,
    argument_checks,
    is_constrained,
    tool_name_scores,
    total,
)
from gate.suite.matcher_tree import Value
from gate.suite.matchers import MatchOutcome
from gate.suite.model import CallExpectation
from tests.builders import ecall


def test_precision_recall_f1_over_multisets():
    expectation = CallExpectation(calls=(ecall("get_weather"), ecall("search")))
    # Two get_weather calls (one paired) and a get_forecast; search never called.
    scores = tool_name_scores(expectation, [1, 0], {"get_weather": 2, "get_forecast": 1})
    assert scores.precision == pytest.approx(1 / 3)
    assert scores.recall == pytest.approx(1 / 2)
    assert scores.f1 == pytest.approx(0.4)


def test_an_expected_call_counts_as_often_as_it_was_paired_when_more_than_its_minimum():
    expectation = CallExpectation(calls=(ecall("get_weather", times=(1, None)),))
    scores = tool_name_scores(expectation, [3], {"get_weather": 3})
    assert (scores.precision, scores.recall, scores.f1) == (1.0, 1.0, 1.0)


def test_both_empty_is_one_and_calls_against_no_calls_are_zero():
    none = CallExpectation(no_calls=True)
    assert tool_name_scores(none, [], {}) == ToolNameScores(1.0, 1.0, 1.0)
    made = tool_name_scores(none, [], {"search": 1})
    assert (made.precision, made.recall, made.f1) == (0.0, 1.0, 0.0)
    assert tool_name_scores(CallExpectation(calls=(ecall("search"),)), [0], {}).recall == 0.0


def test_an_unconstrained_expectation_scores_one():
    assert not is_constrained(CallExpectation())
    scores = tool_name_scores(CallExpectation(), [], {"search": 2})
    assert (scores.precision, scores.recall, scores.f1) == (1.0, 1.0, 1.0)
    assert is_constrained(CallExpectation(extra_calls="forbid"))
    assert is_constrained(CallExpectation(no_calls=True))
    assert is_constrained(CallExpectation(calls=(ecall("search"),)))


def test_argument_checks_name_tool_argument_expected_and_actual():
    passed = MatchOutcome(True, None, "", Value("Paris"), "Paris", "city")
    failed = MatchOutcome(False, "type_error", "expected a string", Value("metric"), 5, "units")
    unexplained = MatchOutcome(False, None, "no", Value(1), 2, "days")
    checks = argument_checks(ecall("get_weather"), 2, (passed, failed, unexplained))
    assert (checks.checked, checks.failing, checks.accuracy) == (3, 2, pytest.approx(1 / 3))
    first, second = checks.failures
    assert (first.reason, first.tool, first.argument, first.expected, first.actual) == (
        "type_error",
        "get_weather",
        "units",
        "metric",
        5,
    )
    assert first.message == "get_weather (call 3): argument 'units': expected a string"
    assert second.reason == "value_error"  # an outcome without a reason is a value error


def test_unparseable_arguments_fail_every_argument_check_without_a_failure_of_their_own():
    assert argument_checks(
        ecall("get_weather", {"city": "Paris", "units": "metric"}), 0, None
    ) == ArgumentChecks(2, 2)
    assert argument_checks(ecall("get_weather"), 0, None) == ArgumentChecks(1, 1)


def test_total_and_accuracy():
    assert ArgumentChecks().accuracy == 1.0  # nothing checked
    summed = total([ArgumentChecks(2, 1), ArgumentChecks(3, 0), ArgumentChecks(1, 1)])
    assert (summed.checked, summed.failing, summed.accuracy) == (6, 2, pytest.approx(4 / 6))
    assert total([]) == ArgumentChecks()
