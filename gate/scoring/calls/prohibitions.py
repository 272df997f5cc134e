"""Prohibitions: the calls an expectation rules out, whatever else matched.

``no_calls`` (every call is forbidden), ``forbidden_tools``, ``extra_calls: forbid`` (a call to a tool
no expected call names) and ``max_calls``. Each of them broken is a hard condition (DESIGN.md
section 3).
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.results.outcomes import Failure
from gate.results.run_record import RecordedCall
from gate.suite.model import CallExpectation
from gate.util.wording import plural


def is_prohibited(expectation: CallExpectation, name: str) -> bool:
    """Whether any call to tool ``name`` breaks ``no_calls`` or ``forbidden_tools``."""
    return expectation.no_calls or name in expectation.forbidden_tools


def forbidden_calls(expectation: CallExpectation, calls: Sequence[RecordedCall]) -> list[Failure]:
    """A *called when forbidden* failure for every call under ``no_calls`` or to a forbidden tool."""
    failures = []
    for j, call in enumerate(calls):
        if expectation.no_calls:
            failures.append(
                Failure(
                    "forbidden_call",
                    f"the case expects no tool calls, but the agent called {call.name} (call {j + 1})",
                    tool=call.name,
                    expected="no calls",
                    actual=call.name,
                )
            )
        elif call.name in expectation.forbidden_tools:
            failures.append(
                Failure(
                    "forbidden_call",
                    f"{call.name} is forbidden in this case, but was called (call {j + 1})",
                    tool=call.name,
                    actual=call.name,
                )
            )
    return failures


def extra_calls(
    expectation: CallExpectation, calls: Sequence[RecordedCall], leftover: Sequence[int]
) -> list[Failure]:
    """Under ``extra_calls: forbid``, an *extra call* failure for every leftover call (unpaired, not
    reported by another rule) to a tool no expected call names."""
    if expectation.extra_calls != "forbid":
        return []
    expected_names = {e.tool for e in expectation.calls}
    return [
        Failure(
            "extra_call",
            f"unexpected call to {calls[j].name} (call {j + 1}); extra calls are forbidden",
            tool=calls[j].name,
            actual=calls[j].arguments,
        )
        for j in leftover
        if calls[j].name not in expected_names
    ]


def over_max_calls(expectation: CallExpectation, n_calls: int) -> list[Failure]:
    """An *over call budget* failure when more calls were made than ``max_calls`` allows."""
    if expectation.max_calls is None or n_calls <= expectation.max_calls:
        return []
    return [
        Failure(
            "over_call_budget",
            f"{plural(n_calls, 'call')} made, the expectation allows at most {expectation.max_calls}",
            expected=expectation.max_calls,
            actual=n_calls,
        )
    ]
