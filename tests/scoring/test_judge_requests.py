"""The judge requests of one trial are every request scoring will look up, judge matchers inside
``any_of`` / ``all_of`` and path ``match`` checks included."""

from __future__ import annotations

from gate.scoring import judge_requests as trial_judging
from gate.scoring.trial import score_trial
from gate.suite.judging import JudgeVerdict
from gate.suite.model import Expectation
from gate.suite.path_assertions import evaluate
from tests.builders import call, case, ecall, expectation, path_assertion, record, suite

FRENCH = {"any_of": ["Paris", {"judge": "a city in France"}]}
RECORD = record(call("get_weather", {"city": "Lyon"}), call("get_weather", {"city": "Paris"}))


def test_a_judge_inside_a_path_match_is_asked_for_every_selected_value_the_judge_must_decide():
    assertion = path_assertion("calls[*].args.city", {"match": FRENCH})
    c = case(expect=Expectation(asserts=(assertion,)))
    requests = trial_judging.collect_requests(suite(c), c, RECORD, 0)
    # "Paris" passes the literal alternative: only "Lyon" needs the judge.
    assert [(r.kind, r.criterion, r.text) for r in requests] == [("argument", "a city in France", "Lyon")]
    assert not evaluate(assertion, RECORD, {}).check.passed  # no verdict: cannot pass
    yes = {requests[0].key: JudgeVerdict(True, 1.0, "Lyon is in France")}
    assert evaluate(assertion, RECORD, yes).check.passed
    no = {requests[0].key: JudgeVerdict(False, 0.0, "no")}
    assert not evaluate(assertion, RECORD, no).check.passed


def test_a_judge_inside_an_expected_calls_any_of_is_collected_and_decides_the_trial():
    c = case(expect=expectation(ecall("get_weather", {"city": FRENCH}, times=(2, 2))))
    s = suite(c)
    requests = trial_judging.collect_requests(s, c, RECORD, 0)
    assert [r.text for r in requests] == ["Lyon"]
    passed = score_trial(s, c, RECORD, 0, {requests[0].key: JudgeVerdict(True, 1.0, "in France")})
    assert passed.status == "passed", passed.failures
    failed = score_trial(
        s, c, RECORD, 0, {requests[0].key: JudgeVerdict(False, 0.0, "Lyon is not a capital")}
    )
    assert failed.status == "failed"
    assert any("Lyon is not a capital" in f.message for f in failed.failures)
