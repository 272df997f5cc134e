"""Tool definitions: both provider formats in, neutral ToolDef, both formats out; validation."""

from __future__ import annotations

import pytest

from gate.assembly.tool_formats import parse_tool, parse_tools, to_anthropic, to_openai, tool_file_items
from gate.files.yaml_source import parse
from gate.suite.model import Source, ToolDef

OPENAI = """\
- type: function
  function:
    name: get_weather
    description: Current weather.
    parameters:
      type: object
      properties:
        city: {type: string}
        units:
          type: string
          enum: [metric, imperial]
      required: [city]
"""

ANTHROPIC = """\
tools:
  - name: freeze_card
    description: >-
      Freeze the card.
    input_schema:
      type: object
      properties:
        reason: {type: string}
      required: [reason]
  - name: ping
    parameters: {type: object, properties: {}}
"""


def _tools(text: str, path: str = "tools.yaml"):
    doc = parse(text, path)
    items, base, problems = tool_file_items(doc, doc.data)
    tools, more = parse_tools(items, doc, base)
    return tools, problems + more


def test_openai_format_with_source_lines():
    (tool,), problems = _tools(OPENAI)
    assert problems == []
    assert tool.name == "get_weather" and tool.description == "Current weather."
    assert tool.parameters["required"] == ["city"]
    assert tool.source == Source("tools.yaml", 1, 3)
    assert tool.description_line == 4
    assert tool.parameter_lines == {"city": 8, "units": 9}


def test_anthropic_and_bare_formats_in_a_tools_mapping():
    (freeze, ping), problems = _tools(ANTHROPIC)
    assert problems == []
    assert freeze.name == "freeze_card" and freeze.description == "Freeze the card."
    assert freeze.parameters["properties"] == {"reason": {"type": "string"}}
    assert freeze.parameter_lines == {"reason": 8}
    assert ping.description == "" and ping.parameters == {"type": "object", "properties": {}}


def test_openai_function_without_parameters_takes_no_arguments():
    doc = parse('{"type": "function", "function": {"name": "now", "description": "Time."}}', "t.json")
    tool, problems = parse_tool(doc.data, doc, ())
    assert problems == [] and tool.parameters == {"type": "object", "properties": {}}


def test_converters_round_trip_between_formats():
    (tool,), _ = _tools(OPENAI)
    openai_form = to_openai(tool)
    assert openai_form == {
        "type": "function",
        "function": {"name": "get_weather", "description": "Current weather.", "parameters": tool.parameters},
    }
    anthropic_form = to_anthropic(tool)
    assert anthropic_form == {
        "name": "get_weather",
        "description": "Current weather.",
        "input_schema": tool.parameters,
    }
    doc = parse("[]", "x.yaml")
    again, problems = parse_tool(anthropic_form, doc, (0,))
    assert problems == [] and (again.name, again.parameters) == (tool.name, tool.parameters)


@pytest.mark.parametrize(
    "tool, message",
    [
        ({"name": "bad name", "parameters": {"type": "object"}}, "invalid tool name 'bad name'"),
        ({"name": "x" * 65, "parameters": {"type": "object"}}, "invalid tool name"),
        ({"description": "no name", "parameters": {"type": "object"}}, "a tool needs a 'name'"),
        ({"name": "t", "parameters": {"type": "array"}}, "must be a schema of type object"),
        ({"name": "t", "parameters": "object"}, "must be a JSON Schema mapping"),
        (
            {"name": "t", "parameters": {"type": "object", "properties": {"a": {"type": "strng"}}}},
            "not a valid JSON Schema",
        ),
        (
            {"name": "t", "parameters": {"type": "object", "properties": {"city": {}}, "required": ["cty"]}},
            "required parameter 'cty' of tool 't' is not in properties",
        ),
        ({"name": "t", "descripton": "typo", "parameters": {"type": "object"}}, "unknown key 'descripton'"),
        ({"type": "function", "function": "get"}, "needs a 'function' mapping"),
        ({"function": {"name": "t"}}, "needs type: function"),
        (
            {"name": "t", "input_schema": {"type": "object"}, "type": "computer_20241022"},
            "unsupported Anthropic tool type",
        ),
        ("just a string", "a tool must be a mapping"),
    ],
)
def test_invalid_tools_are_reported(tool, message):
    doc = parse("[]", "t.yaml")
    parsed, problems = parse_tool(tool, doc, (0,))
    assert parsed is None
    assert any(message in p.message for p in problems), [p.message for p in problems]


