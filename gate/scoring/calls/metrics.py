"""Metrics of the calls (DESIGN.md section 3): tool-name precision, recall and F1 over multisets (both
empty = 1), and argument accuracy (the fraction of argument checks of the paired calls that passed),
with a failure for every argument check that failed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gate.results.outcomes import Failure
from gate.scoring.calls.pairing import Outcomes
from gate.suite.matcher_tree import to_json
from gate.suite.model import CallExpectation, ExpectedCall


@dataclass(frozen=True)
class ToolNameScores:
    precision: float
    recall: float
    f1: float


def is_constrained(expectation: CallExpectation) -> bool:
    """Whether the expectation says anything about the calls (else they are not scored: 1 each)."""
    return bool(expectation.calls) or expectation.no_calls or expectation.extra_calls == "forbid"


def tool_name_scores(
    expectation: CallExpectation, paired_per_expected: Sequence[int], named: Mapping[str, int]
) -> ToolNameScores:
    """Precision, recall and F1 of the called tool names against the expected ones, as multisets: an
    expected call counts ``times.min`` times, or as often as it was paired when that is more."""
    expected_multiset: dict[str, int] = {}
    for expected, paired in zip(expectation.calls, paired_per_expected, strict=True):
        copies = max(expected.times.min, paired)
        expected_multiset[expected.tool] = expected_multiset.get(expected.tool, 0) + copies
    true_positives = sum(min(count, named.get(name, 0)) for name, count in expected_multiset.items())
    n_expected, n_actual = sum(expected_multiset.values()), sum(named.values())
    if not is_constrained(expectation) or (n_expected == 0 and n_actual == 0):
        return ToolNameScores(1.0, 1.0, 1.0)
    precision = true_positives / n_actual if n_actual else 0.0
    recall = true_positives / n_expected if n_expected else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return ToolNameScores(precision, recall, f1)


@dataclass(frozen=True)
class ArgumentChecks:
    """The argument checks of paired calls: how many there were, how many failed, and a failure for
    each one that failed."""

    checked: int = 0
    failing: int = 0
    failures: tuple[Failure, ...] = ()

    @property
    def accuracy(self) -> float:
        return (self.checked - self.failing) / self.checked if self.checked else 1.0


def argument_checks(expected: ExpectedCall, j: int, outcomes: Outcomes) -> ArgumentChecks:
    """The argument checks of the pair (expected call, actual call ``j``). ``outcomes`` None: the
    call's arguments were unparseable (already an invalid_arguments failure), so every check fails."""
    if outcomes is None:
        count = max(1, len(expected.args))
        return ArgumentChecks(count, count)
    failures = tuple(
        Failure(
            outcome.reason or "value_error",
            f"{expected.tool} (call {j + 1}): argument {outcome.path!r}: {outcome.detail}",
            tool=expected.tool,
            argument=outcome.path,
            expected=to_json(outcome.expected),
            actual=outcome.actual,
        )
        for outcome in outcomes
        if not outcome.ok
    )
    return ArgumentChecks(len(outcomes), len(failures), failures)


def total(checks: Iterable[ArgumentChecks]) -> ArgumentChecks:
    """The argument checks of several pairs together."""
    checked = failing = 0
    failures: list[Failure] = []
    for one in checks:
        checked += one.checked
        failing += one.failing
        failures += one.failures
    return ArgumentChecks(checked, failing, tuple(failures))
