"""The span a fix may edit, and a new text written into it with nothing else of the file touched."""

from __future__ import annotations

import json

import pytest
import yaml

from gate.fixes.spans import NotEditable, definition_span, paragraph_span, value_of, write

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather now.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "The city."}},
            },
        },
    },
    {"name": "get_forecast", "description": "Weather now.", "input_schema": {"type": "object"}},
]


def test_a_json_tool_description_is_replaced_as_its_json_string_and_nothing_else() -> None:
    source = json.dumps(TOOLS, indent=2)
    span = definition_span(source, "tools.json", "get_forecast", None, "Weather now.", 0)
    assert span.kind == "tool_description" and span.path == (1, "description")  # the other tool's twin
    value = value_of(span, '  Forecast: "tomorrow" and later \\ days.\n')
    edited = write(span, source, value)
    assert edited is not None
    expected = json.loads(source)
    expected[1]["description"] = 'Forecast: "tomorrow" and later \\ days.'
    assert json.loads(edited) == expected
    changed = [(a, b) for a, b in zip(source.splitlines(), edited.splitlines(), strict=True) if a != b]
    assert changed == [
        ('    "description": "Weather now.",', '    "description": ' + json.dumps(value) + ",")
    ]


def test_a_parameter_description_is_found_under_its_tool() -> None:
    source = json.dumps(TOOLS, indent=2)
    span = definition_span(source, "tools.json", "get_weather", "city", "The city.", 0)
    assert span.kind == "parameter_description"
    assert span.path == (0, "function", "parameters", "properties", "city", "description")
    with pytest.raises(NotEditable, match="not one JSON string"):
        definition_span(source, "tools.json", "get_forecast", "city", "The city.", 0)


def test_yaml_keeps_the_literal_style_where_the_text_allows_it() -> None:
    source = (
        "- name: get_weather\n"
        "  description: Weather now.\n"
        "- name: get_forecast  # the other one\n"
        "  description: |\n"
        "    Forecast.\n"
        "    More.\n"
        "\n"
        "  parameters: {type: object}\n"
    )
    plain = definition_span(source, "t.yaml", "get_weather", None, "Weather now.", 2)
    edited = write(plain, source, "Current weather, use it for right now")
    assert edited is not None and "  description: Current weather, use it for right now\n" in edited
    assert "# the other one" in edited
    risky = write(plain, source, "Weather: now # it's")  # plain would read as a mapping and a comment
    assert risky is not None and "  description: 'Weather: now # it''s'\n" in risky
    assert yaml.safe_load(risky)[0]["description"] == "Weather: now # it's"
    block = definition_span(source, "t.yaml", "get_forecast", None, "Forecast.\nMore.\n", 5)
    value = value_of(block, "Forecast for tomorrow.\nOr later.")
    assert value == "Forecast for tomorrow.\nOr later.\n"
    edited = write(block, source, value)
    assert edited is not None
    assert "  description: |\n    Forecast for tomorrow.\n    Or later.\n\n  parameters" in edited
    assert yaml.safe_load(edited)[1] == {
        "name": "get_forecast",
        "description": "Forecast for tomorrow.\nOr later.\n",
        "parameters": {"type": "object"},
    }


def test_an_aliased_value_cannot_be_edited_alone() -> None:
    source = "- name: a\n  description: &d Shared words.\n- name: b\n  description: *d\n"
    span = definition_span(source, "t.yaml", "a", None, "Shared words.", 2)
    assert write(span, source, "New words.") is None  # b's description would change with it


def test_a_docstring_is_edited_verbatim_and_refuses_what_its_literal_cannot_hold() -> None:
    source = (
        "@mcp.tool()\n"
        "def get_forecast(city: str) -> str:\n"
        '    """Forecast data.\n'
        "\n"
        '    Takes a city."""\n'
        "    return city\n"
        "x = 'Forecast data'\n"
    )
    text = "Forecast data.\n\n    Takes a city."
    span = definition_span(source, "server.py", "get_forecast", None, text, 3)
    assert span.encoding == "code" and span.style == '"""' and span.indent == "    "
    value = value_of(span, "Forecast for tomorrow.\nTakes a city name.")
    assert value == "Forecast for tomorrow.\n    Takes a city name."
    edited = write(span, source, value)
    assert edited == source.replace(text, value)
    assert write(span, source, 'Say "hi".') is None
    assert write(span, source, "back\\slash") is None
    single = definition_span(source, "server.py", "x", None, "Forecast data", 7)
    assert single.style == "'" and write(single, source, "two\nlines") is None


def test_a_description_built_from_pieces_is_not_edited() -> None:
    source = 'DESC = ("Current weather " "for a city.")\n'
    with pytest.raises(NotEditable, match="built from pieces"):
        definition_span(source, "agent.py", "t", None, "Current weather for a city.", 1)


def test_the_paragraph_of_a_line_is_its_lines_between_blank_lines() -> None:
    source = "You help with weather.\nBe brief.\n\n\nUse get_forecast for\nlater days.\n\nEnd.\n"
    span = paragraph_span(source, "prompt.md", 5)
    assert span.text == "Use get_forecast for\nlater days."
    assert paragraph_span(source, "prompt.md", 3).text == span.text  # a blank line: the next paragraph
    edited = write(span, source, value_of(span, " Use get_forecast for tomorrow and later. "))
    assert edited == source.replace(span.text, "Use get_forecast for tomorrow and later.")
    crlf = source.replace("\n", "\r\n")
    span = paragraph_span(crlf, "prompt.md", 1)
    assert span.text == "You help with weather.\r\nBe brief."
    assert value_of(span, "One.\nTwo.") == "One.\r\nTwo."
