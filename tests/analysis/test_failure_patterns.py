"""The failure-pattern tables count each fault of a call once: a call's argument that both the case's
expectation and the tool's schema reject is one failure, counted under the expectation's reason."""

from __future__ import annotations

from typing import Any

from gate.analysis.analyse import analyse
from gate.analysis.failure_patterns import distinct_failures
from gate.results.outcomes import SourceRef
from tests.results_factory import call, case, failure, record, run, suite, tool, trial

FORECAST = tool("get_forecast", "Daily forecast.", parameter_lines={"days": 9})


def analysed(*cases: Any) -> Any:
    return analyse(run(suite("s", list(cases), tools=[FORECAST], prompt=SourceRef("p.md", 1))))


def type_and_schema(value: Any = "7 days") -> list[Any]:
    """What scoring reports for one call whose ``days`` is a string: the expectation's type error and
    the tool schema's type violation."""
    return [
        failure("type_error", tool="get_forecast", argument="days", expected=7, actual=value),
        failure(
            "schema_violation", tool="get_forecast", argument="days", expected="type: 'integer'", actual=value
        ),
    ]


def test_one_call_that_is_a_type_error_and_a_schema_violation_counts_once_as_a_type_error():
    c = case(
        "rome",
        "failed",
        failures=type_and_schema(),
        rec=record(calls=[call("get_forecast", {"days": "7 days"})]),
    )
    analysis = analysed(c)
    assert {r.reason: (r.cases, r.occurrences) for r in analysis.reasons} == {"type_error": (1, 1)}
    (days,) = analysis.arguments
    assert (days.failures, days.calls, days.reasons) == (1, 1, (("type_error", 1),))
    assert [r.pattern for r in analysis.recommendations] == ["argument_type_error"]


def test_a_missing_argument_the_schema_requires_counts_once_as_missing():
    failures = [
        failure("missing_argument", tool="get_forecast", argument="days", expected=7),
        failure("schema_violation", tool="get_forecast", argument="days", expected="required: ['days']"),
    ]
    analysis = analysed(case("x", "failed", failures=failures, rec=record(calls=[call("get_forecast", {})])))
    assert [(r.reason, r.occurrences) for r in analysis.reasons] == [("missing_argument", 1)]


def test_an_unexpected_argument_the_schema_forbids_counts_once_as_unexpected():
    failures = [
        failure("unexpected_argument", tool="get_forecast", argument="unit", actual="C"),
        failure(
            "schema_violation", tool="get_forecast", argument="unit", expected="additionalProperties: false"
        ),
    ]
    analysis = analysed(
        case("x", "failed", failures=failures, rec=record(calls=[call("get_forecast", {"unit": "C"})]))
    )
    assert [(r.reason, r.occurrences) for r in analysis.reasons] == [("unexpected_argument", 1)]


def test_a_nested_value_is_the_same_fault_as_the_schema_error_at_its_location():
    failures = [
        failure("value_error", tool="get_forecast", argument="place.city", expected="Rome", actual="rome!"),
        failure(
            "schema_violation",
            tool="get_forecast",
            argument="place",
            expected="pattern: '^[A-Z]'",
            actual="rome!",
        ),
    ]
    assert [f.reason for f in distinct_failures(failures)] == ["value_error"]


def test_schema_violations_no_expectation_saw_still_count():
    failures = [
        failure("type_error", tool="get_forecast", argument="days", expected=7, actual="7 days"),
        # Another argument, and the same argument with another value (another call): different faults.
        failure(
            "schema_violation", tool="get_forecast", argument="city", expected="type: 'string'", actual=5
        ),
        failure("schema_violation", tool="get_forecast", argument="days", expected="maximum: 7", actual=9),
    ]
    assert [f.reason for f in distinct_failures(failures)] == [
        "type_error",
        "schema_violation",
        "schema_violation",
    ]


def test_the_same_fault_in_two_trials_counts_in_each():
    t = [
        trial(
            "failed", failures=type_and_schema(), rec=record(calls=[call("get_forecast", {"days": "7 days"})])
        )
    ] * 2
    analysis = analysed(case("x", "failed", trials=t))
    assert {r.reason: (r.cases, r.occurrences) for r in analysis.reasons} == {"type_error": (1, 2)}
    assert analysis.arguments[0].failures == 2
