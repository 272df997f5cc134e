from __future__ import annotations

import dataclasses
import json
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.errors import InputError
from gate.results.outcomes import CheckKind, CheckScore, Failure
from gate.results_json.codec import parse_results, results_schema, to_json
from gate.scoring import judge_requests as trial_judging
from gate.scoring.trial import _all_verdict, _budgets, _weighted_verdict, expected_summary, score_trial
from gate.suite import judging
from gate.suite.judging import JudgeVerdict
from gate.suite.matcher_tree import parse_matchers
from gate.suite.model import (
    CallExpectation,
    Choice,
    Defaults,
    OutputChecks,
    Ranking,
    Scoring,
)
from tests import results_factory as rf
from tests.builders import call, calls_expectation, case, ecall, expectation, path_assertion, record, suite


def score(c, r, verdicts=None, s=None, index=0):
    return score_trial(s or suite(c), c, r, index, verdicts or {})


def reasons(result):
    return [f.reason for f in result.failures]


# --- pinned defaults ------------------------------------------------------------------------------


def test_expected_none_and_none_made_passes():
    result = score(case(expect=expectation(no_calls=True)), record())
    assert result.status == "passed" and result.failures == ()
    assert (result.metrics.precision, result.metrics.recall, result.metrics.f1) == (1.0, 1.0, 1.0)


def test_expected_none_and_one_made_fails():
    result = score(case(expect=expectation(no_calls=True)), record(call("get_weather", {"city": "Paris"})))
    assert result.status == "failed"
    assert reasons(result) == ["forbidden_call"]
    assert result.failures[0].tool == "get_weather"
    assert result.metrics.f1 == 0.0


def test_missing_optional_argument_passes_only_when_marked_optional():
    optional = case(
        expect=expectation(ecall("get_weather", {"city": "Paris", "units": {"optional": "metric"}}))
    )
    assert score(optional, record(call("get_weather", {"city": "Paris"}))).status == "passed"
    required = case(expect=expectation(ecall("get_weather", {"city": "Paris", "units": "metric"})))
    result = score(required, record(call("get_weather", {"city": "Paris"})))
    assert reasons(result) == ["missing_argument"]
    failure = result.failures[0]
    assert (failure.tool, failure.argument, failure.expected, failure.actual) == (
        "get_weather",
        "units",
        "metric",
        None,
    )


def test_unexpected_argument_fails_unless_allowed():
    made = record(call("get_weather", {"city": "Paris", "units": "metric"}))
    strict = case(expect=expectation(ecall("get_weather", {"city": "Paris"})))
    result = score(strict, made)
    assert reasons(result) == ["unexpected_argument"]
    assert (result.failures[0].argument, result.failures[0].actual) == ("units", "metric")
    allowed = case(expect=expectation(ecall("get_weather", {"city": "Paris"}, allow_extra_args=True)))
    assert score(allowed, made).status == "passed"


def test_int_equals_float_in_arguments():
    c = case(expect=expectation(ecall("get_forecast", {"city": "Paris", "days": 5})))
    assert score(c, record(call("get_forecast", {"city": "Paris", "days": 5.0}))).status == "passed"


def test_type_error_and_value_error_name_tool_argument_expected_actual():
    c = case(expect=expectation(ecall("get_forecast", {"city": "Paris", "days": 5})))
    result = score(c, record(call("get_forecast", {"city": "Paris", "days": "5"})))
    assert "type_error" in reasons(result)
    failure = next(f for f in result.failures if f.reason == "type_error")
    assert (failure.tool, failure.argument, failure.expected, failure.actual) == (
        "get_forecast",
        "days",
        5,
        "5",
    )
    result = score(c, record(call("get_forecast", {"city": "Paris", "days": 3})))
    assert reasons(result) == ["value_error"]
    assert result.metrics.argument_accuracy == 0.5


def test_duplicate_calls_count_as_a_multiset():
    c = case(expect=expectation(ecall("get_weather", {"city": "Paris"}, times=(2, 2))))
    once = score(c, record(call("get_weather", {"city": "Paris"})))
    assert once.status == "failed" and reasons(once) == ["wrong_count"]
    assert once.metrics.recall == 0.5 and once.metrics.precision == 1.0
    twice = score(c, record(call("get_weather", {"city": "Paris"}), call("get_weather", {"city": "Paris"})))
    assert twice.status == "passed"
    thrice = score(c, record(*[call("get_weather", {"city": "Paris"})] * 3))
    assert reasons(thrice) == ["wrong_count"] and thrice.failures[0].actual == 3


def test_times_range_accepts_optional_copies():
    c = case(expect=expectation(ecall("get_weather", {"city": "Paris"}, times=(1, None))))
    made = record(*[call("get_weather", {"city": "Paris"})] * 4)
    result = score(c, made)
    assert result.status == "passed" and result.metrics.precision == 1.0


