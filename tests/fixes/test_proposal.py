"""The request for replacement texts, and its answer read."""

from __future__ import annotations

import json

from gate.fixes.proposal import candidates, proposal
from gate.fixes.spans import definition_span
from tests import builders as b
from tests import results_factory as r


def test_the_request_holds_the_definition_the_failures_the_passes_and_the_rules() -> None:
    source = json.dumps(
        [{"name": "get_forecast", "description": "The get_forecast tool.", "input_schema": {}}]
    )
    span = definition_span(source, "tools.json", "get_forecast", None, "The get_forecast tool.", 1)
    failing = r.case(
        "tomorrow",
        "failed",
        rec=r.record("Sunglasses tomorrow?", [r.call("get_weather", {"city": "Paris"})]),
        failures=[r.failure("wrong_tool", "expected get_forecast, called get_weather")],
        expected={"calls": [{"tool": "get_forecast", "args": {"city": "Paris"}}]},
    )
    passing = r.case("later", rec=r.record("Rain next week?", [r.call("get_forecast", {"city": "Oslo"})]))
    asked = proposal(span, b.suite(), ["say when to use `get_forecast`"], [failing], [passing], 3)
    assert "## The text to replace: the description of the tool `get_forecast`" in asked.user
    assert "<<<\nThe get_forecast tool.\n>>>" in asked.user
    assert "- get_weather: The get_weather tool." in asked.user  # the other tools
    assert '"Sunglasses tomorrow?"' in asked.user and "wrong_tool: expected get_forecast" in asked.user
    assert 'Expected calls: get_forecast({"city": "Paris"})' in asked.user
    assert "### Case later (passed)" in asked.user and '"Rain next week?"' in asked.user
    assert "never copy a case's particular values" in asked.system
    assert asked.tool_parameters["properties"]["candidates"]["maxItems"] == 3


def test_the_answer_gives_at_most_n_distinct_texts() -> None:
    answer = {
        "candidates": [{"text": "A."}, "B.", {"text": ""}, {"why": "no text"}, {"text": "A."}, {"text": "C."}]
    }
    assert candidates(answer, 2) == ("A.", "B.")
    assert candidates(answer, 5) == ("A.", "B.", "C.")
    assert candidates({"candidates": "A."}, 3) == ()
