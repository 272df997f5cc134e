"""The weather tools of Skyline Travel's assistant, served over MCP (stdio).

Written with the official MCP Python SDK's high-level server, on either of its lines: ``FastMCP``
in 1.x (what LangChain's MCP adapters require), renamed ``MCPServer`` in 2.x. The docstrings are
the tool descriptions the model reads and the ``Field(description=...)`` texts describe the
parameters, so a change to one of them is a change to the tools under test: tool-eval-gate starts
this server, reads its ``tools/list``, and points its review comments at these lines.

    python3 examples/mcp_weather/server.py              # speaks MCP on stdin/stdout
    python3 examples/mcp_weather/server.py --http 8000  # Streamable HTTP at http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal

from pydantic import Field

try:
    from mcp.server.mcpserver import MCPServer  # mcp 2.x
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as MCPServer

app = MCPServer("skyline-weather")

Units = Annotated[
    Literal["metric", "imperial"],
    Field(description="metric (°C, km/h) unless the user asks for Fahrenheit or imperial units"),
]

_NOW = {"paris": (18, "cloudy"), "new york": (24, "sunny"), "munich": (9, "rain")}


@app.tool()
def get_weather(
    city: Annotated[str, Field(description="City name in English, e.g. Paris or New York")],
    units: Units = "metric",
) -> dict[str, Any]:
    """Current weather for a city: temperature and sky right now.

    Use this for the weather now or today. For tomorrow or the coming days, use get_forecast.
    """
    temp_c, sky = _NOW.get(city.strip().lower(), (15, "partly cloudy"))
    temp = temp_c if units == "metric" else round(temp_c * 9 / 5 + 32)
    return {"city": city, "temp": temp, "units": units, "sky": sky}


@app.tool()
def get_forecast(
    city: Annotated[str, Field(description="City name in English, e.g. Paris or New York")],
    days: Annotated[int, Field(ge=1, le=7, description="How many days ahead, from 1 (tomorrow) to 7")],
    units: Units = "metric",
) -> dict[str, Any]:
    """Forecast for a city for the coming days (1 to 7), day by day.

    Use this for tomorrow, the weekend or next week. For the weather right now, use get_weather.
    """
    highs = [20, 17, 16, 18, 19, 21, 22]
    return {
        "city": city,
        "units": units,
        "days": [
            {"day": d + 1, "high": highs[d], "sky": "sunny" if d % 2 == 0 else "showers"} for d in range(days)
        ],
    }


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        host, port = "127.0.0.1", int(sys.argv[2])
        if MCPServer.__name__ == "FastMCP":  # 1.x: the address is a setting
            app.settings.host, app.settings.port = host, port
            app.run("streamable-http")
        else:
            app.run("streamable-http", host=host, port=port)
    else:
        app.run()
