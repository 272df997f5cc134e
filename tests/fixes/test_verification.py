"""Whether a candidate is verified: what each re-run case says of it, its status and evidence, which
cases it is re-run on under a budget, and when its finished trials already decide against it."""

from __future__ import annotations

import pytest

from gate.fixes.verification import (
    Budget,
    case_outcome,
    decided,
    decided_against,
    evidence,
    judge,
    parse_budget,
    select,
)
from gate.results.fixes import CandidateCase
from gate.verdict.curtailment import Seen
from tests import builders as b
from tests import results_factory as r


def outcome(role: str, before: str, after: str | None) -> CandidateCase:
    status = "error" if after and set(after) == {"e"} else None
    rerun = r.trials_case("c", after, status=status) if after is not None else None
    return case_outcome(role, r.trials_case("c", before), rerun)  # type: ignore[arg-type]


def test_a_targeted_case_is_fixed_when_it_passes_under_its_reducer() -> None:
    assert outcome("targeted", "fff", "ppp").outcome == "fixed"
    assert outcome("targeted", "fff", "ppf").outcome == "still_failing"
    assert outcome("targeted", "f", "e").outcome == "error"
    assert outcome("targeted", "f", None).outcome == "not_run"


def test_a_passing_case_breaks_when_it_loses_every_trial_or_drops_significantly() -> None:
    assert outcome("passing", "p", "f").outcome == "broke"
    assert outcome("passing", "ppp", "fff").outcome == "broke"  # p = 0.05 exactly, but nothing passes
    five = outcome("passing", "ppppp", "pffff")
    assert five.outcome == "broke" and five.p_value is not None and five.p_value < 0.05
    noisy = outcome("passing", "ppppp", "ppppf")
    assert noisy.outcome == "wavered" and noisy.p_value == pytest.approx(0.5)
    assert outcome("passing", "ppp", "ppp").outcome == "kept"


def test_the_status_says_the_worst_first_and_the_evidence_counts_both_kinds() -> None:
    fixed = CandidateCase("s", "t", "targeted", "fixed", 5, 5, 0, 5)
    kept = CandidateCase("s", "k", "passing", "kept", 5, 5, 5, 5)
    broke = CandidateCase("s", "b", "passing", "broke", 0, 5, 5, 5, 0.004)
    still = CandidateCase("s", "u", "targeted", "still_failing", 1, 5, 0, 5)
    assert judge([fixed, kept]) == ("verified", "")
    assert judge([fixed, broke, still]) == ("broke", "it breaks s/b and does not fix s/u")
    assert judge([still, kept]) == ("not_fixed", "it does not fix s/u")
    assert judge([fixed, CandidateCase("s", "x", "passing", "error")])[0] == "undecided"
    assert evidence([fixed, kept, kept]) == (
        "fixes 1 of 1 failing case, breaks 0 of 2 passing (5 trials each, no passing case lost a trial)"
    )
    wavered = CandidateCase("s", "w", "passing", "wavered", 4, 5, 5, 5, 0.5)
    assert evidence([fixed, wavered]) == (
        "fixes 1 of 1 failing case, breaks 0 of 1 passing, 1 of them lost trials within the noise "
        "(5 trials each, p = 0.500)"
    )
    one = CandidateCase("s", "t", "targeted", "fixed", 1, 1, 0, 1)
    assert evidence([one]) == "fixes 1 of 1 failing case, breaks 0 of 0 passing"


def test_trials_that_rule_the_candidate_out_stop_it() -> None:
    case = b.case("c", trials=3)
    failing, passing = r.trials_case("c", "fff"), r.trials_case("c", "ppp")
    assert decided_against(case, "targeted", Seen(fails=1), failing)  # under "all", one failure decides
    assert not decided_against(case, "targeted", Seen(passes=2), failing)
    assert not decided_against(case, "passing", Seen(fails=2), passing)  # the third may pass: wavered
    assert decided_against(case, "passing", Seen(fails=3), passing)
    assert decided_against(case, "passing", Seen(errors=3), passing)  # an error cannot be verified


def test_a_passing_case_stops_once_no_trial_to_come_can_break_it() -> None:
    case, before = b.case("c", trials=5), r.trials_case("c", "ppppp")
    assert not decided(case, "passing", Seen(passes=1), before)  # 1 of 5 would be significantly worse
    assert decided(case, "passing", Seen(passes=2), before)  # at worst 2 of 5: p = 0.083, within the noise
    assert not decided(case, "targeted", Seen(passes=4), r.trials_case("c", "fffff"))  # the 5th may fail


def test_the_cases_to_re_run_under_a_budget() -> None:
    def passing(case_id: str, tool: str) -> object:
        rec = r.record(calls=[r.call(tool)])
        return r.case(case_id, trials=[r.trial(rec=rec)], expected={"calls": [{"tool": tool}]})

    results = r.run(
        r.suite(
            "s",
            [
                r.case("t", "failed"),
                passing("a", "get_weather"),
                passing("b", "get_forecast"),
                passing("c", "search"),
            ],
        )
    )
    every = select(results, ("s/t",), ["s"], "tool_description", {"get_forecast"}, None)
    assert every.passing == ("s/a", "s/b", "s/c") and every.scope.startswith("every passing gating case")
    sample = select(results, ("s/t",), ["s"], "tool_description", {"get_forecast"}, Budget("requests", 5))
    assert sample.passing == ("s/a", "s/b") and "a sample of 2 of the 3" in sample.scope
    assert "`get_forecast`" in sample.scope
    short = select(results, ("s/t",), ["s"], "tool_description", {"get_forecast"}, Budget("requests", 2))
    assert short.short.startswith("the cases it must be re-run on need about 3 requests")
    prompt = select(results, ("s/t",), ["s"], "prompt_paragraph", set(), Budget("requests", 3))
    assert prompt.short  # a paragraph reaches every case: all of them or none


def test_the_budget_is_requests_or_dollars() -> None:
    assert parse_budget("200") == Budget("requests", 200.0)
    assert parse_budget("$0.50") == Budget("usd", 0.5)
    assert parse_budget("0.5 USD") == Budget("usd", 0.5)
    for bad in ("0", "2.5", "ten", "$-1", "$nan"):
        with pytest.raises(ValueError):
            parse_budget(bad)