def test_optimal_pairing_where_first_fit_would_mispair():
    # First-fit would give the first actual call (Paris) to the first expectation, which accepts any
    # city, leaving the Paris-only expectation with London: a false value error.
    c = case(
        expect=expectation(
            ecall("get_weather", {"city": {"anything": True}}),
            ecall("get_weather", {"city": "Paris"}),
        )
    )
    made = record(call("get_weather", {"city": "Paris"}), call("get_weather", {"city": "London"}))
    result = score(c, made)
    assert result.status == "passed", result.failures
    assert result.pairing == (1, 0)
    assert result.metrics.argument_accuracy == 1.0


def test_missing_call_and_wrong_tool_for_the_confusion_table():
    c = case(expect=expectation(ecall("get_forecast", {"city": "Paris"})))
    assert reasons(score(c, record())) == ["missing_call"]
    result = score(c, record(call("get_weather", {"city": "Paris"})))
    assert reasons(result) == ["wrong_tool"]
    failure = result.failures[0]
    assert (failure.expected_tool, failure.tool) == ("get_forecast", "get_weather")


def test_hallucinated_tool_is_not_a_wrong_tool_candidate():
    c = case(expect=expectation(ecall("get_forecast", {"city": "Paris"})))
    result = score(c, record(call("get_forecast_v2", {"city": "Paris"})))
    assert sorted(reasons(result)) == ["hallucinated_tool", "missing_call"]


def test_automatic_checks_invalid_json_and_schema_violation():
    c = case()  # no expectation about calls
    result = score(c, record(call("get_weather", raw="{city: Paris")))
    assert reasons(result) == ["invalid_arguments"]
    result = score(c, record(call("get_forecast", {"city": "Paris", "days": 30})))
    assert reasons(result) == ["schema_violation"]
    assert result.failures[0].argument == "days" and result.failures[0].actual == 30
    result = score(c, record(call("get_forecast", {"days": 3})))
    assert reasons(result) == ["schema_violation"] and result.failures[0].argument == "city"
    assert score(c, record(call("get_forecast", {"city": "Paris", "days": 3}))).status == "passed"


def test_extra_calls_allowed_or_forbidden():
    made = record(call("get_weather", {"city": "Paris"}), call("search", {"query": "paris"}))
    allow = case(expect=expectation(ecall("get_weather", {"city": "Paris"})))
    result = score(allow, made)
    assert result.status == "passed" and result.metrics.precision == 0.5
    forbid = case(expect=expectation(ecall("get_weather", {"city": "Paris"}), extra_calls="forbid"))
    assert reasons(score(forbid, made)) == ["extra_call"]


def test_forbidden_tools():
    c = case(expect=expectation(ecall("get_weather", {"city": "Paris"}), forbidden_tools=("search",)))
    result = score(c, record(call("get_weather", {"city": "Paris"}), call("search", {"query": "x"})))
    assert reasons(result) == ["forbidden_call"] and result.failures[0].tool == "search"


def test_call_budgets():
    made = record(*[call("search", {"query": str(i)}) for i in range(3)])
    assert reasons(score(case(expect=expectation(max_calls=2)), made)) == ["over_call_budget"]
    assert reasons(score(case(max_tool_calls=2), made)) == ["over_call_budget"]
    assert score(case(max_tool_calls=3), made).status == "passed"
    stopped = record(call("search", {"query": "x"}), stop_reason="max_turns")
    assert reasons(score(case(), stopped)) == ["over_call_budget"]


def in_order_case(order):
    return case(
        expect=expectation(
            ecall("search", {"query": "paris"}), ecall("get_weather", {"city": "Paris"}), order=order
        )
    )


def test_in_order_allows_extras_between():
    made = record(
        call("search", {"query": "paris"}),
        call("get_forecast", {"city": "Paris"}),
        call("get_weather", {"city": "Paris"}),
    )
    assert score(in_order_case("in_order"), made).status == "passed"


def test_in_order_detects_reversed_order():
    made = record(call("get_weather", {"city": "Paris"}), call("search", {"query": "paris"}))
    assert reasons(score(in_order_case("in_order"), made)) == ["order_violation"]
    assert score(in_order_case("any"), made).status == "passed"


def test_strict_forbids_extras():
    made = record(
        call("search", {"query": "paris"}),
        call("get_forecast", {"city": "Paris"}),
        call("get_weather", {"city": "Paris"}),
    )
    assert reasons(score(in_order_case("strict"), made)) == ["order_violation"]
    exact = record(call("search", {"query": "paris"}), call("get_weather", {"city": "Paris"}))
    assert score(in_order_case("strict"), exact).status == "passed"


