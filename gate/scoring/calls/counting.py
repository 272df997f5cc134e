"""Counting: did each expected call get its number of calls, and no expected tool more than allowed?

An expected call paired with fewer calls than ``times.min`` is missing (a hard condition) and says
why: some calls matched it but too few (*wrong count*), the agent called another tool instead
(*wrong tool*, which feeds the confusion table), its tool's calls matched other expectations better
(*wrong count*), or its tool was never called (*missing call*). An expected tool called more often
than its expectations allow is a *wrong count* too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.results.outcomes import Failure
from gate.results.run_record import RecordedCall
from gate.suite.model import ExpectedCall, Suite, Times
from gate.util.escape import show
from gate.util.wording import plural


def times_text(times: Times) -> str:
    if times.max == times.min:
        return f"exactly {times.min}"
    if times.max is None:
        return f"at least {times.min}"
    return f"{times.min} to {times.max}"


def _times_calls(times: Times, kind: str = "") -> str:
    """``exactly 1 call``, ``at least 2 matching calls``, ``1 to 3 calls``."""
    most = times.max if times.max is not None else times.min
    return f"{times_text(times)} {kind}{'call' if most == 1 else 'calls'}"


def expected_call_text(expected: ExpectedCall) -> str:
    """The expected call as a failure names it: ``get_weather(city="London")``; ``get_weather(...)``
    when it takes any arguments, ``get_weather()`` when none."""
    if not expected.args:
        return f"{expected.tool}({'...' if expected.allow_extra_args else ''})"
    shown = ", ".join(f"{name}={show(matcher.json(), 60)}" for name, matcher in expected.args.items())
    more = ", ..." if expected.allow_extra_args else ""
    return f"{expected.tool}({shown}{more})"


@dataclass(frozen=True)
class Shortfall:
    """The expected calls that got too few calls: a failure each; ``missing`` whether there was any
    (a hard condition); ``wrong_tool_calls`` the calls named as the wrong tool for one of them."""

    failures: tuple[Failure, ...]
    missing: bool
    wrong_tool_calls: frozenset[int]


def _too_few(expected: ExpectedCall, paired: int, named: Mapping[str, int]) -> Failure:
    call = expected_call_text(expected)
    return Failure(
        "wrong_count",
        f"expected {_times_calls(expected.times, 'matching ')} to {call}, got {paired} "
        f"({plural(named[expected.tool], 'call')} to {expected.tool} in total)",
        tool=expected.tool,
        expected=f"{call} {times_text(expected.times)}",
        actual=paired,
    )


def _wrong_tool(expected: ExpectedCall, call: RecordedCall, j: int) -> Failure:
    return Failure(
        "wrong_tool",
        f"expected {expected_call_text(expected)}, but the agent called {call.name} (call {j + 1})",
        tool=call.name,
        expected=expected_call_text(expected),
        actual=call.name,
        expected_tool=expected.tool,
    )


def _matched_elsewhere(expected: ExpectedCall, named: Mapping[str, int]) -> Failure:
    call = expected_call_text(expected)
    made = plural(named.get(expected.tool, 0), "call")
    return Failure(
        "wrong_count",
        f"expected {_times_calls(expected.times)} to {call}, got none: {expected.tool}'s {made} matched "
        "other expectations better",
        tool=expected.tool,
        expected=f"{call} {times_text(expected.times)}",
        actual=0,
    )


def _missing_call(expected: ExpectedCall) -> Failure:
    return Failure(
        "missing_call",
        f"expected {_times_calls(expected.times)} to {expected_call_text(expected)}, none was made",
        tool=expected.tool,
        expected=expected_call_text(expected),
        actual=None,
    )


def _wrong_tool_candidate(
    suite: Suite,
    expected: ExpectedCall,
    calls: Sequence[RecordedCall],
    free: Sequence[int],
    expected_names: set[str],
) -> int | None:
    """The call to blame as the wrong tool for an expected call nothing was paired with: an unpaired
    call of another defined tool, preferably of a tool nothing expects; None when there is none."""
    candidates = [j for j in free if calls[j].name != expected.tool and suite.tool(calls[j].name) is not None]
    preferred = [j for j in candidates if calls[j].name not in expected_names] or candidates
    return preferred[0] if preferred else None


def shortfall(
    suite: Suite,
    expected_calls: Sequence[ExpectedCall],
    calls: Sequence[RecordedCall],
    named: Mapping[str, int],
    paired_per_expected: Sequence[int],
    unpaired: Sequence[int],
) -> Shortfall:
    """The expected calls paired with fewer calls than ``times.min``, each with its reason; each
    unpaired call is blamed as the wrong tool at most once."""
    expected_names = {e.tool for e in expected_calls}
    failures: list[Failure] = []
    wrong_tool_calls: set[int] = set()
    missing = False
    for expected, paired in zip(expected_calls, paired_per_expected, strict=True):
        if paired >= expected.times.min:
            continue
        missing = True
        if paired > 0:
            failures.append(_too_few(expected, paired, named))
            continue
        free = [j for j in unpaired if j not in wrong_tool_calls]
        j = _wrong_tool_candidate(suite, expected, calls, free, expected_names)
        if j is not None:
            wrong_tool_calls.add(j)
            failures.append(_wrong_tool(expected, calls[j], j))
        elif named.get(expected.tool, 0):
            failures.append(_matched_elsewhere(expected, named))
        else:
            failures.append(_missing_call(expected))
    return Shortfall(tuple(failures), missing, frozenset(wrong_tool_calls))


def surplus(
    expected_calls: Sequence[ExpectedCall],
    calls: Sequence[RecordedCall],
    named: Mapping[str, int],
    leftover: Sequence[int],
) -> list[Failure]:
    """A *wrong count* for every expected tool with leftover calls (unpaired calls no other rule
    reported): called more often than its expectations allow, in the order of the first leftover."""
    over: dict[str, None] = {}
    expected_names = {e.tool for e in expected_calls}
    for j in leftover:
        if calls[j].name in expected_names:
            over[calls[j].name] = None
    failures = []
    for name in over:
        high = sum(e.times.max for e in expected_calls if e.tool == name and e.times.max is not None)
        failures.append(
            Failure(
                "wrong_count",
                f"{name}: called {named[name]} times, expected at most {high}",
                tool=name,
                expected=f"at most {high}",
                actual=named[name],
            )
        )
    return failures
