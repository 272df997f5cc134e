from __future__ import annotations

from gate.suite.matcher_tree import parse_matchers
from gate.suite.mocks import MockOutcome, MockSession, merged
from gate.suite.model import MockRule, Mocks

WEATHER = Mocks(
    tools={
        "get_weather": (
            MockRule(when=parse_matchers({"city": {"normalized": "paris"}}), returns={"temp_c": 18}),
            MockRule(when=parse_matchers({"city": "London"}), error="rate limited"),
            MockRule(when=None, returns={"temp_c": 21}),
        ),
        "book_flight": (MockRule(when=None, error="payment service unavailable"),),
    }
)


def test_first_matching_when_rule_wins():
    outcome = _once(WEATHER, "get_weather", {"city": "PARIS ", "units": "metric"})
    assert (outcome.kind, outcome.result, outcome.is_error) == ("matched", {"temp_c": 18}, False)


def test_rule_without_when_is_the_fallback():
    outcome = _once(WEATHER, "get_weather", {"city": "Rome"})
    assert (outcome.kind, outcome.result, outcome.is_error) == ("fallback", {"temp_c": 21}, False)


def test_error_rule_gives_an_error_result():
    outcome = _once(WEATHER, "get_weather", {"city": "London"})
    assert (outcome.kind, outcome.result, outcome.is_error) == ("error", "rate limited", True)
    outcome = _once(WEATHER, "book_flight", {"to": "NYC"})
    assert (outcome.kind, outcome.result, outcome.is_error) == ("error", "payment service unavailable", True)


def test_unparseable_arguments_match_only_rules_without_when():
    outcome = _once(WEATHER, "get_weather", None)
    assert outcome.kind == "fallback"
    only_when = Mocks(tools={"t": (MockRule(when=parse_matchers({"a": {"anything": True}}), returns=1),)})
    assert _once(only_when, "t", None).kind == "unmocked"


def test_configured_unmocked_default():
    mocks = Mocks(unmocked=MockRule(when=None, returns={"status": "ok"}))
    outcome = _once(mocks, "anything", {})
    assert (outcome.kind, outcome.result, outcome.is_error) == ("unmocked", {"status": "ok"}, False)
    failing = Mocks(unmocked=MockRule(when=None, error="offline"))
    assert _once(failing, "x", {}) == _once(failing, "y", {"a": 1})
    assert _once(failing, "x", {}).is_error


def test_builtin_default_for_unmocked_tools_explains_itself():
    outcome = _once(WEATHER, "search", {"query": "x"})
    assert outcome.kind == "unmocked" and outcome.is_error
    assert outcome.result == {"error": "no mock configured for tool search"}


def test_when_rules_that_do_not_match_fall_through_to_unmocked():
    mocks = Mocks(tools={"get_weather": (MockRule(when=parse_matchers({"city": "Paris"}), returns=1),)})
    assert _once(mocks, "get_weather", {"city": "Rome"}).kind == "unmocked"


def test_merged_tries_case_rules_first():
    case_mocks = Mocks(
        tools={"get_weather": (MockRule(when=parse_matchers({"city": "Rome"}), returns={"temp_c": 30}),)}
    )
    both = merged(case_mocks, WEATHER)
    assert _once(both, "get_weather", {"city": "Rome"}).result == {"temp_c": 30}
    assert _once(both, "get_weather", {"city": "Paris"}).result == {"temp_c": 18}
    assert _once(both, "book_flight", {}).kind == "error"
    with_default = merged(
        Mocks(unmocked=MockRule(when=None, returns="case")),
        Mocks(unmocked=MockRule(when=None, returns="suite")),
    )
    assert _once(with_default, "x", {}).result == "case"


def _once(mocks: Mocks, tool: str, arguments: dict[str, object] | None) -> MockOutcome:
    return MockSession(mocks, defined=[tool]).call(tool, arguments)


def test_a_tool_that_is_not_defined_gets_an_unknown_tool_error_not_the_unmocked_default():
    mocks = Mocks(
        tools={"get_weather": (MockRule(when=None, returns={"temp_c": 18}),)},
        unmocked=MockRule(when=None, returns={"status": "queued"}),
    )
    session = MockSession(mocks, defined=["get_weather", "get_forecast"])
    invented = session.call("list_forecasts", {"city": "Oslo"})
    assert (invented.kind, invented.is_error) == ("unknown_tool", True)
    assert (
        invented.result
        == "Error: unknown tool 'list_forecasts': the available tools are get_forecast, get_weather."
    )
    # A defined tool without a rule still gets the configured default.
    assert session.call("get_forecast", {"city": "Oslo"}) == MockOutcome(
        "unmocked", {"status": "queued"}, False
    )
    assert session.call("get_weather", {"city": "Oslo"}).result == {"temp_c": 18}
