"""``expect.final_state``, directly: one failure per state path that does not hold, saying the path,
what was expected and what is there (nothing when the path is absent), and the share that held."""

from __future__ import annotations

from gate.scoring.final_state import final_state_check, final_state_failures
from gate.suite.matcher_tree import parse_matchers

STATE = {"bookings": [{"id": "B1", "seats": 2}], "user": {"name": "Ada"}}


def test_paths_that_hold_make_no_failure() -> None:
    expected = parse_matchers({"user.name": "Ada", "bookings.0.seats": {"range": {"min": 1, "max": 3}}})
    assert final_state_failures(expected, STATE) == []
    check = final_state_check(expected, [])
    assert (check.kind, check.score, check.passed) == ("final_state", 1.0, True)


def test_a_path_that_does_not_hold_or_is_absent_is_a_state_mismatch() -> None:
    expected = parse_matchers({"user.name": "Grace", "bookings.1.id": "B2", "bookings.0.id": "B1"})
    failures = final_state_failures(expected, STATE)
    assert [(f.reason, f.argument) for f in failures] == [
        ("state_mismatch", "user.name"),
        ("state_mismatch", "bookings.1.id"),
    ]
    wrong, absent = failures
    assert (wrong.expected, wrong.actual) == ("Grace", "Ada") and "state user.name:" in wrong.message
    assert absent.actual is None and absent.message == 'state bookings.1.id: absent; expected "B2"'
    check = final_state_check(expected, failures)
    assert (check.score, check.passed, check.detail) == (1 / 3, False, "1 of 3 state path(s) as expected")
