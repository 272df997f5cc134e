"""Each recommendation is true of the definition it points at. Every test gives a small tool
definition and failed results on which the advice of before would have said something false (ask to
mark a required argument required, to add an enum or example that is there, to name a tool the
description already names) and checks what is said instead."""

from __future__ import annotations

import dataclasses
from typing import Any

from gate.analysis.analyse import analyse
from gate.analysis.recommendations import Recommendation
from gate.results.messages import SystemMessage
from gate.results.outcomes import SourceRef
from tests.results_factory import call, case, failure, record, run, suite, tool

UNITS = {"type": "string", "enum": ["metric", "imperial"], "description": "Unit system of the result."}
DAYS = {"type": "integer", "minimum": 1, "maximum": 7, "description": "Days to forecast, 1 to 7, e.g. 3."}
CITY = {"type": "string", "description": 'City name in English, e.g. "Paris".'}


def weather(
    properties: dict[str, Any] | None = None,
    required: tuple[str, ...] = ("city", "units"),
    description: str = "Current weather for one city.",
    **schema: Any,
) -> Any:
    parameters = {
        "type": "object",
        "properties": properties if properties is not None else {"city": CITY, "units": UNITS},
        "required": list(required),
        **schema,
    }
    return tool(
        "get_weather",
        description,
        file="tools/weather.json",
        line=2,
        description_line=5,
        parameter_lines={"city": 10, "units": 14, "days": 18},
        parameters=parameters,
    )


def failed(i: int, failures: list[Any], calls: list[Any]) -> Any:
    return case(f"c{i}", "failed", line=10 + i, failures=failures, rec=record(calls=calls))


def advice(tools: list[Any], cases: list[Any], pattern: str) -> Recommendation:
    analysis = analyse(run(suite("s", cases, tools=tools, prompt=SourceRef("prompts/p.md", 1))))
    found = [r for r in analysis.recommendations if r.pattern == pattern]
    assert len(found) == 1, [r.pattern for r in analysis.recommendations]
    return found[0]


def units_missing(i: int) -> Any:
    return failed(
        i,
        [failure("missing_argument", tool="get_weather", argument="units", expected="metric")],
        [call("get_weather", {"city": "Paris"})],
    )


# --- missing arguments ---------------------------------------------------------------------------


def test_a_required_argument_left_out_is_called_required_and_named_in_the_tool_description():
    rec = advice([weather()], [units_missing(0), units_missing(1)], "argument_missing_argument")
    assert "mark it required" not in rec.message
    assert "left out in 2 of 2 calls" in rec.message
    assert "it is already required in the schema: name it" in rec.message
    assert 'name it in the description of `get_weather` (e.g. "always pass `units`")' in rec.message
    assert "example" not in rec.message.split("(e.g.")[1]  # an enum lists its values: no example asked
    assert (rec.file, rec.line) == ("tools/weather.json", 14)


def test_a_tool_of_the_same_name_in_another_suite_is_not_the_definition_advised_on():
    # Suite "a" requires units in its own file; suite "b", where units is left out, makes it optional.
    other = dataclasses.replace(weather(), file="a/tools.json")
    own = dataclasses.replace(weather(required=("city",)), file="b/tools.json")
    passed = case(
        "ok", "passed", rec=record(calls=[call("get_weather", {"city": "Rome", "units": "metric"})])
    )
    results = run(suite("a", [passed], tools=[other]), suite("b", [units_missing(0)], tools=[own]))
    (rec,) = [r for r in analyse(results).recommendations if r.pattern == "argument_missing_argument"]
    assert (rec.file, rec.line) == ("b/tools.json", 14)
    assert "it is optional in the schema" in rec.message and "already required" not in rec.message
    assert "left out in 1 of 1 call" in rec.message  # suite a's call of its own get_weather not counted


def test_a_required_argument_without_enum_or_example_gets_an_example_asked_for():
    bare = {"city": CITY, "units": {"type": "string"}}
    rec = advice([weather(bare)], [units_missing(0)], "argument_missing_argument")
    assert "already required" in rec.message and "give it an example value" in rec.message


