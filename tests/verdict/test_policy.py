from __future__ import annotations

import pytest

from gate.results.settings import RunSettings
from gate.verdict.baseline import compare
from gate.verdict.policy import GatePolicy, decide, verdict_mood
from gate.verdict.view import summary_line
from tests.results_factory import run, simple, suite, trials_case


def test_each_suite_must_reach_its_own_threshold():
    results = run(simple(9, 1, name="a", threshold=0.9), simple(7, 3, name="b", threshold=0.8))
    verdict = decide(results, GatePolicy())
    assert not verdict.passed and verdict.exit_code == 1
    assert [s.passed for s in verdict.suites] == [True, False]
    assert verdict.pass_rate == pytest.approx(16 / 20)
    assert verdict.passed_count == 16 and verdict.failed_count == 4
    assert any("suite b" in r and "80.0%" in r for r in verdict.reasons)
    assert "FAILED" in summary_line(verdict) and "16/20" in summary_line(verdict)


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
    assert "INCOMPLETE" in summary_line(verdict)


def test_all_errors_means_the_evaluation_was_impossible():
    for policy in (GatePolicy(), GatePolicy(errors_count=False)):
        verdict = decide(run(simple(0, 0, errors=4)), policy)
        assert verdict.exit_code == 3


def test_nothing_to_evaluate_passes():
    verdict = decide(run(), GatePolicy())
    assert verdict.passed and verdict.exit_code == 0 and "no cases evaluated" in summary_line(verdict)
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


# --- the error budget (max_error_rate, per suite) ------------------------------------------------


def test_errors_exactly_at_the_budget_leave_the_verdict_to_the_errors_policy():
    results = run(simple(18, 0, errors=2, threshold=0.8))  # 2 of 20: exactly 10%
    verdict = decide(results, GatePolicy())
    assert verdict.exit_code == 0 and verdict.reasons == ()
    assert not verdict.suites[0].over_error_budget
    counted = decide(run(simple(18, 0, errors=2, threshold=0.95)), GatePolicy())
    assert counted.exit_code == 1  # within the budget, the errors count against the gate
    assert decide(run(simple(18, 0, errors=2, threshold=0.95)), GatePolicy(errors_count=False)).passed


def test_errors_just_over_the_budget_leave_the_suite_without_a_verdict():
    results = run(simple(17, 0, errors=2, threshold=0.8))  # 2 of 19: 10.5%
    for policy in (GatePolicy(), GatePolicy(errors_count=False)):
        verdict = decide(results, policy)
        assert verdict.exit_code == 3 and not verdict.passed
        assert verdict.suites[0].undecided
        assert verdict.reasons == (
            "suite suite: 2 of 19 cases could not be evaluated (10.5%), more than the error budget of 10.0% "
            "(--max-error-rate); it has no verdict",
        )
        assert "INCOMPLETE" in summary_line(verdict)
    assert decide(results, GatePolicy(max_error_rate=0.2)).passed  # a wider budget decides it


def test_no_error_is_allowed_with_a_budget_of_0_and_every_one_but_all_with_1():
    assert decide(run(simple(99, 0, errors=1, threshold=0.5)), GatePolicy(max_error_rate=0)).exit_code == 3
    assert decide(run(simple(1, 0, errors=99, threshold=0.01)), GatePolicy(max_error_rate=1)).passed


def test_a_suite_all_errors_has_no_verdict_beside_one_that_passes():
    results = run(simple(10, 0, name="a"), simple(0, 0, errors=3, name="b"))
    verdict = decide(results, GatePolicy(max_error_rate=1))
    assert verdict.exit_code == 3
    assert [s.undecided for s in verdict.suites] == [False, True]
    assert verdict.reasons == ("suite b: none of its 3 case(s) could be evaluated; it has no verdict",)


def test_nothing_evaluated_at_all_is_said_once():
    verdict = decide(run(simple(0, 0, errors=4, name="a"), simple(errors=2, name="b")), GatePolicy())
    assert verdict.exit_code == 3
    assert verdict.reasons == ("no case could be evaluated: all 6 evaluated case(s) ended in errors",)


def test_over_the_budget_but_failing_whatever_the_errors_would_have_given_fails():
    results = run(simple(5, 3, errors=2, threshold=0.9))  # at best 7 of 10 passed: under 90%
    verdict = decide(results, GatePolicy())
    assert verdict.exit_code == 1 and not verdict.passed
    assert verdict.reasons == (
        "suite suite: pass rate 50.0% (5/10) is below the threshold 90.0%",
        "suite suite: 2 of 10 cases could not be evaluated (20.0%), more than the error budget of 10.0% "
        "(--max-error-rate); but it fails whatever they would have given",
    )
    # had the errors passed, 7 of 10 would reach 70%: then nothing stands
    assert decide(results, GatePolicy(threshold=0.7)).exit_code == 3


def test_a_suite_within_its_budget_that_fails_fails_the_gate_beside_one_without_a_verdict():
    results = run(simple(5, 5, name="a"), simple(8, 0, errors=2, name="b"))
    verdict = decide(results, GatePolicy())
    assert verdict.exit_code == 1
    assert verdict.reasons[0].startswith("suite a: pass rate 50.0%")
    assert verdict.reasons[1].startswith("suite b: 2 of 10") and verdict.reasons[1].endswith("no verdict")
    assert not any("suite b: pass rate" in r for r in verdict.reasons)  # b's rate depends on its errors


def test_any_failure_stands_on_a_failed_case_and_not_on_errors_beyond_the_budget():
    policy = GatePolicy(fail_on="any_failure")
    assert decide(run(simple(8, 0, errors=2)), policy).exit_code == 3
    failed = decide(run(simple(7, 1, errors=2)), policy)
    assert failed.exit_code == 1 and failed.reasons[0] == "1 case(s) failed"


