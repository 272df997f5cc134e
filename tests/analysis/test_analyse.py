from __future__ import annotations

from gate.analysis.analyse import analyse
from gate.analysis.definition_facts import overlap
from gate.results.outcomes import SourceRef
from tests.results_factory import call, case, failure, record, run, suite, tool


def weather_tools():
    return [
        tool(
            "get_weather",
            "Get the current weather for a city.",
            file="tools/weather.json",
            line=2,
            description_line=4,
            parameter_lines={"city": 9},
        ),
        tool(
            "get_forecast",
            "Get the weather forecast for a city over the next days.",
            file="tools/weather.json",
            line=20,
            description_line=22,
            parameter_lines={"city": 27, "days": 31},
        ),
    ]


def confused(i):
    return case(
        f"now-{i}",
        "failed",
        line=10 + i,
        failures=[failure("wrong_tool", tool="get_forecast", expected_tool="get_weather")],
        rec=record(calls=[call("get_forecast", {"city": "Paris"})]),
    )


def days_wrong(i, value):
    return case(
        f"days-{i}",
        "failed",
        line=50 + i,
        failures=[
            failure(
                "value_error", tool="get_forecast", argument="days", expected={"range": [1, 7]}, actual=value
            )
        ],
        rec=record(calls=[call("get_forecast", {"city": "Oslo", "days": value})]),
    )


def days_ok(i):
    return case(f"ok-{i}", rec=record(calls=[call("get_forecast", {"city": "Oslo", "days": 3})]), line=80 + i)


def results():
    cases = (
        [confused(i) for i in range(4)]
        + [days_wrong(i, 14) for i in range(3)]
        + [days_ok(i) for i in range(2)]
    )
    cases.append(
        case(
            "ghost",
            "failed",
            line=99,
            failures=[failure("hallucinated_tool", tool="get_wether")],
            rec=record(calls=[call("get_wether", {})]),
        )
    )
    cases.append(case("silent", "failed", line=100, failures=[failure("missing_call", tool="get_weather")]))
    cases.append(case("down", "error", line=101))
    return run(suite("weather", cases, tools=weather_tools(), prompt=SourceRef("prompts/weather.md", 1)))


def test_counts_by_reason():
    analysis = analyse(results())
    counts = {r.reason: (r.cases, r.occurrences) for r in analysis.reasons}
    assert counts == {
        "wrong_tool": (4, 4),
        "value_error": (3, 3),
        "hallucinated_tool": (1, 1),
        "missing_call": (1, 1),
    }
    assert analysis.reasons[0].reason == "wrong_tool" and analysis.failed_cases == 9


def test_confusion_table():
    analysis = analyse(results())
    table = {(c.expected, c.called): c.cases for c in analysis.confusion}
    assert table[("get_weather", "get_forecast")] == 4
    assert table[(None, "get_wether")] == 1  # an extra (hallucinated) call with no counterpart
    assert table[("get_weather", None)] == 1  # a missing call with no counterpart


def test_missing_plus_extra_call_in_one_trial_is_a_confusion_pair():
    c = case("x", "failed", failures=[failure("missing_call", tool="a"), failure("extra_call", tool="b")])
    analysis = analyse(run(suite("s", [c], tools=[tool("a"), tool("b")])))
    assert [(x.expected, x.called) for x in analysis.confusion] == [("a", "b")]


def test_failing_arguments_out_of_all_calls():
    analysis = analyse(results())
    days = next(a for a in analysis.arguments if a.argument == "days")
    assert (days.tool, days.failures, days.calls) == (
        "get_forecast",
        3,
        9,
    )  # 4 confused + 3 wrong + 2 ok calls
    assert days.reasons == (("value_error", 3),)


def test_hallucinated_names_with_the_closest_real_tool():
    analysis = analyse(results())
    assert [(h.name, h.cases, h.closest) for h in analysis.hallucinated] == [("get_wether", 1, "get_weather")]