def test_a_required_argument_the_description_names_and_exemplifies_points_at_the_system_prompt():
    named = weather(
        {"city": CITY, "units": {"type": "string", "description": "e.g. metric"}},
        description="Current weather for one city; always give units.",
    )
    rec = advice([named], [units_missing(0)], "argument_missing_argument")
    assert "already required" in rec.message
    assert "name it in the description" not in rec.message and "example" not in rec.message
    assert "say in the system prompt that every call of `get_weather` needs it" in rec.message


def test_an_optional_argument_left_out_is_called_optional():
    rec = advice([weather(required=("city",))], [units_missing(0)], "argument_missing_argument")
    assert "it is optional in the schema: add it to `required`" in rec.message
    assert "already required" not in rec.message


def test_an_argument_the_schema_does_not_define_is_said_to_be_undefined():
    rec = advice(
        [weather({"city": CITY}, required=("city",))], [units_missing(0)], "argument_missing_argument"
    )
    assert "the schema of `get_weather` does not define it: add it to its `properties` and `required`" in (
        rec.message
    )


def test_without_a_recorded_schema_the_advice_claims_nothing_about_it():
    unknown = tool("get_weather", "Current weather.", parameter_lines={"units": 14})
    rec = advice([unknown], [units_missing(0)], "argument_missing_argument")
    assert "these results do not hold the tool's schema: make sure it is listed in `required`" in rec.message
    assert "already required" not in rec.message and "optional" not in rec.message


# --- wrong types and values ----------------------------------------------------------------------


def days_case(i: int, reason: str, value: Any, expected: Any = 3) -> Any:
    return failed(
        i,
        [failure(reason, tool="get_weather", argument="days", expected=expected, actual=value)],
        [call("get_weather", {"city": "Paris", "units": "metric", "days": value})],
    )


def with_days(days: dict[str, Any]) -> Any:
    return weather({"city": CITY, "units": UNITS, "days": days})


def weather_value_error(i: int, argument: str, expected: Any, sent: Any) -> Any:
    """A case whose `get_weather` call (Paris, metric) sent `sent` for `argument`, expected `expected`."""
    return failed(
        i,
        [failure("value_error", tool="get_weather", argument=argument, expected=expected, actual=sent)],
        [call("get_weather", {"city": "Paris", "units": "metric", argument: sent})],
    )


def test_a_type_error_on_a_typed_argument_names_the_type_and_what_was_sent():
    rec = advice([with_days(DAYS)], [days_case(0, "type_error", "3 days")], "argument_type_error")
    assert "state its type" not in rec.message and "give an example" not in rec.message
    assert 'the schema already declares it `integer`, yet the model sent `"3 days"`' in rec.message
    assert 'say in its description that it takes a bare `integer` (e.g. `3`, not `"3 days"`)' in rec.message


def test_a_type_error_on_an_untyped_argument_asks_for_the_type_the_case_expects():
    rec = advice(
        [with_days({"description": "How many days."})],
        [days_case(0, "type_error", "3")],
        "argument_type_error",
    )
    assert 'the schema gives it no type: add `"type": "integer"`' in rec.message


def test_values_outside_the_enum_point_at_the_enum_and_the_values_sent():
    cases = [
        weather_value_error(i, "units", "metric", sent) for i, sent in enumerate(["celsius", "celsius", "C"])
    ]
    rec = advice([weather()], cases, "argument_value_error")
    assert "give its allowed values" not in rec.message
    assert 'its schema already gives the allowed values (`enum`: `"metric"`, `"imperial"`)' in rec.message
    assert 'yet the model sent `"celsius"`, `"C"`' in rec.message
    assert "its description names them" not in rec.message  # "Unit system of the result."
    assert "which of the user's words map to which allowed value" in rec.message
    assert '(e.g. `"celsius"` means `"metric"`)' in rec.message


def test_a_wrong_value_inside_the_enum_says_the_enum_allows_it():
    rec = advice([weather()], [weather_value_error(0, "units", "metric", "imperial")], "argument_value_error")
    assert 'the model sent `"imperial"`, which its schema allows' in rec.message
    assert 'where the case expected `"metric"`' in rec.message and "how to choose the value" in rec.message


