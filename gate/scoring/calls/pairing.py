"""Pairing expected calls with actual calls by optimal assignment on argument agreement.

Expected calls are expanded by ``times`` into slots (the required copies, plus optional copies up to
``max``) and paired with the actual calls: the cost of a pair is the fraction of failing argument
outcomes, calls of different tools never pair, an unpaired required copy costs more than any pair, so
pairing maximises the calls accounted for first and argument agreement second. Among the optimal
pairings an order-preserving one is preferred; whether one was found is ``CallPairing.in_order``
(for ``in_order`` / ``strict`` expectations, needing a non-order-preserving one is an order violation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gate.results.run_record import RecordedCall
from gate.suite.judging import JudgeVerdict
from gate.suite.matchers import MatchOutcome, match_arguments
from gate.suite.model import CallExpectation, ExpectedCall
from gate.util.assignment import optimal_assignment

MISS_REQUIRED = 3.0  # an unpaired required copy: worse than any pair and than leaving optional ones
MISS_OPTIONAL = 1.0
EXTRA = 1.0  # an unpaired actual call
BLOCKED = 1e6  # a pair that is not allowed (different tools)

# The argument outcomes of one pair; None when the call's arguments are not a JSON object.
Outcomes = tuple[MatchOutcome, ...] | None
# costs[slot][call]: the cost of pairing them; None when they may not pair (different tools).
Costs = Sequence[Sequence[float | None]]


@dataclass(frozen=True)
class Slot:
    """One copy of an expected call: ``expected`` indexes ``CallExpectation.calls``; ``required``
    copies come from ``times.min``, the others are optional (up to ``times.max``)."""

    expected: int
    required: bool


@dataclass(frozen=True)
class CallPairing:
    """The chosen pairing: ``pairs[i]`` is the index of the actual call paired with ``slots[i]`` (None:
    unpaired); ``in_order`` whether the paired calls keep the slots' order; ``outcomes`` the argument
    outcomes of every pair tried, keyed by (expected call index, actual call index)."""

    slots: tuple[Slot, ...]
    pairs: tuple[int | None, ...]
    in_order: bool
    outcomes: Mapping[tuple[int, int], Outcomes]

    def made(self) -> list[tuple[Slot, int]]:
        """The pairs made, in slot order: (slot, index of its actual call)."""
        return [(slot, j) for slot, j in zip(self.slots, self.pairs, strict=True) if j is not None]

    def per_expected(self, n_expected: int) -> list[int]:
        """How many actual calls each expected call was paired with."""
        counts = [0] * n_expected
        for slot, _ in self.made():
            counts[slot.expected] += 1
        return counts

    def first_pairs(self, n_expected: int) -> tuple[int | None, ...]:
        """Expected call i -> the first actual call paired with it (None: none)."""
        first: list[int | None] = [None] * n_expected
        for slot, j in self.made():
            if first[slot.expected] is None:
                first[slot.expected] = j
        return tuple(first)

    def unpaired(self, n_calls: int) -> list[int]:
        """The indices of the actual calls paired with no slot, in call order."""
        paired = set(self.pairs)
        return [j for j in range(n_calls) if j not in paired]


def count_names(calls: Sequence[RecordedCall]) -> dict[str, int]:
    """How many calls each tool got."""
    counts: dict[str, int] = {}
    for call in calls:
        counts[call.name] = counts.get(call.name, 0) + 1
    return counts


def expand_slots(expectation: CallExpectation, named: Mapping[str, int]) -> list[Slot]:
    """The slots of an expectation: ``times.min`` required copies of each expected call, then optional
    copies up to ``times.max`` (unbounded: up to the number of calls its tool got)."""
    slots: list[Slot] = []
    for index, expected in enumerate(expectation.calls):
        low = max(0, expected.times.min)
        high = expected.times.max if expected.times.max is not None else max(low, named.get(expected.tool, 0))
        slots += [Slot(index, True)] * low
        slots += [Slot(index, False)] * max(0, high - low)
    return slots


def arguments_outcomes(
    expected: ExpectedCall, call: RecordedCall, verdicts: Mapping[str, JudgeVerdict]
) -> Outcomes:
    """The argument outcomes of pairing ``call`` with ``expected`` (None: unparseable arguments)."""
    if call.arguments is None:
        return None
    return match_arguments(expected.args, call.arguments, expected.allow_extra_args, verdicts)


def pair_cost(outcomes: Outcomes) -> float:
    """The fraction of failing argument outcomes (unparseable arguments: 1, no arguments checked: 0)."""
    if outcomes is None:
        return 1.0
    if not outcomes:
        return 0.0
    return sum(1 for o in outcomes if not o.ok) / len(outcomes)


def miss_cost(slot: Slot) -> float:
    return MISS_REQUIRED if slot.required else MISS_OPTIONAL


def pair_costs(
    expected_calls: Sequence[ExpectedCall],
    slots: Sequence[Slot],
    calls: Sequence[RecordedCall],
    verdicts: Mapping[str, JudgeVerdict],
) -> tuple[list[list[float | None]], dict[tuple[int, int], Outcomes]]:
    """The cost of every (slot, call) pair and the argument outcomes behind it, each pair of an
    expected call and an actual call matched once however many slots the expected call has."""
    outcomes: dict[tuple[int, int], Outcomes] = {}
    costs: list[list[float | None]] = []
    for slot in slots:
        expected = expected_calls[slot.expected]
        row: list[float | None] = []
        for j, call in enumerate(calls):
            if call.name != expected.tool:
                row.append(None)
                continue
            key = (slot.expected, j)
            if key not in outcomes:
                outcomes[key] = arguments_outcomes(expected, call, verdicts)
            row.append(pair_cost(outcomes[key]))
        costs.append(row)
    return costs, outcomes


Move = Literal["", "miss", "extra", "pair"]


def monotone_alignment(slots: Sequence[Slot], costs: Costs) -> tuple[float, list[int | None]]:
    """The cheapest order-preserving alignment of slots to actual calls (edit-distance style) and its
    total cost, with the same costs as ``optimal_pairing``."""
    if not slots:
        return 0.0, []
    n, m = len(slots), len(costs[0])
    inf = float("inf")
    best = [[inf] * (m + 1) for _ in range(n + 1)]
    step: list[list[Move]] = [[""] * (m + 1) for _ in range(n + 1)]
    best[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            here = best[i][j]
            if here == inf:
                continue
            if i < n:
                miss = here + miss_cost(slots[i])
                if miss < best[i + 1][j] - 1e-12:
                    best[i + 1][j], step[i + 1][j] = miss, "miss"
            if j < m:
                extra = here + EXTRA
                if extra < best[i][j + 1] - 1e-12:
                    best[i][j + 1], step[i][j + 1] = extra, "extra"
            cost = costs[i][j] if i < n and j < m else None
            if cost is not None:
                pair = here + cost
                if pair < best[i + 1][j + 1] - 1e-12:
                    best[i + 1][j + 1], step[i + 1][j + 1] = pair, "pair"
    alignment: list[int | None] = [None] * n
    i, j = n, m
    while i or j:
        move = step[i][j]
        if move == "pair":
            alignment[i - 1] = j - 1
            i, j = i - 1, j - 1
        elif move == "miss":
            i -= 1
        else:
            j -= 1
    return best[n][m], alignment


def _assign_tool(
    slots: Sequence[Slot], rows: Sequence[int], cols: Sequence[int], costs: Costs
) -> tuple[float, dict[int, int]]:
    """Optimal pairing of several slots with the calls of their one tool: assignment on a square
    matrix whose extra rows/columns stand for "left unpaired". Returns the cost of the slots (paired
    or missed) and slot index -> call index for the pairs."""
    n, m = len(rows), len(cols)
    size = n + m
    matrix = [[BLOCKED] * size for _ in range(size)]
    for r, i in enumerate(rows):
        for c, j in enumerate(cols):
            cost = costs[i][j]
            assert cost is not None  # calls of the slot's own tool always have a cost
            matrix[r][c] = cost
        matrix[r][m + r] = miss_cost(slots[i])
    for c in range(m):
        matrix[n + c][c] = EXTRA
        for k in range(n):
            matrix[n + c][m + k] = 0.0
    assignment = optimal_assignment(matrix)
    total = 0.0
    pairs: dict[int, int] = {}
    for r, i in enumerate(rows):
        column = assignment[r]
        assert column is not None  # square matrix: every row is assigned
        total += matrix[r][column]
        if column < m:
            pairs[i] = cols[column]
    return total, pairs


def optimal_pairing(
    slots: Sequence[Slot], slot_tools: Sequence[str], costs: Costs, call_names: Sequence[str]
) -> tuple[float, list[int | None]]:
    """Optimal (not necessarily order-preserving) pairing and its total cost. Calls of different tools
    never pair, so each tool is solved on its own: one slot takes its cheapest call (pairing always
    beats leaving both unpaired); several slots go through ``_assign_tool``."""
    pairing: list[int | None] = [None] * len(slots)
    total = 0.0
    groups: dict[str, list[int]] = {}
    for i, tool in enumerate(slot_tools):
        groups.setdefault(tool, []).append(i)
    for tool, rows in groups.items():
        cols = [j for j, name in enumerate(call_names) if name == tool]
        if not cols:
            total += sum(miss_cost(slots[i]) for i in rows)
        elif len(rows) == 1:
            i = rows[0]
            cheapest = min(cols, key=lambda c: (costs[i][c] or 0.0, c))
            pairing[i] = cheapest
            cost = costs[i][cheapest]
            assert cost is not None  # calls of the slot's own tool always have a cost
            total += cost
        else:
            tool_cost, pairs = _assign_tool(slots, rows, cols, costs)
            total += tool_cost
            for i, j in pairs.items():
                pairing[i] = j
    paired = sum(1 for j in pairing if j is not None)
    total += EXTRA * (len(call_names) - paired)
    return total, pairing


def keeps_order(pairing: Sequence[int | None]) -> bool:
    """Whether the paired calls are in increasing call order, slot by slot."""
    paired = [j for j in pairing if j is not None]
    return all(a < b for a, b in zip(paired, paired[1:], strict=False))


def pair_calls(
    expectation: CallExpectation,
    calls: Sequence[RecordedCall],
    named: Mapping[str, int],
    verdicts: Mapping[str, JudgeVerdict],
) -> CallPairing:
    """Pair the expectation's slots with the calls: an optimal pairing, order-preserving when one of
    the optimal pairings is."""
    expected_calls = expectation.calls
    slots = expand_slots(expectation, named)
    costs, outcomes = pair_costs(expected_calls, slots, calls, verdicts)
    slot_tools = [expected_calls[slot.expected].tool for slot in slots]
    optimal_cost, pairing = optimal_pairing(slots, slot_tools, costs, [call.name for call in calls])
    in_order = keeps_order(pairing)
    if not in_order:
        ordered_cost, ordered = monotone_alignment(slots, costs)
        if ordered_cost <= optimal_cost + 1e-9:
            pairing, in_order = ordered, True
    return CallPairing(tuple(slots), tuple(pairing), in_order, outcomes)
