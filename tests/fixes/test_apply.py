"""A candidate applied in memory: to the suite, and to an agent program's requests."""

from __future__ import annotations

import dataclasses

from gate.fixes.apply import Rewording, apply, reword_body, reword_tools
from gate.suite.model import Prompt, Source
from tests import builders as b

TOOLS = (
    b.WEATHER_TOOLS[0],
    dataclasses.replace(
        b.WEATHER_TOOLS[1],
        description="Forecast data.",
        parameters={"type": "object", "properties": {"days": {"type": "integer", "description": "Days."}}},
    ),
)
SUITE = b.suite(b.case(), tools=TOOLS)


def test_a_description_is_reworded_only_where_the_model_was_shown_the_old_text() -> None:
    tool = Rewording(
        "tool_description", "tools.json", "Forecast data.", "Forecast, from tomorrow.", "get_forecast"
    )
    changed = apply(SUITE, [tool])
    assert changed.tool("get_forecast").description == "Forecast, from tomorrow."  # type: ignore[union-attr]
    assert changed.tool("get_weather") == SUITE.tool("get_weather")
    assert SUITE.tool("get_forecast").description == "Forecast data."  # type: ignore[union-attr]
    stale = dataclasses.replace(tool, old="Another text.")
    assert apply(SUITE, [stale]) is SUITE
    param = Rewording(
        "parameter_description", "tools.json", "Days.", "Days ahead, 1 to 7.", "get_forecast", "days"
    )
    schema = apply(SUITE, [param]).tool("get_forecast").parameters  # type: ignore[union-attr]
    assert schema["properties"]["days"] == {"type": "integer", "description": "Days ahead, 1 to 7."}


def test_a_prompt_paragraph_is_reworded_at_its_place() -> None:
    template = "Be brief.\n\nBe brief.\n"
    suite = dataclasses.replace(
        SUITE,
        agent=dataclasses.replace(SUITE.agent, system_prompt=Prompt(template, Source("p.md", 1, 1), True)),
    )
    second = Rewording("prompt_paragraph", "p.md", "Be brief.", "Answer in one sentence.", at=11)
    assert apply(suite, [second]).agent.system_prompt.template == "Be brief.\n\nAnswer in one sentence.\n"  # type: ignore[union-attr]
    elsewhere = dataclasses.replace(second, file="other.md")
    assert apply(suite, [elsewhere]) is suite


def test_an_agent_programs_requests_are_reworded_in_every_api() -> None:
    tool = Rewording(
        "tool_description", "agent.py", "Forecast data.", "Forecast, from tomorrow.", "get_forecast"
    )
    param = Rewording("parameter_description", "agent.py", "Days.", "Days ahead.", "get_forecast", "days")
    schema = {"type": "object", "properties": {"days": {"type": "integer", "description": "Days."}}}
    chat = {
        "model": "m",
        "tools": [
            {
                "type": "function",
                "function": {"name": "get_forecast", "description": "Forecast data.", "parameters": schema},
            }
        ],
    }
    responses = {
        "tools": [
            {
                "type": "function",
                "name": "get_forecast",
                "description": "Forecast data.",
                "parameters": schema,
            }
        ]
    }
    messages = {"tools": [{"name": "get_forecast", "description": "Forecast data.", "input_schema": schema}]}
    for body in (chat, responses, messages):
        reworded = reword_body(body, [tool, param])
        spec = reworded["tools"][0].get("function", reworded["tools"][0])
        assert spec["description"] == "Forecast, from tomorrow."
        assert (
            spec.get("parameters", spec.get("input_schema"))["properties"]["days"]["description"]
            == "Days ahead."
        )
        assert body["tools"][0].get("function", body["tools"][0])["description"] == "Forecast data."  # a copy
    assert reword_body(chat, [])["tools"] is chat["tools"]
    assert reword_tools(TOOLS, [tool])[1].description == "Forecast, from tomorrow."