def test_in_order_with_identical_duplicates_is_not_an_order_violation():
    c = case(
        expect=expectation(
            ecall("search", {"query": "a"}, times=(2, 2)),
            ecall("get_weather", {"city": "Paris"}),
            order="strict",
        )
    )
    made = record(
        call("search", {"query": "a"}), call("search", {"query": "a"}), call("get_weather", {"city": "Paris"})
    )
    assert score(c, made).status == "passed"


def test_precision_recall_f1_worked_example():
    c = case(expect=expectation(ecall("get_weather", times=(2, 2)), ecall("get_forecast")))
    made = record(
        call("get_weather"), call("search", {"query": "q"}), call("get_forecast"), call("get_forecast")
    )
    m = score(c, made).metrics
    # expected {get_weather x2, get_forecast}, made {get_weather, search, get_forecast x2}: 2 in common
    assert m.precision == pytest.approx(2 / 4)
    assert m.recall == pytest.approx(2 / 3)
    assert m.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))


def test_empty_args_expectation_accepts_any_arguments():
    c = case(expect=expectation(ecall("get_weather")))
    assert score(c, record(call("get_weather", {"city": "Paris", "units": "metric"}))).status == "passed"


def test_alternatives_take_the_passing_one():
    alternatives = (
        calls_expectation(ecall("get_weather", {"city": "Paris"})),
        calls_expectation(ecall("search", {"query": {"contains": "Paris"}})),
    )
    c = case(expect=expectation(alternatives=alternatives))
    result = score(c, record(call("search", {"query": "weather Paris"})))
    assert result.status == "passed" and result.alternative == 1
    result = score(c, record(call("get_weather", {"city": "Paris"})))
    assert result.status == "passed" and result.alternative == 0
    failing = score(c, record(call("get_weather", {"city": "Rome"})))
    assert failing.status == "failed" and failing.alternative == 0 and reasons(failing) == ["value_error"]


def test_alternatives_compete_with_written_main_calls():
    c = case(
        expect=expectation(
            ecall("get_weather", {"city": "Paris"}),
            alternatives=(CallExpectation(calls=(ecall("get_forecast", {"city": "Paris"}),)),),
        )
    )
    result = score(c, record(call("get_weather", {"city": "Paris"})))
    assert result.status == "passed" and result.alternative is None


ALTERNATIVES = (
    calls_expectation(ecall("get_weather", {"city": "Paris"})),
    calls_expectation(ecall("get_forecast", {"city": "Paris"})),
)


@pytest.mark.parametrize(
    "top_level",
    [{"order": "in_order"}, {"forbidden_tools": ("search",)}, {"max_calls": 3}],
)
def test_top_level_call_rules_without_calls_do_not_stand_in_for_the_alternatives(top_level):
    # Written next to alternatives, top-level rules without calls are no acceptable expectation of their
    # own: a call that none of the alternatives accepts fails.
    c = case(expect=expectation(alternatives=ALTERNATIVES, **top_level))
    result = score(c, record(call("get_weather", {"city": "Rome"})))
    assert result.status == "failed" and result.alternative == 0 and reasons(result) == ["value_error"]
    assert score(c, record(call("get_forecast", {"city": "Paris"}))).status == "passed"


def test_top_level_prohibitions_hold_for_every_alternative():
    forbidden = case(expect=expectation(alternatives=ALTERNATIVES, forbidden_tools=("search",)))
    result = score(forbidden, record(call("search", {"query": "x"}), call("get_weather", {"city": "Paris"})))
    assert result.status == "failed" and "forbidden_call" in reasons(result)
    limited = case(expect=expectation(alternatives=ALTERNATIVES, max_calls=1))
    result = score(
        limited, record(call("get_weather", {"city": "Paris"}), call("get_forecast", {"city": "Paris"}))
    )
    assert result.status == "failed" and reasons(result) == ["over_call_budget"]
    closed = case(expect=expectation(alternatives=ALTERNATIVES, extra_calls="forbid"))
    result = score(closed, record(call("get_weather", {"city": "Paris"}), call("search", {"query": "x"})))
    assert result.status == "failed" and reasons(result) == ["extra_call"]
    # An alternative's own, stricter limit still holds.
    own = (calls_expectation(ecall("get_weather", {"city": "Paris"}), max_calls=1),)
    both = case(expect=expectation(alternatives=own, max_calls=5))
    made = record(call("get_weather", {"city": "Paris"}), call("search", {"query": "x"}))
    assert reasons(score(both, made)) == ["over_call_budget"]


