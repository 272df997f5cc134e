"""A failure's details (tool, argument, expected, actual) are shown only where the message does not
already say them: every output says each thing once."""

from __future__ import annotations

from gate.reports.failure_details import describe_failure, unstated_details
from gate.results.outcomes import Failure


def test_details_the_message_states_are_left_out():
    state = Failure(
        "state_mismatch", "state ok: expected true, got false", argument="ok", expected=True, actual=False
    )
    assert unstated_details(state) == ()
    assert describe_failure(state) == "[final state mismatch] state ok: expected true, got false"
    count = Failure(
        "wrong_count",
        'expected exactly 1 call to get_weather(city="London"), none was made',
        tool="get_weather",
        expected='get_weather(city="London")',
    )
    assert unstated_details(count) == ()


def test_details_the_message_leaves_out_are_shown():
    typed = Failure(
        "type_error", "days: expected an integer, got a string", "get_forecast", "days", 7, "7 days"
    )
    assert unstated_details(typed) == (("tool", "get_forecast"), ("expected", 7), ("actual", "7 days"))
    # A number in the message that is not the value (call 5) does not count as stating it.
    extra = Failure(
        "unexpected_argument",
        "get_weather (call 5): argument 'units': sent a list",
        "get_weather",
        "units",
        actual=5,
    )
    assert unstated_details(extra) == (("actual", 5),)
    score = Failure(
        "below_pass_score", "weighted score 0.850 is under the pass score 0.9", expected=0.9, actual=0.85
    )
    assert unstated_details(score) == ()
