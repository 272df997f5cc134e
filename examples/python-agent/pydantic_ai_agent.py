"""The travel concierge on PydanticAI, as a team would ship it: an agent whose hotels come from the
hotel partner's MCP server (an ``MCPToolset``).

Under tool-eval-gate nothing here changes: the ``openai:`` model reads ``OPENAI_BASE_URL`` /
``OPENAI_API_KEY`` (the gate's recording proxy and this trial's token), and in test mode
(``TOOL_EVAL_GATE_MCP_URL`` is set) the hotels come from the suite's mocks instead of the partner's
server. ``pydantic_ai_adapter.py`` is the few lines that speak the gate's protocol.
"""

from __future__ import annotations

import os

from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset

MODEL = os.environ.get("CONCIERGE_MODEL", "gpt-4.1-mini")
INSTRUCTIONS = """You are the travel concierge of Northwind Journeys.
Use search_hotels to find hotels (city, check-in date as YYYY-MM-DD, nights).
Answer in two sentences at most."""


def concierge() -> Agent:
    url = os.environ.get("TOOL_EVAL_GATE_MCP_URL") or os.environ["HOTELS_MCP_URL"]
    hotels = MCPToolset(url).filtered(lambda _context, tool: tool.name == "search_hotels")
    return Agent(
        f"openai:{MODEL}", instructions=INSTRUCTIONS, toolsets=[hotels], model_settings={"temperature": 0}
    )
