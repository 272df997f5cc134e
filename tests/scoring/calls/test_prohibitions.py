"""Prohibitions (gate.scoring.calls.prohibitions): no_calls, forbidden tools, extra calls,
max_calls, directly."""

from __future__ import annotations

from gate.scoring.calls.prohibitions import extra_calls, forbidden_calls, is_prohibited, over_max_calls
from gate.suite.model import CallExpectation
from tests.builders import call, ecall

CALLS = (call("get_weather", {"city": "Paris"}), call("search", {"query": "x"}), call("get_forecast"))


def test_is_prohibited():
    assert is_prohibited(CallExpectation(no_calls=True), "get_weather")
    assert is_prohibited(CallExpectation(forbidden_tools=("search",)), "search")
    assert not is_prohibited(CallExpectation(forbidden_tools=("search",)), "get_weather")
    assert not is_prohibited(CallExpectation(), "search")


def test_no_calls_forbids_every_call():
    failures = forbidden_calls(CallExpectation(no_calls=True), CALLS)
    assert [(f.reason, f.tool, f.expected) for f in failures] == [
        ("forbidden_call", "get_weather", "no calls"),
        ("forbidden_call", "search", "no calls"),
        ("forbidden_call", "get_forecast", "no calls"),
    ]
    assert "(call 2)" in failures[1].message


def test_forbidden_tools_forbid_only_their_calls():
    failures = forbidden_calls(CallExpectation(forbidden_tools=("search", "book_flight")), CALLS)
    (failure,) = failures
    assert (failure.reason, failure.tool, failure.actual) == ("forbidden_call", "search", "search")
    assert forbidden_calls(CallExpectation(), CALLS) == []


def test_extra_calls_forbidden_to_tools_nothing_expects():
    forbid = CallExpectation(calls=(ecall("get_weather"), ecall("get_forecast")), extra_calls="forbid")
    (failure,) = extra_calls(forbid, CALLS, [1, 2])  # call 3 is to an expected tool: not an extra call
    assert (failure.reason, failure.tool, failure.actual) == ("extra_call", "search", {"query": "x"})
    assert "extra calls are forbidden" in failure.message
    assert extra_calls(forbid, CALLS, []) == []
    allow = CallExpectation(calls=(ecall("get_weather"),))
    assert extra_calls(allow, CALLS, [1, 2]) == []


def test_max_calls_is_a_limit_not_a_target():
    assert over_max_calls(CallExpectation(), 99) == []
    assert over_max_calls(CallExpectation(max_calls=2), 2) == []
    (failure,) = over_max_calls(CallExpectation(max_calls=2), 3)
    assert (failure.reason, failure.expected, failure.actual) == ("over_call_budget", 2, 3)
    assert failure.message == "3 calls made, the expectation allows at most 2"