def test_weighted_alternatives_take_the_best_scoring_one_not_the_first_the_calls_pass():
    # Both expectations accept the calls (extra calls are allowed), but only the second accounts for
    # the search call: precision 0.5 under the first (score 0.85, under the pass score 0.9), 1.0 under
    # the second. Any acceptable expectation passes, so the trial passes on the second.
    weather = ecall("get_weather", {"city": "Paris"})
    both = calls_expectation(weather, ecall("search", {"query": "x"}))
    made = record(call("get_weather", {"city": "Paris"}), call("search", {"query": "x"}))
    weighted = Scoring(mode="weighted", pass_score=0.9)
    for c, best in (
        (case(expect=expectation(weather, alternatives=(both,)), scoring=weighted), 0),
        (case(expect=expectation(alternatives=(calls_expectation(weather), both)), scoring=weighted), 1),
    ):
        result = score(c, made)
        assert (result.status, result.score, result.alternative) == ("passed", 1.0, best)
        assert result.metrics.precision == 1.0 and result.failures == ()
    # In all mode the first expectation the calls pass is the one (its score is 1 whatever the others').
    c = case(expect=expectation(weather, alternatives=(both,)))
    assert (score(c, made).status, score(c, made).alternative) == ("passed", None)


def test_no_calls_at_the_top_level_is_an_acceptable_expectation_beside_the_alternatives():
    c = case(expect=expectation(alternatives=ALTERNATIVES, no_calls=True))
    assert score(c, record()).status == "passed"
    assert score(c, record(call("get_forecast", {"city": "Paris"}))).status == "passed"
    assert score(c, record(call("get_weather", {"city": "Rome"}))).status == "failed"


# --- output checks ---------------------------------------------------------------------------------


def test_string_output_checks_with_ignore_case():
    out = OutputChecks(contains=("18",), not_contains=("sorry",), regex=(r"\d+ ?°C",), ignore_case=True)
    c = case(expect=expectation(output=out))
    assert score(c, record(output="It is 18 °C.")).status == "passed"
    result = score(c, record(output="SORRY, it is 18 degrees."))
    assert reasons(result) == ["output_check_failed", "output_check_failed"]
    assert [ch.kind for ch in result.checks] == ["output"] * 3
    assert result.metrics.output_score == pytest.approx(1 / 3)


def test_equals_and_case_sensitivity():
    assert (
        score(case(expect=expectation(output=OutputChecks(equals="Paris"))), record(output=" Paris\n")).status
        == "passed"
    )
    assert (
        score(case(expect=expectation(output=OutputChecks(equals="Paris"))), record(output="paris")).status
        == "failed"
    )
    assert (
        score(
            case(expect=expectation(output=OutputChecks(equals="Paris", ignore_case=True))),
            record(output="paris"),
        ).status
        == "passed"
    )
    assert (
        score(
            case(expect=expectation(output=OutputChecks(contains=("PARIS",)))), record(output="paris")
        ).status
        == "failed"
    )


def verdicts_for(s, c, r, decide):
    return {q.key: decide(q) for q in trial_judging.collect_requests(s, c, r, 0)}


def test_criteria_from_verdicts_and_missing_verdict_is_judge_failed():
    c = case(expect=expectation(output=OutputChecks(criteria=("States the temperature in Celsius.",))))
    s, r = suite(c), record()
    yes = verdicts_for(s, c, r, lambda q: JudgeVerdict(True, 1.0, "says 18 °C"))
    result = score(c, r, yes, s)
    assert result.status == "passed"
    assert result.checks[0].kind == "criteria" and result.checks[0].rationale == "says 18 °C"
    no = verdicts_for(s, c, r, lambda q: JudgeVerdict(False, 0.0, "no unit"))
    assert reasons(score(c, r, no, s)) == ["output_check_failed"]
    assert reasons(score(c, r, {}, s)) == ["judge_failed"]


def test_ranking_passes_at_threshold():
    ranking = Ranking(reference="18 °C", wrong="30 °C", irrelevant="Bananas", threshold=0.75)
    c = case(expect=expectation(output=OutputChecks(ranking=ranking)))
    s, r = suite(c), record()
    for order, expected_status in [
        (("agent", "wrong", "irrelevant"), "passed"),
        (("agent", "irrelevant", "wrong"), "passed"),
        (("wrong", "agent", "irrelevant"), "failed"),
    ]:

        def decide(q, order=order):
            numbers = [str(q.options.index(role) + 1) for role in order]
            return judging.parse_verdict(q, {"order": numbers, "rationale": "r"})

        result = score(c, r, verdicts_for(s, c, r, decide), s)
        assert result.status == expected_status
        assert result.checks[0].kind == "ranking"
        assert result.checks[0].score == judging.RANKING_SCORES[order]