def test_values_outside_the_range_point_at_the_range():
    rec = advice(
        [with_days(DAYS)],
        [days_case(0, "value_error", 14, {"range": {"min": 1, "max": 7}})],
        "argument_value_error",
    )
    assert "its schema already gives the allowed values (range 1 to 7) and its description names them" in (
        rec.message
    )
    assert "yet the model sent `14`" in rec.message


def test_a_wrong_value_of_an_unconstrained_number_asks_for_a_range_and_an_example():
    rec = advice([with_days({"type": "integer"})], [days_case(0, "value_error", 5)], "argument_value_error")
    assert "give its range (`minimum`/`maximum`) in the schema, and give an example value" in rec.message


def test_a_wrong_value_of_a_string_with_an_example_does_not_ask_for_an_example():
    rec = advice([weather()], [weather_value_error(0, "city", "Munich", "München")], "argument_value_error")
    assert "example" not in rec.message.split(":", 1)[1]
    assert "list them in `enum`; else say in its description how to write it" in rec.message


# --- unexpected arguments ------------------------------------------------------------------------


def extra_units(i: int) -> Any:
    return failed(
        i,
        [failure("unexpected_argument", tool="get_weather", argument="units", actual="metric")],
        [call("get_weather", {"city": "Paris", "units": "metric"})],
    )


def test_an_unexpected_argument_the_schema_defines_is_not_called_undefined():
    rec = advice([weather(required=("city",))], [extra_units(0)], "argument_unexpected_argument")
    assert "does not define" not in rec.message
    assert (
        "it is an optional parameter of `get_weather`, but the case expects calls without it" in rec.message
    )
    assert "`units: {optional: true}`" in rec.message


def test_an_undefined_argument_of_a_closed_schema_is_not_told_to_close_it():
    closed = weather({"city": CITY}, required=("city",), additionalProperties=False)
    rec = advice([closed], [extra_units(0)], "argument_unexpected_argument")
    assert "already forbids other arguments (`additionalProperties: false`)" in rec.message
    assert "set `additionalProperties: false`" not in rec.message
    open_schema = advice(
        [weather({"city": CITY}, required=("city",))], [extra_units(0)], "argument_unexpected_argument"
    )
    assert "set `additionalProperties: false`" in open_schema.message


# --- schema violations no expectation caught -----------------------------------------------------


def test_a_schema_violation_whose_rule_the_description_states_asks_for_an_example_call():
    units = {"type": "string", "enum": ["metric", "imperial"], "description": "metric or imperial."}
    cases = [
        failed(
            0,
            [
                failure(
                    "schema_violation",
                    tool="get_weather",
                    argument="units",
                    expected="enum: ['metric', 'imperial']",
                    actual="kelvin",
                )
            ],
            [call("get_weather", {"city": "Paris", "units": "kelvin"})],
        )
    ]
    rec = advice([weather({"city": CITY, "units": units})], cases, "argument_schema_violation")
    assert "make its schema constraints explicit" not in rec.message
    assert "its description says it too: give an example call in `get_weather`'s description" in rec.message


# --- confused tools ------------------------------------------------------------------------------


def confused(i: int) -> Any:
    return failed(
        i,
        [failure("wrong_tool", tool="get_forecast", expected_tool="get_weather")],
        [call("get_forecast", {"city": "Oslo", "days": 1})],
    )


def forecast(description: str) -> Any:
    return tool("get_forecast", description, file="tools/weather.json", line=20, description_line=23)


def test_confused_tools_show_the_real_word_overlap_of_their_descriptions():
    rec = advice(
        [weather(description="Weather now in a city."), forecast("Weather forecast for a city.")],
        [confused(0)],
        "confused_tools",
    )
    # {weather, now, city} and {weather, forecast, city}: 2 shared of 4 distinct content words.
    assert "their descriptions share 2 of their 4 distinct content words (50%)" in rec.message
    assert "make the two descriptions differ" in rec.message


def test_descriptions_that_already_name_each_other_are_not_told_to():
    rec = advice(
        [
            weather(description="Weather right now. Not for future days: use get_forecast."),
            forecast("Forecast for the coming days. Not for now: use get_weather."),
        ],
        [confused(0), confused(1)],
        "confused_tools",
    )
    assert "say in the description of" not in rec.message
    assert "both descriptions already name the other tool" in rec.message
    assert (rec.file, rec.line) == ("tools/weather.json", 5)


