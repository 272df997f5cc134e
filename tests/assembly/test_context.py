"""The build context, directly: where its problems are located, the hints it gives for unknown tools
and judged checks without a judge, and what the schema's damage hides from the semantic checks."""

from __future__ import annotations

from gate.assembly.checks.schema_damage import damage_of
from gate.assembly.context import BuildContext
from gate.files.yaml_source import parse

SUITE = """\
version: 1
name: s
cases:
  - id: c
    expect:
      calls: [{tool: get_wether}]
"""


def context(text: str = SUITE) -> BuildContext:
    return BuildContext(parse(text, "evals/s.suite.yaml"), damage_of([]))


def test_a_problem_names_the_file_line_column_and_path() -> None:
    built = context()
    built.err(("cases", 0, "expect", "calls", 0, "tool"), "unknown tool 'get_wether'", "did you mean it?")
    (problem,) = built.problems
    assert (problem.path, problem.line, problem.column) == ("evals/s.suite.yaml", 6, 22)
    assert problem.message == "cases[0].expect.calls[0].tool: unknown tool 'get_wether'"
    assert problem.hint == "did you mean it?"


def test_unknown_tools_get_the_close_name_else_the_defined_ones() -> None:
    built = context()
    built.tool_names = {"get_weather", "get_forecast"}
    at = ("cases", 0, "expect", "calls", 0, "tool")
    built.check_tool("get_wether", at)
    built.check_tool("get_weather", at)  # defined: no problem
    built.check_tool("book_flight", at)
    assert [p.hint for p in built.problems] == [
        "did you mean 'get_weather'?",
        "defined tools: get_forecast, get_weather",
    ]
    none = context()
    none.check_tool("get_weather", at)
    assert none.problems[0].hint == "the agent defines no tools"
    unknown = context()
    unknown.tools_known = False  # a definition's name could not be read: no tool is called unknown
    unknown.check_tool("anything", at)
    assert unknown.problems == []


def test_findings_are_reported_each_at_its_path_and_a_judged_check_needs_a_judge() -> None:
    built = context()
    built.report([(("cases", 0, "id"), "a problem", "a fix"), (("name",), "another", "")])
    built.need_judge(("cases", 0, "expect"), "the judged check 'criteria'")
    assert [(p.line, p.message) for p in built.problems] == [
        (4, "cases[0].id: a problem"),
        (2, "name: another"),
        (6, "cases[0].expect: the judged check 'criteria' needs a judge, but the suite has none"),
    ]
    assert "judge: {provider:" in built.problems[2].hint


def test_a_source_is_where_the_value_was_written() -> None:
    source = context().source(("cases", 0, "id"))
    assert (source.path, source.line, source.column) == ("evals/s.suite.yaml", 4, 9)