def test_choice_deterministic_when_unambiguous_and_judged_otherwise():
    choice = Choice(options=("Paris", "London", "Rome"), correct="Paris")
    c = case(expect=expectation(output=OutputChecks(choice=choice)))
    letters = {"A": "London", "B": "Paris", "C": "Rome"}
    assert score(c, record(output="B", extra={"choice_letters": letters})).status == "passed"
    assert score(c, record(output="(A)", extra={"choice_letters": letters})).status == "failed"
    assert score(c, record(output="paris", extra={"choice_letters": letters})).status == "passed"
    vague = record(output="I would go with the second one.", extra={"choice_letters": letters})
    assert (
        trial_judging.collect_requests(suite(c), c, record(output="B", extra={"choice_letters": letters}), 0)
        == []
    )
    requests = trial_judging.collect_requests(suite(c), c, vague, 0)
    assert [q.kind for q in requests] == ["choice"]
    verdicts = {requests[0].key: judging.parse_verdict(requests[0], {"letter": "B", "rationale": "second"})}
    assert score(c, vague, verdicts).status == "passed"
    assert reasons(score(c, vague, {})) == ["judge_failed"]


def test_choice_letters_fall_back_to_the_trial_shuffle():
    from gate.suite.conversation import build

    choice = Choice(options=("Paris", "London", "Rome", "Madrid"), correct="Paris")
    c = case(expect=expectation(output=OutputChecks(choice=choice)))
    s = suite(c)
    for index in range(4):
        letters = build(s, c, index).extra["choice_letters"]
        right = next(k for k, v in letters.items() if v == "Paris")
        assert score(c, record(output=right), s=s, index=index).status == "passed"


def test_clarification_expected_and_not():
    for want, asked, status in [
        (True, True, "passed"),
        (True, False, "failed"),
        (False, False, "passed"),
        (False, True, "failed"),
    ]:
        c = case(expect=expectation(output=OutputChecks(asks_clarification=want)))
        s, r = suite(c), record(output="Which city do you mean?")
        verdicts = verdicts_for(s, c, r, lambda q, asked=asked: JudgeVerdict(asked, float(asked), ""))
        assert score(c, r, verdicts, s).status == status


def test_latency_budget_from_case_or_suite_defaults():

    c = case(expect=expectation(latency_ms=100))
    assert reasons(score(c, record(latency_ms=150))) == ["latency_exceeded"]
    assert score(c, record(latency_ms=100)).status == "passed"
    d = case()
    s = suite(d, defaults=Defaults(latency_ms=50))
    assert reasons(score(d, record(latency_ms=80), s=s)) == ["latency_exceeded"]


def test_path_assertions_feed_failures():
    c = case(expect=expectation(asserts=(path_assertion("calls[*].args.city", {"equals": "Paris"}),)))
    assert score(c, record(call("get_weather", {"city": "Paris"}))).status == "passed"
    result = score(c, record(call("get_weather", {"city": "Rome"})))
    assert reasons(result) == ["output_check_failed"] and result.failures[0].argument == "calls[*].args.city"


def test_judged_argument_matcher():
    c = case(expect=expectation(ecall("search", {"query": {"judge": "asks about Paris weather"}})))
    s, r = suite(c), record(call("search", {"query": "weather in paris today"}))
    requests = trial_judging.collect_requests(s, c, r, 0)
    assert [q.kind for q in requests] == ["argument"]
    assert score(c, r, {requests[0].key: JudgeVerdict(True, 1.0, "ok")}, s).status == "passed"
    assert reasons(score(c, r, {}, s)) == ["judge_failed"]


# --- provider errors and weighted scoring -------------------------------------------------------------


def test_provider_error_is_an_error_not_a_failure():
    result = score(case(), record(error="HTTP 500 from provider"))
    assert result.status == "error" and reasons(result) == ["provider_error"]
    assert "HTTP 500" in result.failures[0].message


@pytest.mark.parametrize("stop", ["provider_error", "max_tokens"])
def test_a_hard_condition_broken_before_the_provider_failed_is_the_agents_failure(stop):
    # The agent called a forbidden tool, then the provider failed (or cut the next reply): whatever the
    # rest of the episode would have been, the trial broke a hard condition. A failure, not an error.
    forbidden = case(expect=expectation(ecall("get_weather", {"city": "Paris"}), forbidden_tools=("search",)))
    made = record(call("search", {"query": "x"}, turn=1), error="HTTP 500", stop_reason=stop, turns=2)
    result = score(forbidden, made)
    assert (result.status, result.score, reasons(result)) == ("failed", 0.0, ["forbidden_call"])
    weighted = dataclasses.replace(forbidden, scoring=Scoring(mode="weighted", pass_score=0.1))
    assert score(weighted, made).status == "failed"
    hallucinated = record(call("book", {}, turn=1), error="HTTP 500", stop_reason=stop, turns=2)
    assert reasons(score(case(), hallucinated)) == ["hallucinated_tool"]
    # Nothing decided yet (an expected call may still come, another alternative may allow the call):
    # the trial could not be evaluated.
    assert score(case(expect=expectation(ecall("get_weather"))), made).status == "error"
    allowed = case(expect=expectation(alternatives=(calls_expectation(ecall("search")),), forbidden_tools=()))
    assert score(allowed, made).status == "error"
    # The calls of the reply that was cut are unfinished: never held against the agent.
    cut = record(call("book", raw="{", turn=2), error="cut", stop_reason="max_tokens", turns=2)
    assert reasons(score(case(), cut)) == ["reply_cut"]


