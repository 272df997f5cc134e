from __future__ import annotations

import json

import pytest

from gate.results.outcomes import Failure, Metrics, TrialResult
from gate.scoring.reducers import case_result, case_status, skipped_result
from tests.builders import case, record, suite


def trial(index, status, score=None, latency=100.0, tokens=10):
    score = score if score is not None else (1.0 if status == "passed" else 0.0)
    metrics = Metrics(precision=score, latency_ms=latency, input_tokens=tokens)
    return TrialResult(index, status, score, (), (), metrics, record())


def result(statuses, **case_kw):
    c = case(**case_kw)
    return case_result(suite(c), c, [trial(i, s) for i, s in enumerate(statuses)])


def test_all_is_pass_to_the_k():
    assert result(["passed", "passed", "passed"]).status == "passed"
    assert result(["passed", "failed", "passed"]).status == "failed"


def test_any_is_pass_at_k():
    assert result(["failed", "failed", "passed"], reducer="any").status == "passed"
    assert result(["failed", "failed"], reducer="any").status == "failed"


def test_at_least():
    assert result(["passed", "failed", "passed"], reducer="at_least", at_least=2).status == "passed"
    assert result(["passed", "failed", "failed"], reducer="at_least", at_least=2).status == "failed"


def test_majority_needs_more_than_half():
    assert result(["passed", "passed", "failed"], reducer="majority").status == "passed"
    assert result(["passed", "failed"], reducer="majority").status == "failed"


def test_mean_score_against_mean_pass_score():
    c = case(reducer="mean", mean_pass_score=0.6)
    trials = [trial(0, "failed", 0.5), trial(1, "passed", 0.8)]
    assert case_result(suite(c), c, trials).status == "passed"  # mean 0.65
    c2 = case(reducer="mean", mean_pass_score=0.7)
    assert case_result(suite(c2), c2, trials).status == "failed"


def test_flaky_when_trials_disagree():
    assert result(["passed", "failed"], reducer="any").flaky
    assert not result(["passed", "passed"]).flaky
    assert not result(["failed", "failed"]).flaky


def test_errored_trials_are_excluded_from_the_reducer():
    r = result(["error", "passed", "passed"])
    assert r.status == "passed" and not r.flaky
    assert r.score == 1.0


def test_at_least_short_of_its_count_only_through_errored_trials_is_an_error():
    r = result(["error", "error", "error", "passed", "passed"], trials=5, reducer="at_least", at_least=3)
    assert r.status == "error"  # the errored trials might have passed: not the agent's failure
    c = case(trials=5, reducer="at_least", at_least=3)
    broken = TrialResult(
        0, "error", 0.0, (Failure("provider_error", "the provider failed: 500"),), (), Metrics(), record()
    )
    statuses = ["failed", "passed", "passed", "error"]
    r = case_result(suite(c), c, [broken, *(trial(i + 1, s) for i, s in enumerate(statuses))])
    assert r.status == "error" and [f.reason for f in r.failures] == ["provider_error"]  # why, not a failure
    r = result(["error", "failed", "failed", "failed", "passed"], trials=5, reducer="at_least", at_least=3)
    assert r.status == "failed"  # 1 passed + 1 errored can never make 3
    r = result(["error", "passed", "passed", "passed", "failed"], trials=5, reducer="at_least", at_least=3)
    assert r.status == "passed"


def test_a_mean_under_mean_pass_score_of_trials_that_all_passed_fails_with_a_reason():
    c = case(trials=3, reducer="mean", mean_pass_score=0.9)  # weighted trials pass at 0.85 each
    r = case_result(suite(c), c, [trial(i, "passed", 0.85) for i in range(3)])
    assert r.status == "failed"
    (failure,) = r.failures  # never a failed case without a reason
    assert failure.reason == "below_pass_score" and "mean trial score 0.850" in failure.message
    assert "mean_pass_score 0.9 " in failure.message  # the score it is under, as a weighted trial's says
    assert (failure.expected, failure.actual) == (0.9, 0.85)
    # The results file keeps the reason: the case read back says the same.
    from gate.results_json.codec import parse_results, to_json
    from tests.results_factory import run
    from tests.results_factory import suite as result_suite

    written = json.loads(to_json(run(result_suite("s", [r]))))
    assert written["suites"][0]["cases"][0]["failures"][0]["message"] == failure.message
    assert parse_results(written).suites[0].cases[0].failures == (failure,)


def test_at_least_short_with_every_trial_passed_says_so_not_a_mean():
    # Fewer trials than at_least (validate and `run --trials` refuse it; the reducer still explains it).
    r = result(["passed"], trials=1, reducer="at_least", at_least=3)
    (failure,) = r.failures
    assert r.status == "failed" and failure.reason == "below_pass_score"
    assert failure.message == "1 of 1 trials passed; reducer at_least needs 3 to pass"
    assert (failure.expected, failure.actual) == (3, 1)


def test_every_trial_errored_is_an_error():
    r = result(["error", "error"])
    assert r.status == "error" and r.score == 0.0 and not r.flaky


def test_metrics_are_means_over_counted_trials():
    c = case()
    trials = [
        trial(0, "passed", 1.0, latency=100, tokens=10),
        trial(1, "failed", 0.5, latency=300, tokens=21),
        trial(2, "error", 0.0, latency=9999, tokens=0),
    ]
    r = case_result(suite(c), c, trials)
    assert r.metrics.latency_ms == pytest.approx(200)
    assert r.metrics.precision == pytest.approx(0.75)
    assert r.metrics.input_tokens == 16  # round(15.5) -> 16 (banker's rounding to even)
    assert r.score == pytest.approx(0.75)


def test_case_result_identifies_the_case():
    c = case(id="paris-now", tags=("selection",))
    r = case_result(suite(c), c, [trial(1, "passed"), trial(0, "passed")])
    assert (r.suite, r.case_id, r.file, r.line, r.tags) == (
        "weather",
        "paris-now",
        "suites/weather.yaml",
        10,
        ("selection",),
    )
    assert [t.index for t in r.trials] == [0, 1]
    assert r.expected["order"] == "any"


def test_skipped_result_keeps_the_reason():
    c = case(skip="flaky upstream")
    r = skipped_result(suite(c), c)
    assert (r.status, r.skip_reason, r.trials) == ("skipped", "flaky upstream", ())


def test_a_case_without_a_counted_trial_is_an_error_under_every_reducer():
    for reducer in ("all", "any", "at_least", "majority", "mean"):
        assert case_status(case(reducer=reducer), 0, 0, 0, 0.0) == "error"
        assert result([], reducer=reducer).status == "error"
