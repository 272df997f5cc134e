"""Changes the declared state can never take (``gate.assembly.checks.state_shapes``), pure."""

from __future__ import annotations

import pytest

from gate.assembly.checks.state_shapes import changed_paths, shape_problem

STATE = {
    "bookings": [],
    "holds": {"H1": 1},
    "count": 3,
    "flights": {"UA100": {"seats": 2}},
    "log": [{"a": 1}],
}


@pytest.mark.parametrize(
    ("path", "change", "says"),
    [
        ("holds", "append", "'holds' is a mapping in the declared state: append needs a list"),
        ("count", "append", "'count' is a number in the declared state: append needs a list"),
        ("count.items", "append", "'count' is a number in the declared state: nothing can be appended"),
        ("flights.UA100.seats.left", "set", "'flights.UA100.seats' is a number in the declared state"),
        ("bookings.BK1", "set", "'bookings' is a list in the declared state: it has no key 'BK1'"),
        ("log.0.a.b", "set", "'log.0.a' is a number"),
    ],
)
def test_changes_the_declared_shape_refuses(path, change, says):
    why = shape_problem(STATE, path, change)
    assert why is not None and says in why, why


@pytest.mark.parametrize(
    ("path", "change"),
    [
        ("bookings", "append"),
        ("new_list", "append"),  # created when absent
        ("holds.H2", "set"),
        ("flights.UA200.seats", "set"),  # objects created on the way
        ("bookings.0", "set"),  # the list may have grown
        ("log.-1.a", "set"),
        ("holds.{{ args.id }}", "append"),  # known at run time only
        ("bookings.{{ args.id }}.x", "set"),
    ],
)
def test_changes_that_can_apply_are_left_alone(path, change):
    assert shape_problem(STATE, path, change) is None


def test_a_shape_some_rule_sets_or_removes_first_is_left_alone():
    changed = changed_paths([{"set": {"holds": []}}, {"remove": ["count"]}])
    assert shape_problem(STATE, "holds", "append", changed) is None
    assert shape_problem(STATE, "count.items", "append", changed) is None
    # A set below the node does not change the node's own shape.
    deeper = changed_paths([{"set": {"holds.H1": 2}}])
    assert shape_problem(STATE, "holds", "append", deeper) is not None
    templated = changed_paths([{"set": {"{{ args.key }}": []}}])
    assert shape_problem(STATE, "holds", "append", templated) is None