def test_weighted_mode_passes_at_pass_score_and_requires_no_missing_call():
    weights = {"precision": 0.3, "recall": 0.3, "arguments": 0.3, "output": 0.1}
    scoring = Scoring(mode="weighted", pass_score=0.8, weights=weights)
    c = case(
        expect=expectation(ecall("get_weather", {"city": "Paris", "units": "metric"})),
        scoring=scoring,
    )
    half_args = score(c, record(call("get_weather", {"city": "Paris", "units": "imperial"})))
    # precision 1, recall 1, arguments 0.5, output 1 -> 0.85
    assert half_args.score == pytest.approx(0.85)
    assert half_args.status == "passed" and reasons(half_args) == ["value_error"]
    missing = case(
        expect=expectation(ecall("get_weather", {"city": "Paris"}), ecall("search", {"query": "x"})),
        scoring=Scoring(mode="weighted", pass_score=0.1, weights=weights),
    )
    result = score(missing, record(call("get_weather", {"city": "Paris"})))
    assert result.score == 0.0 and result.status == "failed"  # a missing call is a hard condition


def test_score_in_all_mode_is_one_or_zero():
    c = case(expect=expectation(ecall("get_weather", {"city": "Paris"})))
    assert score(c, record(call("get_weather", {"city": "Paris"}))).score == 1.0
    assert score(c, record()).score == 0.0


def test_metrics_carry_latency_tokens_cost():
    m = score(case(), record(latency_ms=321.0)).metrics
    assert (m.latency_ms, m.input_tokens, m.output_tokens, m.cost_usd) == (321.0, 100, 20, 0.001)


def test_expected_summary_is_json_able():
    import json

    c = case(
        expect=expectation(
            ecall("get_weather", {"city": {"one_of": ["Paris", "paris"]}}, times=(1, None)),
            order="in_order",
            output=OutputChecks(contains=("18",), choice=Choice(("a", "b"), "a")),
            asserts=(path_assertion("output", {"exists": True}),),
        )
    )
    summary = expected_summary(c)
    assert json.loads(json.dumps(summary)) == summary
    assert summary["calls"][0] == {
        "tool": "get_weather",
        "args": {"city": {"one_of": ["Paris", "paris"]}},
        "times": {"min": 1, "max": None},
        "allow_extra_args": False,
    }
    assert summary["order"] == "in_order" and summary["output"]["contains"] == ["18"]


# --- properties ----------------------------------------------------------------------------------------

CITIES = st.sampled_from(["Paris", "Rome", "Oslo"])
TOOLS = st.sampled_from(["get_weather", "get_forecast", "made_up"])
actual_calls = st.lists(st.builds(lambda t, c: call(t, {"city": c}), TOOLS, CITIES), max_size=5)
expected_calls = st.lists(
    st.builds(
        lambda t, c, lo, extra: ecall(t, {"city": c}, times=(lo, None if extra is None else lo + extra)),
        st.sampled_from(["get_weather", "get_forecast"]),
        CITIES,
        st.integers(0, 2),
        st.one_of(st.none(), st.integers(0, 1)),
    ),
    max_size=3,
)


@settings(max_examples=200, deadline=None)
@given(
    expected_calls,
    actual_calls,
    st.sampled_from(["any", "in_order", "strict"]),
    st.sampled_from(["allow", "forbid"]),
)
def test_scoring_invariants(expected, made, order, extra):
    c = case(expect=expectation(*expected, order=order, extra_calls=extra))
    result = score(c, record(*made))
    assert (result.status == "passed") == (result.failures == ())
    assert 0.0 <= result.score <= 1.0
    for value in (
        result.metrics.precision,
        result.metrics.recall,
        result.metrics.f1,
        result.metrics.argument_accuracy,
    ):
        assert 0.0 <= value <= 1.0
    paired = [j for j in result.pairing if j is not None]
    assert len(paired) == len(set(paired))
    for e, j in zip(expected, result.pairing, strict=True):
        if j is not None:
            assert made[j].name == e.tool
    for f in result.failures:
        assert f.message


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["get_weather", "get_forecast"]), CITIES), max_size=4), st.randoms()
)
def test_exactly_the_expected_calls_in_any_order_pass(pairs, rnd):
    expected = [ecall(t, {"city": city}) for t, city in pairs]
    made = [call(t, {"city": city}) for t, city in pairs]
    rnd.shuffle(made)
    c = case(expect=expectation(*expected, order="any", extra_calls="forbid"))
    result = score(c, record(*made))
    assert result.status == "passed", result.failures
    assert result.metrics.f1 == 1.0
    strict = case(expect=expectation(*expected, order="strict"))
    in_sequence = score(strict, record(*[call(t, {"city": city}) for t, city in pairs]))
    assert in_sequence.status == "passed", in_sequence.failures


