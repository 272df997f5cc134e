"""Pairing (gate.scoring.calls.pairing): slots, pair costs, optimal and order-preserving pairings,
directly."""

from __future__ import annotations

from gate.scoring.calls.pairing import (
    EXTRA,
    MISS_OPTIONAL,
    MISS_REQUIRED,
    CallPairing,
    Slot,
    arguments_outcomes,
    count_names,
    expand_slots,
    keeps_order,
    monotone_alignment,
    optimal_pairing,
    pair_calls,
    pair_cost,
    pair_costs,
)
from gate.suite.matchers import MatchOutcome
from gate.suite.model import CallExpectation
from tests.builders import call, ecall

REQUIRED, OPTIONAL = Slot(0, True), Slot(0, False)


def outcome(ok: bool) -> MatchOutcome:
    return MatchOutcome(ok, None if ok else "value_error", "", "x", "y", "city")


def test_count_names_counts_calls_per_tool():
    calls = (call("get_weather"), call("search"), call("get_weather"))
    assert count_names(calls) == {"get_weather": 2, "search": 1}
    assert count_names(()) == {}


def test_slots_are_the_required_copies_then_the_optional_ones():
    expectation = CallExpectation(
        calls=(ecall("get_weather", times=(2, 4)), ecall("search", times=(0, 1)), ecall("get_forecast"))
    )
    assert expand_slots(expectation, {}) == [
        Slot(0, True),
        Slot(0, True),
        Slot(0, False),
        Slot(0, False),
        Slot(1, False),
        Slot(2, True),
    ]


def test_unbounded_times_get_optional_slots_for_every_call_of_the_tool():
    expectation = CallExpectation(calls=(ecall("get_weather", times=(1, None)),))
    assert expand_slots(expectation, {"get_weather": 3, "search": 5}) == [REQUIRED, OPTIONAL, OPTIONAL]
    assert expand_slots(expectation, {}) == [REQUIRED]
    none_needed = CallExpectation(calls=(ecall("get_weather", times=(0, None)),))
    assert expand_slots(none_needed, {}) == []


def test_pair_cost_is_the_fraction_of_failing_argument_outcomes():
    assert pair_cost(None) == 1.0  # unparseable arguments
    assert pair_cost(()) == 0.0  # nothing to check
    assert pair_cost((outcome(True), outcome(False))) == 0.5
    assert pair_cost((outcome(False),)) == 1.0


def test_arguments_outcomes_of_a_pair():
    expected = ecall("get_weather", {"city": "Paris"})
    assert arguments_outcomes(expected, call("get_weather", raw="{oops"), {}) is None
    (paris,) = arguments_outcomes(expected, call("get_weather", {"city": "Paris"}), {}) or ()
    assert paris.ok and paris.path == "city"
    # An expectation without arguments accepts any arguments: nothing fails.
    outcomes = arguments_outcomes(ecall("get_weather"), call("get_weather", {"city": "Rome"}), {})
    assert outcomes is not None and all(o.ok for o in outcomes)
    # Written arguments: one the expectation does not allow is an unexpected argument.
    extra = arguments_outcomes(expected, call("get_weather", {"city": "Paris", "units": "metric"}), {})
    assert extra is not None and [o.reason for o in extra if not o.ok] == ["unexpected_argument"]


def test_pair_costs_block_other_tools_and_match_each_pair_once():
    expected_calls = (ecall("get_weather", {"city": "Paris"}, times=(2, 2)),)
    calls = (call("get_weather", {"city": "Paris"}), call("search", {"query": "x"}), call("get_weather", {}))
    costs, outcomes = pair_costs(expected_calls, [REQUIRED, REQUIRED], calls, {})
    assert costs == [[0.0, None, 1.0], [0.0, None, 1.0]]
    assert sorted(outcomes) == [(0, 0), (0, 2)]  # two slots of one expected call share the outcomes


def test_optimal_pairing_beats_first_fit():
    # First-fit gives slot 0 its cheapest call (0) and leaves slot 1 the expensive one: total 1.0.
    costs = [[0.0, 0.5], [0.0, 1.0]]
    slots = [Slot(0, True), Slot(1, True)]
    assert optimal_pairing(slots, ["t", "t"], costs, ["t", "t"]) == (0.5, [1, 0])


