"""The tool descriptions a trial's model was offered, and how they compare with the other side's
(gate.reports.tools_shown)."""

from __future__ import annotations

import dataclasses

from gate.reports.tools_shown import ShownTool, difference, side_descriptions, trial_tools
from gate.results.run_record import OfferedTool
from tests.results_factory import record, tool, trial

SUITE_TOOLS = (tool("get_weather", "Current weather."), tool("get_forecast", "Forecast."))


def test_a_program_s_trial_was_offered_what_its_requests_offered_each_text_once():
    weather = OfferedTool("get_weather", "The weather now.", {})
    reworded = OfferedTool("get_weather", "The weather now, in a city.", {})
    rec = dataclasses.replace(record(), offered=((weather,), (weather, reworded), ()))
    assert trial_tools(trial(rec=rec), SUITE_TOOLS) == (
        ShownTool("get_weather", "The weather now."),
        ShownTool("get_weather", "The weather now, in a city."),
    )


def test_a_model_agent_s_trial_was_offered_its_suite_s_tools_unless_it_sent_no_request():
    assert [t.name for t in trial_tools(trial(rec=record()), SUITE_TOOLS)] == ["get_weather", "get_forecast"]
    not_run = dataclasses.replace(record(error="not run: budget"), turns=0)
    assert trial_tools(trial("error", rec=not_run), SUITE_TOOLS) == ()


def test_what_differs_from_the_other_side():
    base = side_descriptions([(ShownTool("a", "old"),), (ShownTool("a", "older"), ShownTool("b", "same"))])
    assert difference(ShownTool("a", "older"), base) == ""
    assert difference(ShownTool("a", "new"), base) == "differs"
    assert difference(ShownTool("c", "new"), base) == "absent"
    assert difference(ShownTool("c", "new"), None) == ""  # no other side to differ from
