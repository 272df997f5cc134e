from __future__ import annotations

import pytest

from gate.scoring import judge_requests as trial_judging
from gate.suite.judging import JudgeVerdict
from gate.suite.path_assertions import PathError, evaluate, judge_requests, parse, select, unreachable
from tests.builders import call, path_assertion, record

RECORD = record(
    call("get_weather", {"city": "Paris"}),
    call("get_weather", {"city": "Rome"}),
    output="Paris 18 °C, Rome 25 °C",
)
ROOT = RECORD.as_path_root()


def check(path, aggregate="all", threshold=1.0, verdicts=None, rec=RECORD, **check):
    return evaluate(
        path_assertion(path, check, aggregate=aggregate, threshold=threshold), rec, verdicts or {}
    ).check


def test_parse():
    assert parse("calls[0].name") == (("key", "calls"), ("index", 0), ("key", "name"))
    assert parse("calls[*].args.city") == (("key", "calls"), ("each", None), ("key", "args"), ("key", "city"))
    assert parse("messages[-1].content") == (("key", "messages"), ("index", -1), ("key", "content"))
    assert parse("output") == (("key", "output"),)


@pytest.mark.parametrize(
    "bad", ["", "  ", "calls[", "calls[x]", ".output", "calls..name", "1calls", "calls[0]name", "output!"]
)
def test_invalid_paths_raise_path_error(bad):
    with pytest.raises(PathError):
        parse(bad)


def test_select():
    assert select(ROOT, "calls[0].name") == ["get_weather"]
    assert select(ROOT, "calls[*].args.city") == ["Paris", "Rome"]
    assert select(ROOT, "calls[-1].args.city") == ["Rome"]
    assert select(ROOT, "messages[-1].content") == ["Paris 18 °C, Rome 25 °C"]
    assert select(ROOT, "usage.output_tokens") == [20]
    assert select(ROOT, "calls[5].name") == []
    assert select(ROOT, "output.nothing") == []
    assert select(ROOT, "nothing") == []


def test_matches_on_a_value_that_is_not_text_fails_with_the_reason():
    result = check("usage.output_tokens", matches=r"^20$")
    assert not result.passed and result.score == 0.0
    assert "matches applies to text, not 20 (int)" in result.detail


def test_equals_one_of_matches_match():
    assert check("calls[0].name", equals="get_weather").passed
    assert not check("calls[*].args.city", equals="Paris").passed
    assert check("calls[*].args.city", aggregate="any", equals="Paris").passed
    assert check("calls[*].args.city", one_of=["Paris", "Rome"]).passed
    assert check("output", matches=r"\d+ °C").passed
    assert check("usage.output_tokens", match={"range": {"max": 50}}).passed
    assert not check("usage.output_tokens", matcher={"range": {"max": 5}}).passed


def test_exists_and_not_exists_on_empty_selection():
    assert not check("calls[3].name", exists=True).passed
    assert check("calls[3].name", not_exists=True).passed
    assert check("calls[0].name", exists=True).passed
    assert not check("calls[0].name", not_exists=True).passed
    assert check("error", not_exists=True).passed  # null counts as absent


def test_other_checks_fail_clearly_on_empty_selection():
    result = check("calls[9].args.city", equals="Paris")
    assert not result.passed and "selects nothing" in result.detail


def test_mean_min_max_aggregates_with_threshold():
    assert check("calls[*].args.city", aggregate="mean", threshold=0.5, equals="Paris").passed
    assert not check("calls[*].args.city", aggregate="mean", threshold=0.6, equals="Paris").passed
    assert not check("calls[*].args.city", aggregate="min", threshold=0.5, equals="Paris").passed
    assert check("calls[*].args.city", aggregate="max", threshold=1.0, equals="Paris").passed
    assert check("calls[*].args.city", aggregate="mean", threshold=0.5, equals="Paris").score == 0.5


def test_invalid_regex_fails_without_crashing():
    result = check("output", matches="(")
    assert not result.passed and "invalid regex" in result.detail


def test_judged_path_checks_use_verdicts():
    assertion = path_assertion("calls[*].args.city", {"criteria": "is a European capital"})
    requests = judge_requests(assertion, RECORD)
    assert [q.text for q in requests] == ["Paris", "Rome"]
    assert {q.kind for q in requests} == {"criteria"}
    yes = {q.key: JudgeVerdict(True, 1.0, "") for q in requests}
    assert evaluate(assertion, RECORD, yes).check.passed
    half = {requests[0].key: JudgeVerdict(True, 1.0, ""), requests[1].key: JudgeVerdict(False, 0.0, "")}
    assert not evaluate(assertion, RECORD, half).check.passed
    missing = evaluate(assertion, RECORD, {})
    assert not missing.check.passed and "no judge verdict" in missing.check.detail
    assert missing.judge_error is not None and "no judge verdict" in missing.judge_error
    semantic = path_assertion("output", {"semantic_contains": "it is warm in Rome"})
    assert [q.kind for q in judge_requests(semantic, RECORD)] == ["semantic_contains"]
    assert judge_requests(path_assertion("output", {"exists": True}), RECORD) == []


@pytest.mark.parametrize(
    ("aggregate", "decided", "passed"),
    [("all", False, False), ("any", True, True), ("min", False, False), ("max", True, True)],
)
def test_a_missing_verdict_is_a_judge_error_only_when_it_could_change_the_outcome(aggregate, decided, passed):
    assertion = path_assertion(
        "calls[*].args.city", {"criteria": "is a European capital"}, aggregate=aggregate
    )
    paris, rome = judge_requests(assertion, RECORD)
    # Rome's verdict is missing; Paris's alone decides "all"/"min" (failed) and "any"/"max" (passed).
    evaluation = evaluate(assertion, RECORD, {paris.key: JudgeVerdict(decided, float(decided), "")})
    assert evaluation.judge_error is None and evaluation.check.passed is passed
    # Paris's verdict the other way leaves the outcome to Rome's: the judge's failure, an error.
    undecided = evaluate(assertion, RECORD, {paris.key: JudgeVerdict(not decided, float(not decided), "")})
    assert undecided.judge_error is not None and not undecided.check.passed


def test_collect_requests_includes_judged_path_checks():
    from gate.suite.model import Expectation
    from tests.builders import case, suite

    c = case(expect=Expectation(asserts=(path_assertion("output", {"criteria": "mentions Rome"}),)))
    requests = trial_judging.collect_requests(suite(c), c, RECORD, 0)
    assert [(q.kind, q.criterion) for q in requests] == [("criteria", "mentions Rome")]


def test_paths_no_run_record_has_are_found_before_the_run():
    assert "did you mean 'args'?" in (unreachable("calls[*].arguments.x") or "")
    assert "did you mean 'name'?" in (unreachable("calls[0].tool") or "")
    assert "calls is a list; write calls[0].name or calls[*].name" in (unreachable("calls.name") or "")
    assert "is a single value" in (unreachable("output.text") or "")
    assert "has no [0]" in (unreachable("usage[0]") or "")
    for path in ("calls[*].args.city", "messages[-1].content", "state.bookings[0].id", "usage.input_tokens"):
        assert unreachable(path) is None, path
