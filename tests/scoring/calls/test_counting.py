"""Counting (gate.scoring.calls.counting): missing calls, wrong tools and wrong counts, directly."""

from __future__ import annotations

from gate.scoring.calls.counting import shortfall, surplus, times_text
from gate.suite.model import Times
from tests.builders import call, ecall, suite

WEATHER = suite()


def test_times_text():
    assert times_text(Times(1, 1)) == "exactly 1"
    assert times_text(Times(2, None)) == "at least 2"
    assert times_text(Times(0, 3)) == "0 to 3"


def test_enough_calls_is_no_shortfall():
    expected = (ecall("get_weather", times=(1, None)),)
    result = shortfall(WEATHER, expected, (call("get_weather"),) * 2, {"get_weather": 2}, [2], [])
    assert result.failures == () and not result.missing and result.wrong_tool_calls == frozenset()


def test_some_but_too_few_calls_is_a_wrong_count():
    expected = (ecall("get_weather", times=(2, 2)),)
    result = shortfall(WEATHER, expected, (call("get_weather"),), {"get_weather": 1}, [1], [])
    (failure,) = result.failures
    assert result.missing
    assert (failure.reason, failure.tool, failure.expected, failure.actual) == (
        "wrong_count",
        "get_weather",
        "get_weather(...) exactly 2",
        1,
    )
    assert "got 1 (1 call to get_weather in total)" in failure.message


def test_no_call_and_another_tool_called_is_a_wrong_tool():
    expected = (ecall("get_forecast"),)
    calls = (call("get_weather"),)
    result = shortfall(WEATHER, expected, calls, {"get_weather": 1}, [0], [0])
    (failure,) = result.failures
    assert (failure.reason, failure.tool, failure.expected_tool) == (
        "wrong_tool",
        "get_weather",
        "get_forecast",
    )
    assert result.missing and result.wrong_tool_calls == frozenset({0})


def test_the_wrong_tool_blamed_is_preferably_one_nothing_expects():
    expected = (ecall("get_forecast"), ecall("get_weather", times=(2, 2)))
    calls = (call("get_weather"), call("search"))
    named = {"get_weather": 1, "search": 1}
    # get_forecast got nothing; both calls are unpaired: search (expected by nobody) is blamed.
    result = shortfall(WEATHER, expected, calls, named, [0, 0], [0, 1])
    assert result.failures[0].tool == "search" and result.wrong_tool_calls == frozenset({1})
    # get_weather got nothing either, and search is already blamed: it gets its own reason.
    assert [f.reason for f in result.failures] == ["wrong_tool", "wrong_count"]


def test_each_unpaired_call_is_blamed_as_a_wrong_tool_at_most_once():
    expected = (ecall("get_forecast"), ecall("search"))
    calls = (call("get_weather"),)
    result = shortfall(WEATHER, expected, calls, {"get_weather": 1}, [0, 0], [0])
    assert [f.reason for f in result.failures] == ["wrong_tool", "missing_call"]


def test_a_hallucinated_tool_is_never_the_wrong_tool():
    result = shortfall(
        WEATHER, (ecall("get_forecast"),), (call("book_flight"),), {"book_flight": 1}, [0], [0]
    )
    (failure,) = result.failures
    assert (failure.reason, failure.expected, failure.actual) == ("missing_call", "get_forecast(...)", None)
    assert result.wrong_tool_calls == frozenset()


def test_calls_of_the_tool_that_matched_other_expectations_better():
    expected = (ecall("get_weather", {"city": "Paris"}), ecall("get_weather", {"city": "Rome"}))
    calls = (call("get_weather", {"city": "Paris"}),)
    result = shortfall(WEATHER, expected, calls, {"get_weather": 1}, [1, 0], [])
    (failure,) = result.failures
    assert failure.reason == "wrong_count" and failure.actual == 0
    # It names the expected value: the call to get_weather for Rome, not just the tool.
    assert failure.message == (
        'expected exactly 1 call to get_weather(city="Rome"), got none: '
        "get_weather's 1 call matched other expectations better"
    )
    assert failure.expected == 'get_weather(city="Rome") exactly 1'


def test_a_missing_or_short_call_names_the_call_expected_with_its_arguments():
    london = ecall("get_weather", {"city": "London"}, times=(2, 2))
    (short,) = shortfall(
        WEATHER, (london,), (call("get_weather", {"city": "London"}),), {"get_weather": 1}, [1], []
    ).failures
    assert short.message == (
        'expected exactly 2 matching calls to get_weather(city="London"), got 1 '
        "(1 call to get_weather in total)"
    )
    (missing,) = shortfall(WEATHER, (ecall("get_weather", {"city": "London"}),), (), {}, [0], []).failures
    assert missing.message == 'expected exactly 1 call to get_weather(city="London"), none was made'
    (wrong,) = shortfall(
        WEATHER,
        (ecall("get_forecast", {"city": "Oslo"}, allow_extra_args=True),),
        (call("get_weather"),),
        {"get_weather": 1},
        [0],
        [0],
    ).failures
    assert (
        wrong.message == 'expected get_forecast(city="Oslo", ...), but the agent called get_weather (call 1)'
    )


def test_surplus_names_each_expected_tool_called_too_often_once():
    expected = (ecall("get_weather", times=(1, 2)), ecall("get_weather", {"city": "Paris"}))
    calls = (call("get_weather"),) * 4 + (call("search"),)
    failures = surplus(expected, calls, {"get_weather": 4, "search": 1}, [3, 4])
    (failure,) = failures
    assert (failure.reason, failure.tool, failure.expected, failure.actual) == (
        "wrong_count",
        "get_weather",
        "at most 3",
        4,
    )
    assert surplus(expected, calls, {"get_weather": 4, "search": 1}, [4]) == []  # search: not expected
    assert surplus(expected, calls, {}, []) == []
