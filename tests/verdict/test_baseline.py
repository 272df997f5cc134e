from __future__ import annotations

from gate.verdict.baseline import compare
from tests.results_factory import case, failure, record, run, suite, trials_case


def status_of(comparison, case_id):
    return next(c for c in comparison.changes if c.case_id == case_id)


def test_single_trial_statuses():
    base = run(
        suite(
            "s",
            [
                case("keep"),
                case("reg"),
                case("fix", "failed"),
                case("still", "failed"),
                case("gone"),
                case("err"),
            ],
        )
    )
    head = run(
        suite(
            "s",
            [
                case("keep"),
                case("reg", "failed", failures=[failure("wrong_tool")]),
                case("fix"),
                case("still", "failed"),
                case("fresh"),
                case("err", "error"),
            ],
        )
    )
    comparison = compare(head, base)
    assert {c.case_id: c.status for c in comparison.changes} == {
        "keep": "unchanged",
        "reg": "regressed",
        "fix": "fixed",
        "still": "still_failing",
        "fresh": "new",
        "gone": "removed",
        "err": "unchanged",
    }
    assert "error" in status_of(comparison, "err").note
    assert comparison.counts["regressed"] == 1 and comparison.counts["new"] == 1
    assert comparison.counts["removed"] == 1 and sum(comparison.counts.values()) == 7
    assert [c.case_id for c in comparison.of("regressed")] == ["reg"]


def test_cases_are_keyed_by_suite_and_case_id():
    base = run(suite("a", [case("x")]), suite("b", [case("x", "failed")]))
    head = run(suite("a", [case("x", "failed")]), suite("b", [case("x")]))
    comparison = compare(head, base)
    assert [(c.suite, c.status) for c in comparison.changes] == [("a", "regressed"), ("b", "fixed")]


def test_with_trials_a_regression_must_be_significant():
    base = run(suite("s", [trials_case("drop", "ppppp"), trials_case("slip", "ppppp")]))
    head = run(suite("s", [trials_case("drop", "fffff"), trials_case("slip", "ppfpf")]))
    comparison = compare(head, base)
    drop, slip = status_of(comparison, "drop"), status_of(comparison, "slip")
    assert drop.status == "regressed" and (drop.head_passed_trials, drop.head_trials) == (0, 5)
    assert slip.status == "unchanged" and "not significantly" in slip.note and "3/5" in slip.note


def test_pass_rates_of_compared_cases():
    base = run(suite("s", [case("a"), case("b"), case("c", "failed")]))
    head = run(suite("s", [case("a"), case("b", "failed"), case("c", "failed"), case("d")]))
    comparison = compare(head, base)
    assert abs(comparison.base_pass_rate - 2 / 3) < 1e-9
    assert abs(comparison.head_pass_rate - 1 / 3) < 1e-9


def test_the_headline_tells_each_regression_in_its_own_short_sentence():
    from gate.verdict.baseline import HEADLINE_CHANGES, headline

    long = "x" * 600
    head = run(
        suite(
            "weather",
            [
                case(f"c{i}", "failed", failures=[failure("output_check_failed", long)], rec=record(long))
                for i in range(HEADLINE_CHANGES + 2)
            ],
        )
    )
    base = run(suite("weather", [case(f"c{i}") for i in range(HEADLINE_CHANGES + 2)]))
    sentences = headline(compare(head, base))
    assert len(sentences) == HEADLINE_CHANGES + 1
    assert all(s.startswith("regression in weather: ") and len(s) < 300 for s in sentences[:-1])
    assert sentences[-1] == "2 more regressions in weather: c5, c6"


def test_a_regression_with_every_trial_passed_says_the_reducer_s_reason():
    """A weighted mean under mean_pass_score (its trial passed at 0.925, the case needs 0.95): the
    comparison said the missed output check of a trial that passed, or "it fails now", not why the
    case failed."""
    from dataclasses import replace

    from gate.results.outcomes import Failure
    from tests.results_factory import trial

    missed = failure("output_check_failed", "output does not contain 'degrees'")
    trials = [trial("passed", index=0, score=0.925, failures=[missed])]
    reason = Failure(
        "below_pass_score",
        "mean trial score 0.925 is under the case's mean_pass_score 0.95 (every trial passed on its own)",
        expected=0.95,
        actual=0.925,
    )
    short = replace(case("mean", "failed", trials=trials), reason=reason)
    comparison = compare(run(suite("s", [short])), run(suite("s", [case("mean")])))
    change = status_of(comparison, "mean")
    assert change.status == "regressed"
    assert change.what.startswith("mean trial score 0.925 is under the case's mean_pass_score 0.95")
