"""Order (gate.scoring.calls.order): any, in_order and strict on a given pairing, directly."""

from __future__ import annotations

from gate.scoring.calls.order import order_failures
from gate.scoring.calls.pairing import CallPairing, Slot
from gate.suite.model import CallExpectation
from tests.builders import call, ecall

CALLS = (call("search"), call("get_weather"), call("get_forecast"))
REVERSED = CallPairing(slots=(Slot(0, True), Slot(1, True)), pairs=(1, 0), in_order=False, outcomes={})
IN_ORDER = CallPairing(slots=(Slot(0, True), Slot(1, False)), pairs=(0, 2), in_order=True, outcomes={})


def expecting(order: str) -> CallExpectation:
    return CallExpectation(calls=(ecall("get_weather"), ecall("search")), order=order)  # type: ignore[arg-type]


def test_any_order_checks_nothing():
    assert order_failures(expecting("any"), REVERSED, CALLS, [2]) == []


def test_a_pairing_out_of_order_is_an_order_violation_in_order_and_strict():
    for order in ("in_order", "strict"):
        (failure,) = order_failures(expecting(order), REVERSED, CALLS, [2])
        assert failure.reason == "order_violation"
        assert failure.expected == ["get_weather", "search"]
        assert failure.actual == ["search", "get_weather", "get_forecast"]
        assert f"({order})" in failure.message and "['get_weather', 'search']" in failure.message


def test_in_order_allows_calls_between():
    ordered = CallExpectation(calls=(ecall("search"), ecall("get_forecast", times=(0, 1))), order="in_order")
    assert order_failures(ordered, IN_ORDER, CALLS, [1]) == []


def test_strict_forbids_calls_outside_the_expected_sequence():
    strict = CallExpectation(calls=(ecall("search"), ecall("get_forecast", times=(0, 1))), order="strict")
    (failure,) = order_failures(strict, IN_ORDER, CALLS, [1])
    assert failure.reason == "order_violation" and "get_weather (call 2)" in failure.message
    assert failure.expected == ["search"]  # the required part of the sequence
    assert order_failures(strict, IN_ORDER, CALLS, []) == []
