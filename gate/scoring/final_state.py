"""``expect.final_state``: the mock backend's state after the episode, checked per state path.

As tau-bench checks the database after an episode: each key of ``final_state`` is a state path (see
``gate.suite.mock_state``) and its value an argument matcher; every path that does not satisfy its matcher
is one ``state_mismatch`` failure naming the path, the expected matcher and the actual value (none
when the path holds nothing: the message says it is absent). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.results.outcomes import CheckScore, Failure
from gate.suite import mock_state
from gate.suite.matcher_tree import Matcher
from gate.suite.matchers import match_value
from gate.util.escape import show


def final_state_failures(expected: Mapping[str, Matcher], state: Any) -> list[Failure]:
    """One failure per state path whose value does not satisfy its matcher."""
    failures = []
    for path, matcher in expected.items():
        present, value = mock_state.lookup(state, path)
        outcome = match_value(matcher, present, value, path=path)
        if outcome.ok:
            continue
        # The matcher's own words say what was expected and what there is; an absent value is
        # absent (None), never a made-up string standing for it.
        written = matcher.json()
        if not present:
            said = f"absent; expected {show(written)}"
        else:
            said = outcome.detail or f"expected {show(written)}, got {show(value)}"
        failures.append(
            Failure(
                "state_mismatch",
                f"state {path}: {said}",
                argument=path,
                expected=written,
                actual=value if present else None,
            )
        )
    return failures


def final_state_check(expected: Mapping[str, Matcher], failures: list[Failure]) -> CheckScore:
    """The check score of the final state: the share of its paths that hold."""
    held = len(expected) - len(failures)
    return CheckScore(
        "final_state",
        held / len(expected),
        not failures,
        f"{held} of {len(expected)} state path(s) as expected",
    )
