from __future__ import annotations

import pytest

from gate.errors import InputError
from gate.results.messages import AssistantMessage, ToolCall, ToolResult, UserMessage
from gate.suite.conversation import build, letter
from gate.suite.model import Choice, Expectation, OutputChecks
from tests.builders import case, suite

OPTIONS = ("Paris", "London", "Rome", "Madrid")


def choice_case(**kw):
    return case(
        id="capital",
        input="Which city is the capital of {{ country }}?",
        vars={"country": "France"},
        expect=Expectation(output=OutputChecks(choice=Choice(options=OPTIONS, correct="Paris"))),
        **kw,
    )


def test_renders_system_prompt_and_messages_from_case_vars():
    c = case(
        conversation=(
            UserMessage("Hi, I am {{ name }}."),
            AssistantMessage("Hello {{name}}!"),
            UserMessage("Weather in {{ city }}?"),
        ),
        vars={"name": "Ada", "city": "Paris", "unit_system": "metric"},
    )
    s = suite(c, system="Use {{ unit_system }} units.")
    prepared = build(s, c, 0)
    assert prepared.system == "Use metric units."
    assert prepared.messages == (
        UserMessage("Hi, I am Ada."),
        AssistantMessage("Hello Ada!", given=True),
        UserMessage("Weather in Paris?"),
    )
    assert prepared.extra == {}


def test_no_system_prompt():
    c = case()
    assert build(suite(c, system=None), c, 0).system is None


def test_missing_variable_is_a_clear_input_error():
    c = case(input="Weather in {{ city }}?")
    with pytest.raises(InputError, match="city"):
        build(suite(c), c, 0)


def test_choice_options_are_lettered_and_appended_to_the_last_user_message():
    c = choice_case()
    prepared = build(suite(c), c, 0)
    letters = prepared.extra["choice_letters"]
    assert list(letters) == ["A", "B", "C", "D"]
    assert sorted(letters.values()) == sorted(OPTIONS)
    content = prepared.messages[-1].content
    assert content.startswith("Which city is the capital of France?")
    for key, text in letters.items():
        assert f"\n{key}) {text}" in content
    assert "letter" in content and "A, B, C or D" in content


def test_choice_shuffle_is_deterministic_per_trial_and_varies_across_trials():
    c = choice_case()
    s = suite(c)
    orders = [tuple(build(s, c, i).extra["choice_letters"].values()) for i in range(8)]
    assert orders == [tuple(build(s, c, i).extra["choice_letters"].values()) for i in range(8)]
    assert len(set(orders)) > 1
    # The seed includes the suite name and the case id.
    other = [tuple(build(suite(c, name="other"), c, i).extra["choice_letters"].values()) for i in range(8)]
    assert other != orders


def test_choice_goes_to_last_user_message_even_after_an_assistant_turn():
    c = choice_case(conversation=(UserMessage("Quiz time."), AssistantMessage("Ready.")))
    prepared = build(suite(c), c, 1)
    assert prepared.messages[1] == AssistantMessage("Ready.", given=True)
    assert "Options:" in prepared.messages[0].content


def test_letters_beyond_z():
    assert [letter(i) for i in (0, 1, 25, 26, 27)] == ["A", "B", "Z", "AA", "AB"]


def test_earlier_calls_and_results_are_given_history_with_their_text_rendered():
    c = case(
        conversation=(
            UserMessage("Weather in {{ city }}?"),
            AssistantMessage("", tool_calls=(ToolCall("call_1", "get_weather", '{"city": "Paris"}'),)),
            ToolResult("call_1", "get_weather", '{"temp_c": 18}'),
        ),
        vars={"city": "Paris"},
    )
    assert build(suite(c), c, 0).messages == (
        UserMessage("Weather in Paris?"),
        AssistantMessage(
            "", tool_calls=(ToolCall("call_1", "get_weather", '{"city": "Paris"}'),), given=True
        ),
        ToolResult("call_1", "get_weather", '{"temp_c": 18}', given=True),
    )