@pytest.mark.parametrize(
    ("tool", "misspelt"),
    [
        ({"type": "function", "function": {"nam": "t", "parameters": {"type": "object"}}}, "nam"),
        ({"nme": "t", "input_schema": {"type": "object"}}, "nme"),
        ({"nam": "t", "inputSchema": {"type": "object"}}, "nam"),
        ({"names": "t", "parameters": {"type": "object"}}, "names"),
    ],
)
def test_a_misspelt_name_is_one_problem_the_unknown_key_with_its_did_you_mean(tool, misspelt):
    parsed, problems = parse_tool(tool, parse("[]", "t.yaml"), (0,))
    assert parsed is None
    assert [(p.message.split(" in ")[0], p.hint) for p in problems] == [
        (f"unknown key {misspelt!r}", "did you mean 'name'?")
    ]


@pytest.mark.parametrize("kind", ["objekt", ["object", "null"], 5])
def test_parameters_of_a_wrong_type_are_one_problem(kind):
    doc = parse("[]", "t.yaml")
    parsed, problems = parse_tool({"name": "t", "parameters": {"type": kind}}, doc, (0,))
    assert parsed is None
    assert [p.message for p in problems] == ["the parameters of tool 't' must be a schema of type object"]


def test_required_not_in_properties_suggests_the_declared_name():
    doc = parse("[]", "t.yaml")
    tool = {"name": "t", "parameters": {"type": "object", "properties": {"city": {}}, "required": ["cty"]}}
    _, problems = parse_tool(tool, doc, (0,))
    assert problems[0].hint == "did you mean 'city'?"


def test_duplicate_names_are_reported_at_the_second_definition():
    text = (
        "- {name: a, parameters: {type: object}}\n- {name: b, parameters: {type: object}}\n"
        "- {name: a, parameters: {type: object}}\n"
    )
    tools, problems = _tools(text)
    assert [t.name for t in tools] == ["a", "b"]
    assert len(problems) == 1 and problems[0].line == 3 and "duplicate tool name 'a'" in problems[0].message


def test_a_tool_file_must_be_a_list_or_tools_mapping():
    doc = parse("name: a\n", "t.yaml")
    items, _, problems = tool_file_items(doc, doc.data)
    assert items == [] and "list of tools" in problems[0].message
    doc = parse("tools: []\nextra: 1\n", "t.yaml")
    _, _, problems = tool_file_items(doc, doc.data)
    assert "unknown key 'extra'" in problems[0].message and problems[0].line == 2


def test_tooldef_built_elsewhere_converts():
    tool = ToolDef("t", "d", {"type": "object", "properties": {}}, Source("x", 1, 1))
    assert to_openai(tool)["function"]["name"] == "t"
    assert to_anthropic(tool)["input_schema"] == {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    ("properties", "hint"),
    [
        ({"city": {}}, "did you mean 'city'?"),
        ({"town": {}, "day": {}}, "declare it under properties (declared: town, day)"),
        ({}, "declare it under properties"),
    ],
)
def test_a_required_parameter_not_declared_gets_the_close_one_or_the_declared_ones(properties, hint):
    tool = {"name": "t", "parameters": {"type": "object", "properties": properties, "required": ["cty"]}}
    _, problems = parse_tool(tool, parse("[]", "t.yaml"), (0,))
    (problem,) = [p for p in problems if "'cty'" in p.message]
    assert problem.hint == hint