# --- the phases of score_trial, directly ------------------------------------------------------------


def test_status_in_all_mode():

    judge = Failure("judge_failed", "no verdict")
    wrong = Failure("value_error", "wrong city")
    assert _all_verdict([]) == ("passed", 1.0)
    assert _all_verdict([judge]) == ("error", 0.0)  # only the judge stands between it and a verdict
    assert _all_verdict([judge, wrong]) == ("failed", 0.0)
    assert _all_verdict([wrong]) == ("failed", 0.0)


def test_status_in_weighted_mode():

    judge = Failure("judge_failed", "no verdict")
    wrong = Failure("value_error", "wrong city")
    assert _weighted_verdict(0.8, False, 0.8, [wrong]) == ("passed", 0.8, [])
    assert _weighted_verdict(0.8, True, 1.0, []) == ("failed", 0.0, [])  # a hard condition broke
    assert _weighted_verdict(0.8, True, 1.0, [judge]) == ("failed", 0.0, [])
    assert _weighted_verdict(0.8, False, 1.0, [judge]) == ("error", 0.0, [])
    status, value, (below,) = _weighted_verdict(0.9, False, 0.85, [wrong])
    assert (status, value, below.reason, below.expected, below.actual) == (
        "failed",
        0.85,
        "below_pass_score",
        0.9,
        0.85,
    )


def test_weighted_trial_under_its_pass_score_whatever_the_judge_says_fails_not_errors():
    # A wrong city: at most 0.3 + 0.3 + 0 + 0.1 = 0.7 < 0.8, whatever the criterion's missing verdict.
    exp = expectation(ecall("get_weather", {"city": "Paris"}))
    exp = dataclasses.replace(exp, output=OutputChecks(criteria=("mentions the temperature",)))
    c = case(expect=exp, scoring=Scoring(mode="weighted", pass_score=0.8))
    wrong = score_trial(suite(c), c, record(call("get_weather", {"city": "Rome"}), output="18 C"), 0, {})
    assert wrong.status == "failed"
    assert "(at most 0.700 whatever the judge would have said)" in wrong.failures[-1].message
    # The right city under a pass score of 0.95: 0.9 without the verdict, 1.0 with a yes.
    c = dataclasses.replace(c, scoring=Scoring(mode="weighted", pass_score=0.95))
    right = score_trial(suite(c), c, record(call("get_weather", {"city": "Paris"}), output="18 C"), 0, {})
    assert right.status == "error"  # the judge decides: could not evaluate


def test_budgets_are_limits_and_latency_falls_back_to_the_suite_default():

    c = case(max_tool_calls=2, max_turns=3)
    at_limit = record(call("search", {"query": "a"}), call("search", {"query": "b"}), latency_ms=50.0)
    assert _budgets(suite(c), c, at_limit) == ([], [])
    over = record(*[call("search", {"query": "a"})] * 3, stop_reason="max_turns", turns=3, latency_ms=50.0)
    failures, checks = _budgets(suite(c, defaults=Defaults(latency_ms=40)), c, over)
    assert [(f.reason, f.expected, f.actual) for f in failures] == [
        ("over_call_budget", 2, 3),
        ("over_call_budget", 3, 3),
        ("latency_exceeded", 40, 50.0),
    ]
    assert [(ch.kind, ch.passed) for ch in checks] == [("latency", False)]


def test_check_kinds_are_one_closed_set_shared_with_the_results_schema():
    kinds = list(typing.get_args(CheckKind))
    assert results_schema()["$defs"]["check"]["properties"]["kind"]["enum"] == kinds
    checked = rf.run(
        rf.suite("s", cases=[rf.case("a", trials=[rf.trial(checks=[CheckScore("path", 1.0, True)])])])
    )
    data = json.loads(to_json(checked))
    assert parse_results(data).suites[0].cases[0].trials[0].checks[0].kind == "path"
    data["suites"][0]["cases"][0]["trials"][0]["checks"][0]["kind"] = "vibes"
    with pytest.raises(InputError, match="vibes"):
        parse_results(data, "r.json")


