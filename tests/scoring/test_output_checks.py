"""Checks of the final answer (gate.scoring.output_checks), directly: their check scores and failures."""

from __future__ import annotations

import pytest

from gate.scoring.judge_requests import answer_requests
from gate.scoring.output_checks import CheckLog, judged, output_checks, shared_check
from gate.suite import judging
from gate.suite.judging import JudgeVerdict
from gate.suite.model import Choice, OutputChecks
from tests.builders import case, expectation, record, suite


def check(out: OutputChecks, answer: str, verdicts=None, extra=None) -> CheckLog:
    c = case(expect=expectation(output=out))
    r = record(output=answer, extra=extra or {})
    return output_checks(c, r, answer_requests(suite(c), c, r, 0), verdicts or {})


def test_no_output_expectation_makes_no_check():
    log = check(OutputChecks(), "anything")
    assert log.checks == [] and log.failures == []


def test_string_checks_in_order_with_their_failures():
    out = OutputChecks(contains=("18",), not_contains=("sorry",), regex=(r"\d+ ?°C",), equals="18 °C")
    log = check(out, "sorry, 18 degrees")
    assert [(c.kind, c.passed, c.detail) for c in log.checks] == [
        ("output", True, 'contains "18"'),
        ("output", False, 'not_contains "sorry"'),
        ("output", False, "regex /\\d+ ?°C/"),
        ("output", False, 'equals "18 °C"'),
    ]
    assert [(f.reason, f.expected, f.actual) for f in log.failures] == [
        ("output_check_failed", "sorry", "sorry, 18 degrees"),
        ("output_check_failed", r"\d+ ?°C", "sorry, 18 degrees"),
        ("output_check_failed", "18 °C", "sorry, 18 degrees"),
    ]
    assert [f.message for f in log.failures] == [
        'the final answer contains "sorry"; the answer: "sorry, 18 degrees"',
        'the final answer does not match /\\d+ ?°C/; the answer: "sorry, 18 degrees"',
        'the final answer does not equal "18 °C"; the answer: "sorry, 18 degrees"',
    ]


def test_ignore_case_folds_contains_and_equals():
    log = check(OutputChecks(contains=("PARIS",), equals="paris", ignore_case=True), "Paris")
    assert [c.passed for c in log.checks] == [True, True] and log.failures == []
    strict = check(OutputChecks(contains=("PARIS",)), "Paris")
    assert [c.passed for c in strict.checks] == [False]


def test_an_invalid_regex_fails_its_check_and_says_why():
    log = check(OutputChecks(regex=("(unclosed",)), "text")
    (failed,) = log.checks
    assert not failed.passed and "invalid pattern" in failed.detail


def test_a_judged_check_without_a_verdict_is_judge_failed():
    log = check(OutputChecks(criteria=("Polite.",), asks_clarification=True), "Hello")
    assert [(c.kind, c.passed, c.score) for c in log.checks] == [
        ("criteria", False, 0.0),
        ("clarification", False, 0.0),
    ]
    assert [f.reason for f in log.failures] == ["judge_failed", "judge_failed"]


def test_judged_checks_take_the_verdict_and_keep_the_rationale():
    answer = "Could you tell me which city?"
    out = OutputChecks(criteria=("Polite.",), asks_clarification=False)
    verdicts = {
        judging.criteria_request("Polite.", answer, "What's the weather in Paris?").key: JudgeVerdict(
            True, 0.9, "kind"
        ),
        judging.clarification_request(answer, "What's the weather in Paris?").key: JudgeVerdict(
            True, 1.0, "asked"
        ),
    }
    log = check(out, answer, verdicts)
    criteria, clarification = log.checks
    assert (criteria.kind, criteria.passed, criteria.score, criteria.rationale) == (
        "criteria",
        True,
        0.9,
        "kind",
    )
    # The judge says it asked; the case wants it not to ask.
    assert (clarification.passed, clarification.score) == (False, 0.0)
    assert clarification.detail == "asks for clarification: expected no, judge: yes"
    (failure,) = log.failures
    assert failure.reason == "output_check_failed" and failure.expected is False


def test_an_unambiguous_choice_needs_no_judge():
    choice = Choice(options=("Paris", "London"), correct="Paris")
    letters = {"A": "London", "B": "Paris"}
    right = check(OutputChecks(choice=choice), "B", extra={"choice_letters": letters})
    assert [(c.kind, c.passed) for c in right.checks] == [("choice", True)] and right.failures == []
    wrong = check(OutputChecks(choice=choice), "A", extra={"choice_letters": letters})
    (failure,) = wrong.failures
    assert (failure.expected, failure.actual) == ("Paris", "London")


def test_judged_logs_a_missing_verdict_and_returns_the_present_one():
    request = judging.criteria_request("Polite.", "Hi")
    log = CheckLog()
    assert judged(log, "criteria", "criteria 'Polite.'", request, {}) is None
    assert [f.reason for f in log.failures] == ["judge_failed"] and not log.checks[0].passed
    verdict = JudgeVerdict(True, 1.0, "ok")
    again = CheckLog()
    assert judged(again, "criteria", "criteria", request, {request.key: verdict}) is verdict
    assert again.checks == [] and again.failures == []


def test_shared_checks_are_one_instance_per_value():
    assert shared_check("output", 1.0, True, "d") is shared_check("output", 1.0, True, "d")
    assert shared_check("output", 1.0, True, "d") is not shared_check("calls", 1.0, True, "d")
    assert shared_check("output", 0.5, False, "d").score == pytest.approx(0.5)
