"""Automatic checks (gate.scoring.calls.automatic): hallucinated tool, invalid arguments, schema violation."""

from __future__ import annotations

from gate.scoring.calls.automatic import automatic_failures, schema_failures
from tests.builders import call, suite, tool

WEATHER = suite()


def test_well_formed_calls_to_defined_tools_have_no_failures():
    assert (
        automatic_failures(WEATHER, (call("get_weather", {"city": "Paris"}), call("search", {"query": "x"})))
        == []
    )


def test_a_tool_not_defined_is_hallucinated():
    (failure,) = automatic_failures(WEATHER, (call("get_weather", {"city": "Paris"}), call("book_flight")))
    assert (failure.reason, failure.tool, failure.actual) == (
        "hallucinated_tool",
        "book_flight",
        "book_flight",
    )
    assert failure.message.startswith("call 2: book_flight is not a defined tool (defined: get_weather,")


def test_arguments_that_are_not_a_json_object():
    (failure,) = automatic_failures(WEATHER, (call("search", raw="{not json"),))
    assert (failure.reason, failure.tool, failure.actual) == ("invalid_arguments", "search", "{not json")
    assert "(invalid JSON)" in failure.message


def test_schema_violations_name_the_argument():
    failures = automatic_failures(WEATHER, (call("get_forecast", {"city": "Paris", "days": 9, "hour": 1}),))
    by_argument = {f.argument: f for f in failures}
    assert set(by_argument) == {"days", "hour"}
    assert all(f.reason == "schema_violation" and f.tool == "get_forecast" for f in failures)
    assert by_argument["days"].actual == 9 and by_argument["days"].expected == "maximum: 7"
    (missing,) = automatic_failures(WEATHER, (call("get_forecast", {}),))
    assert (missing.argument, missing.actual) == ("city", None)


def test_a_broken_tool_schema_is_not_blamed_on_the_agent():
    broken = tool("odd", {"x": {"type": "no-such-type"}})
    assert schema_failures("odd", broken.parameters, call("odd", {"x": 1}), "call 1") == []
