"""The fast paths of scoring give exactly what the general code gives.

``gate.scoring.calls.evaluation.evaluate_calls`` scores the common case (the agent made exactly the
expected calls, once each, in order) without the assignment, and with scalar literal arguments
without match outcomes; the frozen results are built in one step. These tests compare each fast
path with the general code on generated inputs, so a change to one that the other does not follow
fails here.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.results.outcomes import CaseResult
from gate.scoring import trial as scoring
from gate.scoring.calls import evaluation
from gate.scoring.output_checks import shared_check
from gate.scoring.reducers import case_result
from gate.suite.model import CallExpectation
from tests.builders import call, case, ecall, expectation, record, suite

TOOLS = ("get_weather", "get_forecast", "book_flight")
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, 1.0, 2.5, -0.0, float("nan")]),
    st.sampled_from(["Paris", "paris", "", "5"]),
)
EXPECTED_VALUES = st.one_of(
    SCALARS, st.just({"one_of": ["Paris", 5]}), st.just({"optional": True}), st.just([1, 2])
)
ARGUMENT_NAMES = st.sampled_from(["city", "days", "units"])


@st.composite
def scenarios(draw: Any) -> tuple[CallExpectation, tuple]:
    n = draw(st.integers(1, 3))
    tools = draw(st.lists(st.sampled_from(TOOLS), min_size=n, max_size=n))
    expected = []
    for tool in tools:
        args = draw(st.dictionaries(ARGUMENT_NAMES, EXPECTED_VALUES, max_size=3))
        times = draw(st.sampled_from([(1, 1), (1, 1), (1, 1), (0, 1), (1, None), (2, 2)]))
        expected.append(ecall(tool, args, times=times, allow_extra_args=draw(st.booleans())))
    # Mostly the same tools in the same order (the fast path), sometimes not.
    names = list(tools) if draw(st.booleans()) or n == 1 else draw(st.permutations(tools))
    if draw(st.integers(0, 4)) == 0:
        names = draw(st.lists(st.sampled_from(TOOLS), max_size=4))
    made = []
    for i, name in enumerate(names):
        exp = expected[i % n]  # arguments mostly taken from an expectation, so that many pass
        written = {k: v.json() for k, v in exp.args.items()} if exp.tool == name else {}
        args = {k: v for k, v in written.items() if not isinstance(v, dict)}
        args.update(draw(st.dictionaries(ARGUMENT_NAMES, SCALARS, max_size=2)))
        if draw(st.integers(0, 9)) == 0:
            made.append(call(name, raw="{not json"))
        else:
            made.append(call(name, args))
    expectation_ = CallExpectation(
        calls=tuple(expected),
        order=draw(st.sampled_from(["any", "in_order", "strict"])),
        extra_calls=draw(st.sampled_from(["allow", "forbid"])),
        forbidden_tools=tuple(draw(st.lists(st.sampled_from(TOOLS), max_size=1))),
        max_calls=draw(st.sampled_from([None, 1, 3])),
    )
    return expectation_, tuple(made)


def _as_data(evaluation: evaluation.CallEval) -> Any:
    return repr([getattr(evaluation, f.name) for f in dataclasses.fields(evaluation)])


@settings(max_examples=400, deadline=None)
@given(scenarios())
def test_calls_fast_path_agrees_with_the_assignment(scenario: tuple[CallExpectation, tuple]) -> None:
    expectation_, calls = scenario
    s = suite()
    fast = evaluation.evaluate_calls(s, expectation_, calls, {})
    general = evaluation.evaluate_by_assignment(s, expectation_, calls, {})
    assert _as_data(fast) == _as_data(general)


def test_the_fast_path_is_taken_for_the_common_case() -> None:
    expectation_ = CallExpectation(
        calls=(ecall("get_weather", {"city": "Paris"}), ecall("get_forecast", {"days": 3}))
    )
    calls = (call("get_weather", {"city": "Paris"}), call("get_forecast", {"days": 3.0}))
    fast = evaluation.evaluate_one_to_one(expectation_, calls, {})
    assert fast is not None and fast.passed and fast.pairing == (0, 1) and fast.argument_checks == 2
    # Out of order or a repeated tool: the assignment decides.
    assert evaluation.evaluate_one_to_one(expectation_, calls[::-1], {}) is None
    twice = CallExpectation(calls=(ecall("get_weather"), ecall("get_weather")))
    assert evaluation.evaluate_one_to_one(twice, (call("get_weather"), call("get_weather")), {}) is None


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(ARGUMENT_NAMES, SCALARS, max_size=3),
    st.dictionaries(ARGUMENT_NAMES, SCALARS, max_size=3),
    st.booleans(),
)
def test_literal_shortcut_only_when_matching_passes_every_argument(
    expected: dict, actual: dict, extra: bool
) -> None:
    from gate.suite.matchers import match_arguments

    e = ecall("get_weather", expected, allow_extra_args=extra)
    if evaluation.literals_agree(e, actual):
        outcomes = match_arguments(e.args, actual, e.allow_extra_args)
        assert len(outcomes) == len(expected) and all(o.ok for o in outcomes)


def test_case_result_from_one_trial_equals_the_general_reduction() -> None:
    c = case(expect=expectation(ecall("get_weather", {"city": "Paris"})))
    s = suite(c)
    for r in (
        record(call("get_weather", {"city": "Paris"})),
        record(call("get_weather", {"city": "Rome"})),
        record(error="boom"),
    ):
        trial = scoring.score_trial(s, c, r, 0, {})
        one = case_result(s, c, [trial])
        # The same trial twice goes through the general reduction: same verdict and metrics.
        two = case_result(s, c, [trial, dataclasses.replace(trial, index=1)])
        assert (one.status, one.score, one.flaky, one.metrics) == (
            two.status,
            two.score,
            two.flaky,
            two.metrics,
        )
        assert isinstance(one, CaseResult) and one.trials == (trial,)


def test_shared_checks_keep_the_score_type() -> None:
    # 1, 1.0 and True are equal dictionary keys; the shared instances must not mix them up.
    assert type(shared_check("calls", 1.0, True, "d").score) is float
    assert type(shared_check("calls", 1, True, "d").score) is int
    assert shared_check("calls", 1.0, True, "d") is shared_check("calls", 1.0, True, "d")
