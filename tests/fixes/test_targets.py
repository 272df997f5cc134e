"""Which definitions the advice implicates, for which failing cases, and which cases no rewording fixes."""

from __future__ import annotations

import dataclasses

from gate.fixes.targets import find_targets, with_offered
from gate.results.outcomes import SourceRef
from gate.suite.model import Command, Prompt, Source
from gate.verdict.conclusion import conclude
from tests import builders as b
from tests import results_factory as r

FORECAST = dict(
    b.WEATHER_TOOLS[1].parameters,
    properties={"city": {"type": "string"}, "days": {"type": "integer", "description": "How many days."}},
)
TOOLS = (
    b.WEATHER_TOOLS[0],
    dataclasses.replace(
        b.WEATHER_TOOLS[1], parameters=FORECAST, description_line=4, parameter_lines={"days": 9}
    ),
)
SUITE = b.suite(
    b.case("tomorrow"),
    b.case("days"),
    b.case("crash"),
    b.case("cut"),
    b.case("err"),
    b.case("flaky"),
    tools=TOOLS,
)
INFOS = [
    r.tool("get_weather", "The get_weather tool.", file="tools.json", line=1, description_line=0),
    r.tool(
        "get_forecast",
        "The get_forecast tool.",
        file="tools.json",
        line=1,
        description_line=4,
        parameter_lines={"days": 9},
        parameters=FORECAST,
    ),
]


def failed(case_id: str, *failures: object, stop: str = "final_answer") -> object:
    rec = dataclasses.replace(r.record(), stop_reason=stop)
    return r.case(case_id, "failed", trials=[r.trial("failed", failures=failures, rec=rec)])


def results(*cases: object, prompt: SourceRef | None = None) -> object:
    return r.run(r.suite("weather", cases, tools=INFOS, prompt=prompt))


def test_the_advice_implicates_descriptions_and_leaves_unfixable_cases_alone() -> None:
    wrong = r.failure("wrong_tool", tool="get_weather", expected_tool="get_forecast")
    days = r.failure("value_error", tool="get_forecast", argument="days", expected=1, actual=7)
    flaky = dataclasses.replace(failed("flaky", wrong), non_gating="known flaky")  # type: ignore[type-var]
    run = results(
        failed("tomorrow", wrong),
        failed("days", days),
        failed("crash", r.failure("agent_crashed")),
        failed("cut", wrong, stop="max_tokens"),
        r.case("err", "error"),
        flaky,
    )
    found = find_targets(conclude(run), [SUITE])  # type: ignore[arg-type]
    kinds = [(t.kind, t.tool, t.argument, t.line, t.cases) for t in found.definitions]
    assert ("tool_description", "get_forecast", None, 4, ("weather/tomorrow",)) in kinds
    assert ("parameter_description", "get_forecast", "days", 9, ("weather/days",)) in kinds
    days_target = next(t for t in found.definitions if t.argument == "days")
    assert days_target.text == "How many days."
    assert {(c.case_id, c.reason) for c in found.skipped_cases} == {
        ("crash", "the agent program crashed"),
        ("cut", "a reply was cut at its token limit"),
        ("err", "it could not be evaluated: provider failed: 503"),
    }


def test_a_prompt_paragraph_is_implicated_by_advice_about_the_prompt() -> None:
    template = "You help with the weather.\n\nCall the tools in the order the user asks.\n"
    suite = dataclasses.replace(
        SUITE,
        agent=dataclasses.replace(
            SUITE.agent, system_prompt=Prompt(template, Source("prompt.md", 1, 1), from_file=True)
        ),
    )
    order = r.failure("order_violation", tool="get_weather")
    run = results(failed("tomorrow", order), prompt=SourceRef("prompt.md", 1))
    found = find_targets(conclude(run), [suite])  # type: ignore[arg-type]
    assert [(t.kind, t.file, t.line) for t in found.definitions] == [("prompt_paragraph", "prompt.md", 1)]
    inline = dataclasses.replace(
        suite, agent=dataclasses.replace(suite.agent, system_prompt=Prompt(template, Source("s.yaml", 3, 1)))
    )
    assert find_targets(conclude(run), [inline]).definitions == ()  # an inline prompt: not a prompt file


def test_nothing_is_implicated_for_cases_no_wording_fixes() -> None:
    wrong = r.failure("wrong_tool", tool="get_weather", expected_tool="get_forecast")
    run = results(failed("cut", wrong, stop="max_tokens"))
    found = find_targets(conclude(run), [SUITE])  # type: ignore[arg-type]
    assert found.definitions == () and [c.case_id for c in found.skipped_cases] == ["cut"]


def test_an_agent_programs_definitions_are_the_ones_it_showed_the_model() -> None:
    """The tools a program offered beside the suite's, and a suite tool the results place in the
    program's source with the text the model was shown, are the definitions advice implicates."""
    program = dataclasses.replace(
        SUITE,
        agent=dataclasses.replace(SUITE.agent, program=Command(("python3", "agent.py"), "agent program")),
    )
    shown = [
        r.tool(
            "get_weather", "Weather, as the program says it.", file="agent.py", line=3, description_line=4
        ),
        r.tool("local_time", "Clock.", file="agent.py", line=9, description_line=10),
    ]
    run = r.run(
        r.suite("weather", [failed("tomorrow", r.failure("extra_call", tool="local_time"))], tools=shown)
    )
    defined = {t.name: (t.source.path, t.description) for t in with_offered(program, run).agent.tools}
    assert defined["get_weather"] == ("agent.py", "Weather, as the program says it.")
    assert defined["local_time"] == ("agent.py", "Clock.")
    assert defined["get_forecast"] == ("tools.json", "The get_forecast tool.")  # as the suite has it
    assert with_offered(SUITE, run) is SUITE  # a model agent shows the suite's own
    [target] = find_targets(conclude(run), [program]).definitions  # type: ignore[arg-type]
    assert (target.tool, target.file, target.line, target.text) == ("local_time", "agent.py", 10, "Clock.")
