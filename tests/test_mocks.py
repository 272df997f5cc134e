from __future__ import annotations

from gate.mocks import merged, resolve
from gate.suite_model import MockRule, Mocks

WEATHER = Mocks(
    tools={
        "get_weather": (
            MockRule(when={"city": {"normalized": "paris"}}, returns={"temp_c": 18}),
            MockRule(when={"city": "London"}, error="rate limited"),
            MockRule(when=None, returns={"temp_c": 21}),
        ),
        "book_flight": (MockRule(when=None, error="payment service unavailable"),),
    }
)


def test_first_matching_when_rule_wins():
    outcome = resolve(WEATHER, "get_weather", {"city": "PARIS ", "units": "metric"})
    assert (outcome.kind, outcome.result, outcome.is_error) == ("matched", {"temp_c": 18}, False)


def test_rule_without_when_is_the_fallback():
    outcome = resolve(WEATHER, "get_weather", {"city": "Rome"})
    assert (outcome.kind, outcome.result, outcome.is_error) == ("fallback", {"temp_c": 21}, False)


def test_error_rule_gives_an_error_result():
    outcome = resolve(WEATHER, "get_weather", {"city": "London"})
    assert (outcome.kind, outcome.result, outcome.is_error) == ("error", "rate limited", True)
    outcome = resolve(WEATHER, "book_flight", {"to": "NYC"})
    assert (outcome.kind, outcome.result, outcome.is_error) == ("error", "payment service unavailable", True)


def test_unparseable_arguments_match_only_rules_without_when():
    outcome = resolve(WEATHER, "get_weather", None)
    assert outcome.kind == "fallback"
    only_when = Mocks(tools={"t": (MockRule(when={"a": {"anything": True}}, returns=1),)})
    assert resolve(only_when, "t", None).kind == "unmocked"


def test_configured_unmocked_default():
    mocks = Mocks(unmocked=MockRule(when=None, returns={"status": "ok"}))
    outcome = resolve(mocks, "anything", {})
    assert (outcome.kind, outcome.result, outcome.is_error) == ("unmocked", {"status": "ok"}, False)
    failing = Mocks(unmocked=MockRule(when=None, error="offline"))
    assert resolve(failing, "x", {}) == resolve(failing, "y", {"a": 1})
    assert resolve(failing, "x", {}).is_error


def test_builtin_default_for_unmocked_tools_explains_itself():
    outcome = resolve(WEATHER, "search", {"query": "x"})
    assert outcome.kind == "unmocked" and outcome.is_error
    assert outcome.result == {"error": "no mock configured for tool search"}


def test_when_rules_that_do_not_match_fall_through_to_unmocked():
    mocks = Mocks(tools={"get_weather": (MockRule(when={"city": "Paris"}, returns=1),)})
    assert resolve(mocks, "get_weather", {"city": "Rome"}).kind == "unmocked"


def test_merged_tries_case_rules_first():
    case_mocks = Mocks(tools={"get_weather": (MockRule(when={"city": "Rome"}, returns={"temp_c": 30}),)})
    both = merged(case_mocks, WEATHER)
    assert resolve(both, "get_weather", {"city": "Rome"}).result == {"temp_c": 30}
    assert resolve(both, "get_weather", {"city": "Paris"}).result == {"temp_c": 18}
    assert resolve(both, "book_flight", {}).kind == "error"
    with_default = merged(
        Mocks(unmocked=MockRule(when=None, returns="case")),
        Mocks(unmocked=MockRule(when=None, returns="suite")),
    )
    assert resolve(with_default, "x", {}).result == "case"
