"""Hard conditions (DESIGN.md section 3) fail a trial in every scoring mode and under every reducer."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.scoring.reducers import case_result
from gate.scoring.trial import score_trial
from gate.suite.model import Scoring
from tests.builders import call, case, ecall, expectation, record, suite

PARIS = {"city": "Paris"}

# Each hard condition: the expectation keywords and the calls that break it.
HARD: dict[str, tuple[dict[str, Any], tuple[Any, ...]]] = {
    "expected call missing": (
        {"calls": (ecall("get_weather", PARIS), ecall("search", {"query": "x"}))},
        (call("get_weather", PARIS),),
    ),
    "forbidden tool called": (
        {"calls": (ecall("get_weather", PARIS),), "forbidden_tools": ("search",)},
        (call("get_weather", PARIS), call("search", {"query": "x"})),
    ),
    "no_calls broken": ({"calls": (), "no_calls": True}, (call("get_weather", PARIS),)),
    "extra call forbidden": (
        {"calls": (ecall("get_weather", PARIS),), "extra_calls": "forbid"},
        (call("get_weather", PARIS), call("search", {"query": "x"})),
    ),
    "extra call to an expected tool forbidden": (  # wrong_count above times.max, under forbid
        {"calls": (ecall("get_weather", PARIS),), "extra_calls": "forbid"},
        (call("get_weather", PARIS), call("get_weather", PARIS)),
    ),
    "more than max_calls": (
        {"calls": (ecall("get_weather", PARIS),), "max_calls": 1},
        (call("get_weather", PARIS), call("search", {"query": "x"})),
    ),
    "hallucinated tool": (
        {"calls": (ecall("get_weather", PARIS),)},
        (call("get_weather", PARIS), call("book_flight", {"to": "Rome"})),
    ),
    "invalid arguments JSON": (
        {"calls": (ecall("get_weather", PARIS),)},
        (call("get_weather", PARIS), call("search", raw="{not json")),
    ),
    "schema violation": (
        {"calls": (ecall("get_weather", PARIS),)},
        (call("get_weather", PARIS), call("search", {"query": 5})),
    ),
}

DEFAULT_WEIGHTS = {"precision": 0.3, "recall": 0.3, "arguments": 0.3, "output": 0.1}


def hard_case(name: str, scoring: Scoring, **case_kw: Any):
    expect_kw, calls = HARD[name]
    expect_kw = dict(expect_kw)
    wanted = expect_kw.pop("calls")
    c = case(expect=expectation(*wanted, **expect_kw), scoring=scoring, **case_kw)
    return c, record(*calls)


@pytest.mark.parametrize("name", sorted(HARD))
def test_weighted_mode_fails_a_broken_hard_condition_with_score_zero(name):
    c, r = hard_case(name, Scoring(mode="weighted", pass_score=0.01, weights=DEFAULT_WEIGHTS))
    result = score_trial(suite(c), c, r, 0, {})
    assert result.status == "failed" and result.score == 0.0
    assert result.failures  # with its reason
    assert "below_pass_score" not in [f.reason for f in result.failures]


def test_score_in_all_mode_is_one_or_zero():
    c = case(expect=expectation(ecall("get_weather", {"city": "Paris", "units": "metric"})))
    wrong_units = record(call("get_weather", {"city": "Paris", "units": "imperial"}))
    result = score_trial(suite(c), c, wrong_units, 0, {})
    assert (result.status, result.score) == ("failed", 0.0)
    ok = score_trial(suite(c), c, record(call("get_weather", {"city": "Paris", "units": "metric"})), 0, {})
    assert (ok.status, ok.score) == ("passed", 1.0)


def test_weighted_case_under_its_pass_score_names_score_and_pass_score():
    c = case(
        expect=expectation(ecall("get_weather", {"city": "Paris", "units": "metric"})),
        scoring=Scoring(mode="weighted", pass_score=0.9, weights=DEFAULT_WEIGHTS),
    )
    result = score_trial(
        suite(c), c, record(call("get_weather", {"city": "Paris", "units": "imperial"})), 0, {}
    )
    assert result.status == "failed" and result.score == pytest.approx(0.85)
    below = [f for f in result.failures if f.reason == "below_pass_score"]
    assert len(below) == 1
    assert "0.850" in below[0].message and "0.9" in below[0].message
    assert (below[0].expected, below[0].actual) == (0.9, 0.85)


def test_mean_reducer_never_passes_a_case_whose_every_trial_failed():
    c = case(
        expect=expectation(ecall("get_weather", {"city": "Paris", "units": "metric"})),
        scoring=Scoring(mode="weighted", pass_score=0.9, weights=DEFAULT_WEIGHTS),
        reducer="mean",
        mean_pass_score=0.5,
        trials=3,
    )
    r = record(call("get_weather", {"city": "Paris", "units": "imperial"}))
    trials = [score_trial(suite(c), c, r, i, {}) for i in range(3)]
    assert all(t.status == "failed" and t.score == pytest.approx(0.85) for t in trials)
    assert case_result(suite(c), c, trials).status == "failed"


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(sorted(HARD)),
    mode=st.sampled_from(["all", "weighted"]),
    weights=st.dictionaries(
        st.sampled_from(["precision", "recall", "arguments", "output"]),
        st.floats(min_value=0.0, max_value=10.0, allow_nan=False),
    ),
    pass_score=st.floats(min_value=0.0, max_value=1.0),
    reducer=st.sampled_from(["all", "any", "at_least", "majority", "mean"]),
    mean_pass_score=st.floats(min_value=0.0, max_value=1.0),
    n_trials=st.integers(min_value=1, max_value=4),
)
def test_no_mode_weights_or_reducer_passes_a_trial_that_broke_a_hard_condition(
    name, mode, weights, pass_score, reducer, mean_pass_score, n_trials
):
    c, r = hard_case(
        name,
        Scoring(mode=mode, pass_score=pass_score, weights=weights),
        reducer=reducer,
        at_least=1,
        mean_pass_score=mean_pass_score,
        trials=n_trials,
    )
    trials = [score_trial(suite(c), c, r, i, {}) for i in range(n_trials)]
    for trial in trials:
        assert trial.status == "failed" and trial.score == 0.0 and trial.failures
    assert case_result(suite(c), c, trials).status == "failed"
