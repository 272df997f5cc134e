"""Order: ``any`` (a multiset: nothing to check), ``in_order`` (the expected calls as a subsequence of
the calls, extras allowed between) and ``strict`` (exactly the expected sequence, nothing outside it)."""

from __future__ import annotations

from collections.abc import Sequence

from gate.results.outcomes import Failure
from gate.results.run_record import RecordedCall
from gate.scoring.calls.pairing import CallPairing
from gate.suite.model import CallExpectation


def order_failures(
    expectation: CallExpectation, pairing: CallPairing, calls: Sequence[RecordedCall], unpaired: Sequence[int]
) -> list[Failure]:
    """An *order violation* when ``in_order`` / ``strict`` needed a pairing that does not keep the
    calls' order, or when ``strict`` calls were made outside the expected sequence."""
    if expectation.order == "any":
        return []
    slot_tools = [expectation.calls[slot.expected].tool for slot in pairing.slots]
    actual = [c.name for c in calls]
    if not pairing.in_order:
        shown = [calls[j].name if j is not None else "-" for j in pairing.pairs]
        return [
            Failure(
                "order_violation",
                f"calls were not made in the expected order ({expectation.order}): expected "
                f"{slot_tools}, paired calls in order {shown}",
                expected=slot_tools,
                actual=actual,
            )
        ]
    if expectation.order == "strict" and unpaired:
        extras = [f"{calls[j].name} (call {j + 1})" for j in unpaired]
        required = [expectation.calls[slot.expected].tool for slot in pairing.slots if slot.required]
        return [
            Failure(
                "order_violation",
                f"strict order forbids calls outside the expected sequence: {', '.join(extras)}",
                expected=required,
                actual=actual,
            )
        ]
    return []
