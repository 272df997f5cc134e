from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.util.assignment import optimal_assignment


def brute_force(cost: list[list[float]]) -> float:
    rows, cols = len(cost), len(cost[0])
    if rows <= cols:
        return min(
            sum(cost[r][c] for r, c in enumerate(perm)) for perm in itertools.permutations(range(cols), rows)
        )
    return min(
        sum(cost[r][c] for c, r in enumerate(perm)) for perm in itertools.permutations(range(rows), cols)
    )


matrices = st.integers(1, 5).flatmap(
    lambda rows: st.integers(1, 5).flatmap(
        lambda cols: st.lists(
            st.lists(st.integers(0, 20).map(float), min_size=cols, max_size=cols),
            min_size=rows,
            max_size=rows,
        )
    )
)


def total_cost(cost, assignment):
    """The summed cost of an assignment (unassigned rows cost nothing)."""
    return sum(cost[r][c] for r, c in enumerate(assignment) if c is not None)


@settings(max_examples=300, deadline=None)
@given(matrices)
def test_optimal_assignment_matches_brute_force(cost):
    assignment = optimal_assignment(cost)
    assigned = [c for c in assignment if c is not None]
    assert len(assignment) == len(cost)
    assert len(assigned) == len(set(assigned)) == min(len(cost), len(cost[0]))
    assert total_cost(cost, assignment) == pytest.approx(brute_force(cost))


def test_greedy_first_fit_would_mispair():
    # Row 0 is cheapest at column 0, but row 1 can only go to column 0 cheaply.
    cost = [[1.0, 2.0], [1.0, 100.0]]
    assert optimal_assignment(cost) == [1, 0]


def test_more_rows_than_columns_leaves_the_costliest_row_unassigned():
    assert optimal_assignment([[5.0], [1.0], [3.0]]) == [None, 0, None]


def test_empty_shapes():
    assert optimal_assignment([]) == []
    assert optimal_assignment([[], []]) == [None, None]


def test_rejects_ragged_and_infinite():
    with pytest.raises(ValueError):
        optimal_assignment([[1.0, 2.0], [1.0]])
    with pytest.raises(ValueError):
        optimal_assignment([[float("inf")]])