def test_the_closest_real_tool_is_one_of_the_suite_the_agent_had():
    ghost = case("g", "failed", failures=[failure("hallucinated_tool", tool="lookup_orders")])
    other = suite("shop", [], tools=[tool("lookup_order")])  # another agent's tool
    own = suite("crm", [ghost], tools=[tool("search_customers"), tool("lookup_orderbook")])
    (h,) = analyse(run(other, own)).hallucinated
    assert h.closest == "lookup_orderbook"
    alone = suite("crm", [ghost], tools=[tool("search_customers")])
    assert [h.closest for h in analyse(run(other, alone)).hallucinated] == [None]


def test_recommendations_point_at_the_lines_to_change():
    analysis = analyse(results())
    by_pattern = {r.pattern: r for r in analysis.recommendations}
    confusion = by_pattern["confused_tools"]
    assert (confusion.file, confusion.line, confusion.tool) == ("tools/weather.json", 4, "get_weather")
    assert "4 cases" in confusion.message and "when to use" in confusion.message
    share = overlap(weather_tools()[0].description, weather_tools()[1].description)
    assert f"share {share.shared} of their {share.total} distinct content words ({share.ratio:.0%})" in (
        confusion.message
    )
    assert len(confusion.cases) == 4 and confusion.cases[0] == "weather/now-0"

    days = by_pattern["argument_value_error"]
    assert (days.file, days.line, days.tool, days.argument) == (
        "tools/weather.json",
        31,
        "get_forecast",
        "days",
    )
    assert "3 of 9 calls" in days.message
    # These results hold no schema of the tool: the advice says what to check, claims nothing.
    assert (
        "these results do not hold the tool's schema: if it does not list the allowed values" in days.message
    )

    ghost = by_pattern["hallucinated_tool"]
    assert (ghost.file, ghost.line) == ("prompts/weather.md", 1) and "`get_weather`" in ghost.message

    missing = by_pattern["missing_call"]
    assert missing.line == 4 and "when it must be called" in missing.message
    # most severe first
    assert analysis.recommendations[0].pattern == "confused_tools"
    assert [r.severity for r in analysis.recommendations] == sorted(
        (r.severity for r in analysis.recommendations), reverse=True
    )


def test_clarification_and_prompt_patterns_point_at_the_prompt():
    from gate.results.outcomes import CheckScore
    from tests.results_factory import trial

    t = trial("failed", failures=[failure("judge_failed")], checks=[CheckScore("clarification", 0.0, False)])
    c = case("vague", "failed", trials=[t])
    o = case("order", "failed", failures=[failure("order_violation", tool="a")])
    analysis = analyse(run(suite("s", [c, o], prompt=SourceRef("prompts/s.md", 3))))
    patterns = {r.pattern: r for r in analysis.recommendations}
    assert patterns["no_clarification"].file == "prompts/s.md" and patterns["no_clarification"].line == 3
    assert "ask the user" in patterns["no_clarification"].message
    assert patterns["order_violation"].cases == ("s/order",)


def test_untrusted_names_in_recommendations_are_inline_code():
    c = case("x", "failed", failures=[failure("hallucinated_tool", tool="@org/team `x` <img>")])
    analysis = analyse(run(suite("s", [c], prompt=SourceRef("p.md", 1))))
    message = analysis.recommendations[0].message
    assert "``@org/team `x` <img>``" in message


def test_nothing_failed_means_no_patterns():
    analysis = analyse(run(suite("s", [days_ok(0)], tools=weather_tools())))
    assert analysis.reasons == () and analysis.recommendations == () and analysis.confusion == ()


def test_description_overlap_counts_shared_content_words():
    share = overlap("get the weather now", "the weather forecast")  # {weather} of {weather, now, forecast}
    assert (share.shared, share.total, share.ratio) == (1, 3, 1 / 3)
    assert overlap("", "").ratio == 0.0


def test_missing_and_extra_calls_explained_by_a_confusion_get_no_separate_advice():
    c = case("x", "failed", failures=[failure("missing_call", tool="a"), failure("extra_call", tool="b")])
    analysis = analyse(run(suite("s", [c], tools=[tool("a"), tool("b")])))
    assert [r.pattern for r in analysis.recommendations] == ["confused_tools"]