def test_when_only_the_expected_tool_names_the_other_the_advice_goes_to_the_other():
    rec = advice(
        [
            weather(description="Weather right now; for later days use get_forecast."),
            forecast("Daily forecast."),
        ],
        [confused(0)],
        "confused_tools",
    )
    assert "the description of `get_weather` already names `get_forecast`" in rec.message
    assert (rec.file, rec.line, rec.tool) == ("tools/weather.json", 23, "get_forecast")


# --- a tool that is not called -------------------------------------------------------------------


def test_a_tool_without_description_is_told_it_has_none():
    silent = failed(0, [failure("missing_call", tool="get_weather")], [])
    rec = advice([dataclasses.replace(weather(), description="")], [silent], "missing_call")
    assert "`get_weather` has no description, and it was not called where it should have been" in rec.message


def test_an_argument_failing_for_several_reasons_counts_the_main_one_and_lists_the_others():
    rec = advice(
        [weather()], [units_missing(0), units_missing(1), extra_units(2)], "argument_missing_argument"
    )
    assert "left out in 2 of 3 calls (other failures of it: unexpected argument 1)" in rec.message


# --- what the system prompt and the descriptions already say -------------------------------------


def with_prompt(rec: Any, prompt: str) -> Any:
    return dataclasses.replace(rec, messages=(SystemMessage(prompt), *rec.messages))


def ghost(prompt: str) -> Any:
    rec = with_prompt(record("Book me a flight to Oslo", [call("book_flite", {"to": "Oslo"})]), prompt)
    return case(
        "ghost", "failed", line=10, failures=[failure("hallucinated_tool", tool="book_flite")], rec=rec
    )


BOOK = tool("book_flight", "Book a flight.", file="tools/travel.json", line=1, description_line=3)


def test_a_hallucinated_name_the_system_prompt_mentions_is_pointed_out_there():
    rec = advice([BOOK], [ghost("Use book_flite to book.")], "hallucinated_tool")
    assert "The system prompt mentions `book_flite`: name the real tool there instead." in rec.message
    assert "If the prompt mentions" not in rec.message and (rec.file, rec.line) == ("prompts/p.md", 1)


def test_a_system_prompt_that_names_no_tool_is_told_which_ones_it_leaves_out():
    rec = advice([BOOK], [ghost("You are a travel agent.")], "hallucinated_tool")
    assert "The system prompt does not mention it, nor `book_flight`: list the available tools" in rec.message


def test_a_system_prompt_that_names_every_tool_is_not_told_to_list_them():
    rec = advice([BOOK], [ghost("You book flights with book_flight.")], "hallucinated_tool")
    assert "list the available tools" not in rec.message
    assert "already names every defined tool: say in `book_flight`'s description" in rec.message
    assert "(e.g. `Book me a flight to Oslo`)" in rec.message
    assert (rec.file, rec.line) == ("tools/travel.json", 3)


def test_a_description_that_says_when_gets_the_missed_requests_as_examples():
    said = weather(description="Current weather. Use it for questions about the weather right now.")
    silent = case(
        "now",
        "failed",
        line=10,
        failures=[failure("missing_call", tool="get_weather")],
        rec=record("Is it raining in Oslo?"),
    )
    rec = advice([said], [silent], "missing_call")
    assert "say in its description when it must be called" not in rec.message
    assert "although its description already says when to use it" in rec.message
    assert (
        "add requests like `Is it raining in Oslo?` to it as examples of when it must be called"
        in rec.message
    )


def test_a_description_that_says_when_not_gets_the_requests_it_was_wrongly_called_for():
    said = weather(description="Current weather. Not for future days.")
    extra = case(
        "later",
        "failed",
        line=10,
        failures=[failure("extra_call", tool="get_weather")],
        rec=record("Rain tomorrow?", [call("get_weather", {"city": "Oslo", "units": "metric"})]),
    )
    rec = advice([said], [extra], "extra_call")
    assert "although its description already says when not to use it" in rec.message
    assert "`Rain tomorrow?` to it as examples of when it must not be called" in rec.message


