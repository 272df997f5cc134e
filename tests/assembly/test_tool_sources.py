"""A tool defined in code is placed at the lines that define it: its name, its description, its
parameters (recommendations and review comments point there)."""

from __future__ import annotations

from gate.assembly.tool_sources import place_tools
from gate.suite.model import Source, ToolDef

SERVER = '''from typing import Annotated

from pydantic import Field


@app.tool()
def get_forecast(city: str) -> dict:
    """Forecast for a city."""


@app.tool()
def get_weather(
    city: Annotated[str, Field(description="The city name, e.g. Paris")],
    units: str = "metric",
) -> dict:
    """Current weather for a city.

    Use this for the weather right now, not for forecasts.
    """
'''

TS = """server.tool(
  "search_flights",
  "Search flights between two airports on a date.",
  { origin: z.string().describe("IATA code of the departure airport"), date: z.string() },
  async ({ origin, date }) => ({ content: [] }),
);
"""

FALLBACK = Source("suite.suite.yaml", 7, 9)


def place_tool(tool: ToolDef, sources: dict[str, str], order: list[str], fallback: Source) -> ToolDef:
    [placed] = place_tools([tool], sources, order, fallback)
    return placed


def tool(name: str, description: str, properties: dict) -> ToolDef:
    return ToolDef(name, description, {"type": "object", "properties": properties}, Source(""))


def test_a_python_tool_is_placed_at_its_def_docstring_and_parameters():
    weather = tool(
        "get_weather",
        "Current weather for a city.\n\n    Use this for the weather right now, not for forecasts.\n    ",
        {"city": {"type": "string", "description": "The city name, e.g. Paris"}, "units": {"type": "string"}},
    )
    placed = place_tool(weather, {"server.py": SERVER}, ["server.py"], FALLBACK)
    assert placed.source == Source("server.py", 12, 1)
    assert placed.description_line == 16
    assert placed.parameter_lines == {"city": 13, "units": 14}


def test_a_typescript_tool_is_placed_at_its_name_string_and_parameter_description():
    flights = tool(
        "search_flights",
        "Search flights between two airports on a date.",
        {"origin": {"type": "string", "description": "IATA code of the departure airport"}, "date": {}},
    )
    placed = place_tool(flights, {"src/server.ts": TS}, [], FALLBACK)
    assert (placed.source.path, placed.source.line, placed.description_line) == ("src/server.ts", 2, 3)
    assert placed.parameter_lines == {"origin": 4, "date": 4}


def test_a_tool_whose_text_is_nowhere_stays_at_the_suite_entry():
    ghost = tool("ghost", "Generated at run time.", {"x": {"type": "string"}})
    placed = place_tool(ghost, {"server.py": SERVER}, ["server.py"], FALLBACK)
    assert placed.source == FALLBACK and placed.description_line == 0 and placed.parameter_lines == {}


def test_without_its_description_a_tool_is_placed_by_its_name_in_the_servers_own_files():
    changed = tool("get_forecast", "A description the server builds at run time.", {"city": {}})
    placed = place_tool(changed, {"server.py": SERVER}, ["server.py"], FALLBACK)
    assert placed.source == Source("server.py", 7, 1) and placed.description_line == 0
    assert placed.parameter_lines == {"city": 7}
    assert place_tool(changed, {"server.py": SERVER}, [], FALLBACK).source == FALLBACK