@settings(max_examples=100, deadline=None)
@given(
    rule=st.sampled_from([{"forbidden_tools": ("search",)}, {"max_calls": 1}, {"extra_calls": "forbid"}]),
    main_calls=st.booleans(),
    mode=st.sampled_from(["all", "weighted"]),
    weights=st.dictionaries(
        st.sampled_from(["precision", "recall", "arguments", "output"]),
        st.floats(min_value=0.0, max_value=10.0, allow_nan=False),
    ),
    pass_score=st.floats(min_value=0.0, max_value=1.0),
)
def test_a_top_level_prohibition_broken_fails_whichever_alternative_holds(
    rule, main_calls, mode, weights, pass_score
):
    main = (ecall("get_forecast", {"city": "Paris"}),) if main_calls else ()
    c = case(
        expect=expectation(*main, alternatives=ALTERNATIVES, **rule),
        scoring=Scoring(mode=mode, pass_score=pass_score, weights=weights),
    )
    # The first alternative holds; the extra search call breaks the top-level rule.
    result = score(c, record(call("get_weather", {"city": "Paris"}), call("search", {"query": "x"})))
    assert result.status == "failed" and result.score == 0.0 and result.failures


def test_a_trajectory_judged_no_counts_as_an_output_check_in_weighted_scoring():
    # The right call and a judge saying "no" to the trajectory: the output score is 0 (the only
    # output check failed), so the weighted score is 0.9 and the case fails under a pass score of 1.0.
    exp = dataclasses.replace(
        expectation(ecall("get_weather", {"city": "Paris"})), trajectory="Confirms first."
    )
    c = case(expect=exp, scoring=Scoring(mode="weighted", pass_score=1.0))
    s, r = suite(c), record(call("get_weather", {"city": "Paris"}), output="18 C")
    no = score(c, r, verdicts_for(s, c, r, lambda q: JudgeVerdict(False, 0.0, "did not confirm")), s)
    assert no.metrics.output_score == 0.0
    assert (no.status, no.score) == ("failed", 0.9)
    assert [f.reason for f in no.failures] == ["trajectory_failed", "below_pass_score"]
    yes = score(c, r, verdicts_for(s, c, r, lambda q: JudgeVerdict(True, 1.0, "confirmed")), s)
    assert (yes.status, yes.score, yes.metrics.output_score) == ("passed", 1.0, 1.0)
    # No verdict: the judge decides whether the trial reaches its pass score, so it is an error.
    assert score(c, r, {}, s).status == "error"


def _repeated_run(words: list[str], size: int = 3) -> str | None:
    """The first run of ``size`` words that occurs twice in ``words``, if any."""
    seen: set[tuple[str, ...]] = set()
    for i in range(len(words) - size + 1):
        run = tuple(words[i : i + size])
        if run in seen:
            return " ".join(run)
        seen.add(run)
    return None


def test_failure_messages_say_each_thing_once_beside_their_title():
    from gate.results.outcomes import REASON_TITLES

    weather_call = ecall("get_weather", {"city": "London"})
    exp = dataclasses.replace(
        expectation(
            weather_call,
            ecall("get_weather", {"city": "Paris"}),
            output=OutputChecks(contains=("18",), criteria=("mentions rain",)),
            asserts=(path_assertion("calls[0].name", {"equals": "get_forecast"}),),
        ),
        trajectory="Asks which city first.",
        final_state=parse_matchers({"ok": True, "booked": {"anything": True}}),
    )
    c = case(expect=exp, state={"ok": False})
    s = suite(c)
    r = record(call("get_weather", {"city": "Paris", "units": 5}), call("lookup", {}), output="mild")
    no = verdicts_for(s, c, r, lambda q: JudgeVerdict(False, 0.0, "it does not"))
    weighted = dataclasses.replace(
        c, scoring=Scoring(mode="weighted", pass_score=1.0), expect=expectation(weather_call)
    )
    failures = [
        *score(c, r, no, s).failures,
        *score(c, r, {}, s).failures,  # no verdicts: the judge failed
        *score(
            weighted, record(call("get_weather", {"city": "London"}), call("search", {"query": "x"})), {}, s
        ).failures,
        *score(c, record(error="HTTP 503 from api.example.com"), {}, s).failures,
    ]
    reasons = {f.reason for f in failures}
    assert reasons >= {
        "wrong_count",
        "schema_violation",
        "hallucinated_tool",
        "output_check_failed",
        "judge_failed",
        "trajectory_failed",
        "state_mismatch",
        "below_pass_score",
        "provider_error",
    }, reasons
    for f in failures:
        title = REASON_TITLES[f.reason]
        line = f"{title}: {f.message}"
        words = [w.strip(".,;:()\"'").lower() for w in line.split()]
        assert _repeated_run(words) is None, line
        assert f.message.split()[:2] != title.split()[:2] and title not in f.message, line
        assert "(absent)" not in line
        if f.reason == "wrong_count":
            assert 'city="London"' in f.message  # the expected value, not only the tool
    [absent] = [f for f in failures if f.reason == "state_mismatch" and f.argument == "booked"][:1]
    assert absent.actual is None and "absent" in absent.message
