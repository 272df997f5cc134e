"""One call expectation against a trial's calls: the phases of ``gate.scoring.calls`` composed into a
``CallEval`` (failures, pairing, metrics), with a fast path for the common case that gives exactly
what the general one gives (``tests/scoring/test_trial_fast_paths.py`` holds them equal)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.results.outcomes import Failure
from gate.results.run_record import RecordedCall
from gate.scoring.calls import counting, metrics, order, pairing, prohibitions
from gate.suite.judging import JudgeVerdict
from gate.suite.matcher_tree import Value
from gate.suite.model import CallExpectation, ExpectedCall, Suite


@dataclass(frozen=True)
class CallEval:
    """How the calls fared against one call expectation. ``pairing``: expected call i -> the actual
    call it was (first) paired with; ``missing``: an expected call got too few calls (a hard
    condition); ``constrained``: the expectation says anything about the calls at all;
    ``surplus_forbidden``: an expected tool was called more often than allowed under ``extra_calls:
    forbid`` (reported as a *wrong count*; those calls are extra calls, a hard condition)."""

    failures: tuple[Failure, ...]
    pairing: tuple[int | None, ...]
    missing: bool
    precision: float
    recall: float
    f1: float
    argument_accuracy: float
    argument_checks: int
    constrained: bool
    surplus_forbidden: bool = False

    @property
    def passed(self) -> bool:
        return not self.failures


def evaluate_calls(
    suite: Suite,
    expectation: CallExpectation,
    calls: Sequence[RecordedCall],
    verdicts: Mapping[str, JudgeVerdict],
) -> CallEval:
    """Score the calls against the expectation."""
    simple = evaluate_one_to_one(expectation, calls, verdicts)
    if simple is not None:
        return simple
    return evaluate_by_assignment(suite, expectation, calls, verdicts)


def evaluate_by_assignment(
    suite: Suite,
    expectation: CallExpectation,
    calls: Sequence[RecordedCall],
    verdicts: Mapping[str, JudgeVerdict],
) -> CallEval:
    """The general evaluation: pairing, then the arguments of the pairs, counting, prohibitions,
    order and metrics. Failures come in that order (argument failures first)."""
    expected_calls = expectation.calls
    named = pairing.count_names(calls)
    paired = pairing.pair_calls(expectation, calls, named, verdicts)
    arguments = metrics.total(
        metrics.argument_checks(expected_calls[slot.expected], j, paired.outcomes[(slot.expected, j)])
        for slot, j in paired.made()
    )
    per_expected = paired.per_expected(len(expected_calls))
    unpaired = paired.unpaired(len(calls))
    short = counting.shortfall(suite, expected_calls, calls, named, per_expected, unpaired)
    # Unpaired calls no rule has reported yet (as a wrong tool, a forbidden or a hallucinated call).
    leftover = [
        j
        for j in unpaired
        if j not in short.wrong_tool_calls
        and not prohibitions.is_prohibited(expectation, calls[j].name)
        and suite.tool(calls[j].name) is not None
    ]
    surplus = counting.surplus(expected_calls, calls, named, leftover)
    failures = (
        *arguments.failures,
        *short.failures,
        *prohibitions.forbidden_calls(expectation, calls),
        *prohibitions.extra_calls(expectation, calls, leftover),
        *surplus,
        *order.order_failures(expectation, paired, calls, unpaired),
        *prohibitions.over_max_calls(expectation, len(calls)),
    )
    names = metrics.tool_name_scores(expectation, per_expected, named)
    return CallEval(
        failures=failures,
        pairing=paired.first_pairs(len(expected_calls)),
        missing=short.missing,
        precision=names.precision,
        recall=names.recall,
        f1=names.f1,
        argument_accuracy=arguments.accuracy,
        argument_checks=arguments.checked,
        constrained=metrics.is_constrained(expectation),
        surplus_forbidden=bool(surplus) and expectation.extra_calls == "forbid",
    )


def _one_to_one(expectation: CallExpectation, calls: Sequence[RecordedCall]) -> bool:
    """Whether the agent made exactly the expected calls, one to each expected tool (every ``times``
    exactly 1, no tool expected twice), in the expected order, none of them forbidden."""
    expected_calls = expectation.calls
    n = len(expected_calls)
    if not n or len(calls) != n or expectation.no_calls:
        return False
    forbidden = expectation.forbidden_tools
    for expected, call in zip(expected_calls, calls, strict=True):
        times = expected.times
        if (
            call.name != expected.tool
            or times.min != 1
            or times.max != 1
            or (forbidden and call.name in forbidden)
        ):
            return False
    return n == 1 or len({e.tool for e in expected_calls}) == n


def evaluate_one_to_one(
    expectation: CallExpectation, calls: Sequence[RecordedCall], verdicts: Mapping[str, JudgeVerdict]
) -> CallEval | None:
    """The common case (``_one_to_one``), scored without the assignment: the only possible pairing is
    call i with expected call i; the result is exactly what ``evaluate_by_assignment`` finds for it.
    None: not this case."""
    if not _one_to_one(expectation, calls):
        return None
    arguments = metrics.total(
        metrics.ArgumentChecks(len(expected.args))
        if literals_agree(expected, call.arguments)
        else metrics.argument_checks(expected, j, pairing.arguments_outcomes(expected, call, verdicts))
        for j, (expected, call) in enumerate(zip(expectation.calls, calls, strict=True))
    )
    n = len(calls)
    return CallEval(
        failures=(*arguments.failures, *prohibitions.over_max_calls(expectation, n)),
        pairing=tuple(range(n)),
        missing=False,
        precision=1.0,
        recall=1.0,
        f1=1.0,
        argument_accuracy=arguments.accuracy,
        argument_checks=arguments.checked,
        constrained=True,
    )


_MISSING = object()


def literals_agree(expected: ExpectedCall, arguments: Mapping[str, Any] | None) -> bool:
    """True when every expected argument is a scalar literal that the call's argument of the very
    same Python type equals, and the call has no argument the expectation does not allow: then
    ``match_arguments`` gives one passing outcome per expected argument and nothing else."""
    args = expected.args
    if arguments is None or not args:
        return False
    if not expected.allow_extra_args and len(arguments) != len(args):
        return False
    for name, matcher in args.items():
        if type(matcher) is not Value:
            return False
        value = arguments.get(name, _MISSING)
        if type(value) is not type(matcher.value) or value != matcher.value:
            return False
    return True
