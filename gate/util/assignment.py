"""Optimal assignment (Hungarian / Kuhn-Munkres) on a rectangular cost matrix, pure Python.

Used to pair expected calls with actual calls (and the elements of ``unordered`` lists) by overall
agreement instead of greedy first-fit, which can mispair when an early expectation grabs the call a
later one needed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def optimal_assignment(cost: Sequence[Sequence[float]]) -> list[int | None]:
    """Assign rows to distinct columns minimising the total cost.

    Rows are the expected items, columns the actual ones. Returns, for each row, the column it was
    assigned or None; every row gets a column when there are at least as many columns as rows,
    otherwise exactly ``len(columns)`` rows do. Costs must be finite numbers; the matrix must be
    rectangular. Ties are broken deterministically. O(n^2 m) for n <= m.
    """
    rows = len(cost)
    if rows == 0:
        return []
    cols = len(cost[0])
    for row in cost:
        if len(row) != cols:
            raise ValueError("cost matrix must be rectangular")
        for value in row:
            if not math.isfinite(value):
                raise ValueError("costs must be finite numbers")
    if cols == 0:
        return [None] * rows
    if rows <= cols:
        return _hungarian(cost, rows, cols)
    # More rows than columns: solve the transposed problem (columns choose rows).
    transposed = [[cost[r][c] for r in range(rows)] for c in range(cols)]
    column_to_row = _hungarian(transposed, cols, rows)
    result: list[int | None] = [None] * rows
    for column, picked in enumerate(column_to_row):
        if picked is not None:
            result[picked] = column
    return result


def _hungarian(cost: Sequence[Sequence[float]], n: int, m: int) -> list[int | None]:
    """Shortest augmenting paths with potentials; requires n <= m. Indices are 1-based inside."""
    inf = math.inf
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    owner = [0] * (m + 1)  # owner[j]: row assigned to column j (0 = none)
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            row = cost[i0 - 1]
            delta = inf
            j1 = 0
            for j in range(1, m + 1):
                if used[j]:
                    continue
                current = row[j - 1] - u[i0] - v[j]
                if current < minv[j]:
                    minv[j] = current
                    way[j] = j0
                if minv[j] < delta:
                    delta = minv[j]
                    j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while True:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
            if j0 == 0:
                break
    result: list[int | None] = [None] * n
    for j in range(1, m + 1):
        if owner[j]:
            result[owner[j] - 1] = j - 1
    return result