def test_regressions_stand_beside_errors_and_a_base_side_beyond_the_budget_decides_nothing():
    base = run(suite("s", [trials_case("a", "p"), trials_case("b", "e", status="error")]))
    head = run(suite("s", [trials_case("a", "p"), trials_case("b", "p")]))
    policy = GatePolicy(fail_on="regression_or_threshold")
    verdict = decide(head, policy, compare(head, base))
    assert verdict.exit_code == 3
    assert verdict.reasons == (
        "the base side of suite s: 1 of 2 cases could not be evaluated (50.0%), more than the error "
        "budget of 10.0% (--max-error-rate); regressions there cannot be told",
    )
    # under the threshold rule the base side is not judged
    assert decide(head, GatePolicy(fail_on="threshold"), compare(head, base)).passed
    regressed = run(suite("s", [trials_case("a", "f"), trials_case("b", "e", status="error")]))
    failing = decide(regressed, GatePolicy(fail_on="regression"), compare(regressed, base))
    assert failing.exit_code == 1 and "s/a" in failing.reasons[0]


def test_a_case_that_passed_on_the_base_and_is_an_error_on_the_head_fails_a_regression_rule():
    """A pull request's agent program that ends before its first model request on the case its change
    broke makes that case an error, not a failure: with errors counting against the gate (the
    default) it fails as the regression would have, whatever the threshold says."""
    cases = [trials_case(f"ok{n}", "p") for n in range(11)]
    base = run(suite("s", [*cases, trials_case("a", "p")], threshold=0.9))
    regressed = run(suite("s", [*cases, trials_case("a", "f")], threshold=0.9))
    dodged = run(suite("s", [*cases, trials_case("a", "e", status="error")], threshold=0.9))
    for rule in ("regression", "regression_or_threshold"):
        policy = GatePolicy(fail_on=rule)
        assert decide(regressed, policy, compare(regressed, base)).exit_code == 1
        verdict = decide(dodged, policy, compare(dodged, base))
        assert verdict.exit_code == 1, verdict.reasons
        assert verdict.reasons == (
            "1 case(s) that passed on the base could not be evaluated on the head (errors count against "
            "the gate): s/a",
        )
    # where errors do not count, an error is not evaluated either way: 11/11, no regression
    assert decide(dodged, GatePolicy(errors_count=False), compare(dodged, base)).passed
    # an error on both sides, or one that failed on the base already, is no such case
    both = run(suite("s", [*cases, trials_case("a", "e", status="error")], threshold=0.9))
    assert decide(dodged, GatePolicy(), compare(dodged, both)).passed
    was_failing = run(suite("s", [*cases, trials_case("a", "f")], threshold=0.9))
    assert decide(dodged, GatePolicy(), compare(dodged, was_failing)).passed
    # a replay that could not answer the case: not verified (exit 3), not a failure
    missed = run(
        suite("s", [*cases, trials_case("a", "e", status="error")], threshold=0.9), unverified=MISSED
    )
    assert decide(missed, GatePolicy(), compare(missed, base)).exit_code == 3


# --- a replay that could not answer every request: never a pass ----------------------------------

MISSED = "not verified: a replay could not answer 5 request(s) of 1 case(s) (suite/error-0)"


def test_a_replay_that_could_not_answer_a_case_is_not_verified_whatever_the_error_budget():
    results = run(simple(11, 0, errors=1, threshold=0.9), unverified=MISSED)  # 1 of 12: within 10%
    assert decide(run(simple(11, 0, errors=1, threshold=0.9))).passed  # the error budget absorbed it
    for policy in (GatePolicy(), GatePolicy(errors_count=False), GatePolicy(max_error_rate=1)):
        verdict = decide(results, policy)
        assert (verdict.exit_code, verdict.passed, verdict.verified) == (3, False, False)
        assert verdict_mood(verdict) == "unverified" and MISSED in verdict.reasons
        assert "NOT VERIFIED" in summary_line(verdict)


def test_a_failure_that_stands_on_the_answered_cases_fails_a_run_that_is_not_verified():
    fails = decide(run(simple(5, 6, errors=1, threshold=0.9), unverified=MISSED))  # 6/12 with the miss a pass
    assert (fails.exit_code, verdict_mood(fails)) == (1, "failed") and not fails.verified
    assert fails.reasons[0].startswith("suite suite: pass rate") and fails.reasons[-1] == MISSED
    # Under its threshold only because of the case the replay could not answer: not a failure.
    only_the_miss = decide(run(simple(11, 0, errors=1, threshold=1.0), unverified=MISSED))
    assert (only_the_miss.exit_code, verdict_mood(only_the_miss)) == (3, "unverified")
    any_failure = GatePolicy(fail_on="any_failure")
    assert decide(run(simple(10, 1, errors=1), unverified=MISSED), any_failure).exit_code == 1
    assert decide(run(simple(11, 0, errors=1), unverified=MISSED), any_failure).exit_code == 3


def test_the_error_budget_is_recorded_and_the_report_flag_overrides_it():
    recorded = RunSettings.from_dict({"max_error_rate": 0.25})
    assert GatePolicy.from_settings(recorded).max_error_rate == 0.25
    assert GatePolicy.from_settings(recorded, max_error_rate=0).max_error_rate == 0
    assert GatePolicy.from_settings(RunSettings()).max_error_rate == 0.1  # older results: the default
    assert RunSettings.from_dict({"max_error_rate": 2}).max_error_rate is None  # not a share
    assert RunSettings(max_error_rate=0.25).to_dict()["max_error_rate"] == 0.25
