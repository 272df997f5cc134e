from __future__ import annotations

import pytest

from gate.results.settings import RunSettings
from gate.verdict.baseline import compare
from gate.verdict.policy import GatePolicy, decide
from tests.results_factory import run, simple, suite, trials_case


def test_each_suite_must_reach_its_own_threshold():
    results = run(simple(9, 1, name="a", threshold=0.9), simple(7, 3, name="b", threshold=0.8))
    verdict = decide(results, GatePolicy())
    assert not verdict.passed and verdict.exit_code == 1
    assert [s.passed for s in verdict.suites] == [True, False]
    assert verdict.pass_rate == pytest.approx(16 / 20)
    assert verdict.passed_count == 16 and verdict.failed_count == 4
    assert any("suite b" in r and "80.0%" in r for r in verdict.reasons)
    assert "FAILED" in verdict.summary_line and "16/20" in verdict.summary_line


def test_threshold_override_applies_to_every_suite():
    results = run(simple(7, 3, name="a", threshold=0.9))
    assert decide(results, GatePolicy()).exit_code == 1
    verdict = decide(results, GatePolicy(threshold=0.7))
    assert verdict.passed and verdict.exit_code == 0 and verdict.threshold == 0.7


def test_errors_count_as_not_passed_or_leave_the_denominator():
    results = run(simple(9, 0, errors=1, name="a", threshold=0.95))
    counted = decide(results, GatePolicy())
    assert counted.pass_rate == pytest.approx(0.9) and not counted.passed
    assert counted.error_count == 1 and counted.failed_count == 0  # kept apart from failures
    ignored = decide(results, GatePolicy(errors_count=False))
    assert ignored.pass_rate == 1.0 and ignored.passed and ignored.counted == 9


def test_skipped_cases_are_not_counted_and_interval_is_wilson():
    results = run(simple(9, 1, skipped=5))
    verdict = decide(results, GatePolicy())
    assert verdict.counted == 10 and verdict.skipped_count == 5
    low, high = verdict.interval
    assert low == pytest.approx(0.5958, abs=1e-4) and high == pytest.approx(0.9821, abs=1e-4)


def test_incomplete_results_exit_3():
    verdict = decide(run(simple(10, 0), complete=False, incomplete_reason="interrupted"), GatePolicy())
    assert verdict.exit_code == 3 and not verdict.passed
    assert any("interrupted" in r for r in verdict.reasons)
    assert "INCOMPLETE" in verdict.summary_line


def test_all_errors_means_the_evaluation_was_impossible():
    for policy in (GatePolicy(), GatePolicy(errors_count=False)):
        verdict = decide(run(simple(0, 0, errors=4)), policy)
        assert verdict.exit_code == 3


def test_nothing_to_evaluate_passes():
    verdict = decide(run(), GatePolicy())
    assert verdict.passed and verdict.exit_code == 0 and "no cases evaluated" in verdict.summary_line
    assert decide(run(simple(skipped=3)), GatePolicy()).passed


def test_fail_on_any_failure():
    results = run(simple(99, 1, threshold=0.5))
    assert decide(results, GatePolicy()).passed
    verdict = decide(results, GatePolicy(fail_on="any_failure"))
    assert verdict.exit_code == 1 and "1 case(s) failed" in verdict.reasons


def test_fail_on_regression_gates_only_on_regressions():
    base = run(suite("s", [trials_case("a", "p"), trials_case("b", "f")]))
    head_ok = run(suite("s", [trials_case("a", "p"), trials_case("b", "f")]))
    policy = GatePolicy(fail_on="regression")
    assert decide(head_ok, policy, compare(head_ok, base)).passed  # 50% but nothing regressed
    head_bad = run(suite("s", [trials_case("a", "f"), trials_case("b", "p")]))
    verdict = decide(head_bad, policy, compare(head_bad, base))
    assert verdict.exit_code == 1 and "s/a" in verdict.reasons[0]
    # without a baseline the threshold rule applies, and says so
    fallback = decide(head_ok, policy)
    assert not fallback.passed and "without a baseline" in fallback.reasons[0]


def test_flaky_cases_are_counted():
    verdict = decide(
        run(suite("s", [trials_case("a", "pfp", status="passed"), trials_case("b", "ppp")])), GatePolicy()
    )
    assert verdict.flaky_count == 1 and verdict.passed


def test_policy_from_settings():
    recorded = RunSettings.from_dict({"threshold": 0.5, "errors": "ignore", "fail_on": "any-failure"})
    policy = GatePolicy.from_settings(recorded)
    assert policy == GatePolicy(threshold=0.5, errors_count=False, fail_on="any_failure")
    assert GatePolicy.from_settings(RunSettings(), threshold=0.8) == GatePolicy(threshold=0.8)
    # what older results files wrote: errors_count, and no fail_on
    old = GatePolicy.from_settings(RunSettings.from_dict({"errors_count": False}))
    assert old == GatePolicy(errors_count=False, fail_on="threshold")
