"""Automatic checks (gate.scoring.calls.automatic): hallucinated tool, invalid arguments, schema violation."""

from __future__ import annotations

from gate.results.run_record import OfferedTool
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


def _offered(*names: str, days_max: int = 7) -> tuple[OfferedTool, ...]:
    """What an agent program's request offered: the suite's tools of those names (``get_forecast`` with
    its own ``days`` maximum)."""
    tools = []
    for name in names:
        parameters = WEATHER.tool(name).parameters
        if name == "get_forecast":
            parameters = {
                **parameters,
                "properties": {**parameters["properties"], "days": {"type": "integer", "maximum": days_max}},
            }
        tools.append(OfferedTool(name, "offered", parameters))
    return tuple(tools)


def test_a_program_s_call_is_checked_against_the_tools_its_request_offered_not_the_suite_s():
    # The suite defines get_forecast; the program's requests did not offer it: calling it is hallucinated.
    offered = (_offered("get_weather", "search"), _offered("get_weather", "search"))
    (failure,) = automatic_failures(WEATHER, (call("get_forecast", {"city": "Paris"}, turn=2),), offered)
    assert (failure.reason, failure.tool) == ("hallucinated_tool", "get_forecast")
    assert (
        failure.message
        == "call 1: get_forecast is not a tool its request offered (offered: get_weather, search)"
    )


def test_each_call_answers_one_request_and_only_that_request_s_tools_count():
    offered = (_offered("get_weather"), _offered("get_forecast"), ())
    calls = (
        call("get_forecast", {"city": "Paris"}, turn=1),  # offered by the second request only
        call("get_forecast", {"city": "Paris"}, turn=2),
        call("get_weather", {"city": "Paris"}, turn=3),  # the third request offered nothing
        call("get_weather", {"city": "Paris"}, turn=9),  # no such request: nothing was offered
    )
    failures = automatic_failures(WEATHER, calls, offered)
    assert [(f.reason, f.message.split(":")[0]) for f in failures] == [
        ("hallucinated_tool", "call 1"),
        ("hallucinated_tool", "call 3"),
        ("hallucinated_tool", "call 4"),
    ]
    assert failures[1].message.endswith("(offered: none)")


def test_a_program_s_call_is_held_to_the_schema_its_request_offered():
    # The suite says days <= 7; the program offered days <= 3: 5 days violates what the model was shown.
    offered = (_offered("get_forecast", days_max=3),)
    (failure,) = automatic_failures(WEATHER, (call("get_forecast", {"city": "Paris", "days": 5}),), offered)
    assert (failure.reason, failure.argument, failure.expected) == ("schema_violation", "days", "maximum: 3")
    looser = (_offered("get_forecast", days_max=14),)
    assert automatic_failures(WEATHER, (call("get_forecast", {"city": "Paris", "days": 9}),), looser) == []