def test_optimal_pairing_never_pairs_different_tools_and_prices_what_is_left():
    # A required slot with no call of its tool, and a call nobody expects.
    assert optimal_pairing([REQUIRED], ["get_weather"], [[None]], ["search"]) == (
        MISS_REQUIRED + EXTRA,
        [None],
    )
    assert optimal_pairing([OPTIONAL], ["get_weather"], [[None]], ["search"]) == (
        MISS_OPTIONAL + EXTRA,
        [None],
    )
    assert optimal_pairing([], [], [], ["search", "search"]) == (2 * EXTRA, [])


def test_optimal_pairing_pairs_even_a_bad_call_rather_than_leaving_a_required_slot_unpaired():
    slots = [REQUIRED, REQUIRED, OPTIONAL]
    costs = [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    total, pairing = optimal_pairing(slots, ["t"] * 3, costs, ["t", "t"])
    assert (
        total == 2.0 + MISS_OPTIONAL
        and pairing[2] is None
        and sorted(j for j in pairing[:2] if j is not None) == [0, 1]
    )


def test_monotone_alignment_keeps_the_order_with_extras_between():
    # Slots A, B against calls A, X, B: pair A-0 and B-2, call 1 is an extra.
    costs = [[0.0, None, None], [None, None, 0.0]]
    assert monotone_alignment([Slot(0, True), Slot(1, True)], costs) == (EXTRA, [0, 2])
    assert monotone_alignment([], []) == (0.0, [])


def test_monotone_alignment_of_reversed_calls_leaves_one_unpaired():
    # Slots A, B against calls B, A: only one of them can pair in order.
    costs = [[None, 0.0], [0.0, None]]
    total, alignment = monotone_alignment([Slot(0, True), Slot(1, True)], costs)
    assert total == MISS_REQUIRED + EXTRA
    assert sum(j is not None for j in alignment) == 1 and keeps_order(alignment)


def test_keeps_order():
    assert keeps_order([0, None, 2]) and keeps_order([]) and keeps_order([None])
    assert not keeps_order([1, 0]) and not keeps_order([0, 0])


def test_pair_calls_prefers_an_order_preserving_pairing_among_the_optimal_ones():
    expectation = CallExpectation(calls=(ecall("get_weather"), ecall("get_weather")), order="in_order")
    calls = (call("get_weather"), call("get_weather"))
    pairing = pair_calls(expectation, calls, count_names(calls), {})
    assert pairing.pairs == (0, 1) and pairing.in_order


def test_pair_calls_reports_a_pairing_that_needs_another_order():
    expectation = CallExpectation(calls=(ecall("get_weather"), ecall("search")), order="in_order")
    calls = (call("search"), call("get_weather"))
    pairing = pair_calls(expectation, calls, count_names(calls), {})
    assert pairing.slots == (Slot(0, True), Slot(1, True))
    assert pairing.pairs == (1, 0) and not pairing.in_order


def test_pair_calls_pairs_by_argument_agreement():
    expectation = CallExpectation(
        calls=(ecall("get_weather", {"city": {"anything": True}}), ecall("get_weather", {"city": "Paris"}))
    )
    calls = (call("get_weather", {"city": "Paris"}), call("get_weather", {"city": "London"}))
    pairing = pair_calls(expectation, calls, count_names(calls), {})
    assert pairing.pairs == (1, 0)
    paired = pairing.outcomes[(1, 0)]
    assert paired is not None and [(o.path, o.ok) for o in paired] == [("city", True)]


def test_call_pairing_views():
    pairing = CallPairing(
        slots=(Slot(0, True), Slot(0, False), Slot(1, True), Slot(2, True)),
        pairs=(2, 0, None, 3),
        in_order=False,
        outcomes={},
    )
    assert pairing.made() == [(Slot(0, True), 2), (Slot(0, False), 0), (Slot(2, True), 3)]
    assert pairing.per_expected(3) == [2, 0, 1]
    assert pairing.first_pairs(3) == (2, None, 3)
    assert pairing.unpaired(5) == [1, 4]