def schema_case(argument: Any, rule: str) -> Any:
    return failed(
        0,
        [failure("schema_violation", tool="get_weather", argument=argument, expected=rule, actual=None)],
        [call("get_weather", {"city": "Paris", "units": "metric", "when": "now"})],
    )


def test_a_schema_violation_of_an_undefined_argument_says_it_is_not_a_parameter():
    rule = "additionalProperties: false"
    rec = advice(
        [weather(additionalProperties=False)], [schema_case("when", rule)], "argument_schema_violation"
    )
    assert "`when` is not one of its parameters: list the parameters `get_weather` takes" in rec.message


def test_a_schema_violation_of_the_whole_arguments_object_points_at_the_tool_description():
    rec = advice([weather()], [schema_case(None, "minProperties: 3")], "argument_schema_violation")
    assert "state that rule in the description of `get_weather`, with an example call" in rec.message
    assert (rec.file, rec.line, rec.argument) == ("tools/weather.json", 5, None)


# --- advice that agrees with itself ------------------------------------------------------------------

CLINIC = [
    tool("find_slots", "Find free appointment slots. Use it when the user asks when they can come in."),
    tool("book_slot", "Book an appointment slot by its id."),
    tool("get_patient", "Get a patient's record, which lists their upcoming appointments."),
    tool("cancel_appointment", "Cancel an appointment by its id."),
]


def asked(case_id: str, line: int, why: Any, request: str, *calls: Any) -> Any:
    """A failed case with one failure, the user's request and the calls made."""
    return case(case_id, "failed", line=line, failures=[why], rec=record(request, list(calls)))


def clinic_results() -> Any:
    wrong = failure("wrong_tool", tool="book_slot", expected_tool="find_slots")
    confused = asked("confused", 10, wrong, "When can I come in next week?", call("book_slot", {"id": "s1"}))
    silent = asked("silent", 20, failure("missing_call", tool="find_slots"), "Any free slot on Monday?")
    invented = failure("hallucinated_tool", tool="list_appointments")
    ghost = asked("invented", 30, invented, "What appointments do I have?", call("list_appointments", {}))
    cases = [confused, silent, ghost]
    return run(suite("clinic", cases, tools=CLINIC, prompt=SourceRef("prompts/p.md", 1)))


def test_no_recommendation_asks_for_what_another_says_the_description_already_has():
    recs = analyse(clinic_results()).recommendations
    about = [r.message for r in recs if "find_slots" in r.message]
    assert len(about) == 2  # the confusion and the missing call
    assert not any("say in the description of `find_slots` when to use it" in m for m in about)
    assert all("already says when to use it" in m for m in about)
    assert any("`When can I come in next week?` to it as examples" in m for m in about)


def test_a_hallucinated_name_is_matched_to_the_tool_that_does_what_it_says_not_the_one_spelled_alike():
    (h,) = analyse(clinic_results()).hallucinated
    assert (h.closest, h.closest_by, h.shared) == ("get_patient", "purpose", ("appointment", "list"))
    rec = next(r for r in analyse(clinic_results()).recommendations if r.pattern == "hallucinated_tool")
    assert (
        "closest to it by what it does is `get_patient` (its definition speaks of `appointment`, `list`)"
        in rec.message
    )
    assert "cancel_appointment" not in rec.message


def test_the_tool_the_case_expected_is_the_one_meant_by_a_hallucinated_call():
    meant = case(
        "meant",
        "failed",
        failures=[
            failure("missing_call", tool="find_slots"),
            failure("hallucinated_tool", tool="list_appointments"),
        ],
        rec=record("Show my options", [call("list_appointments", {})]),
    )
    (h,) = analyse(run(suite("clinic", [meant], tools=CLINIC))).hallucinated
    assert (h.closest, h.closest_by) == ("find_slots", "expected")


def test_a_misspelt_name_is_matched_by_its_spelling():
    typo = case("typo", "failed", failures=[failure("hallucinated_tool", tool="find_slot")])
    (h,) = analyse(run(suite("clinic", [typo], tools=CLINIC))).hallucinated
    assert (h.closest, h.closest_by) == ("find_slots", "spelling")
