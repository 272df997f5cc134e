"""A travel concierge built on the OpenAI Agents SDK, as a team would ship it.

Its own tool lives in code (``convert_currency``, a function tool computed locally); hotels come from
the hotel partner's MCP server (``search_hotels``). Under tool-eval-gate nothing here changes: the SDK
reads ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` (the gate's recording proxy and this trial's token),
and in test mode (``TOOL_EVAL_GATE_MCP_URL`` is set) the hotels come from the suite's mocks instead
of the partner's server. ``gate_adapter.py`` is the few lines that speak the gate's protocol.
"""

from __future__ import annotations

import os
from typing import Any

from agents import Agent, ModelSettings, Runner, function_tool, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp, create_static_tool_filter

MODEL = os.environ.get("CONCIERGE_MODEL", "gpt-4.1-mini")
INSTRUCTIONS = """You are the travel concierge of Northwind Journeys.
Use search_hotels to find hotels (city, check-in date as YYYY-MM-DD, nights).
Use convert_currency whenever the traveller asks for a price in another currency.
Answer in two sentences at most."""

# Rates of the day, as the team's own code would fetch them (fixed here: the example runs offline).
RATES_TO_EUR = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "JPY": 0.0061, "CHF": 1.04}


@function_tool
def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
    """Convert an amount of money between currencies at today's rate.

    Args:
        amount: The amount to convert.
        from_currency: ISO code of the currency the amount is in, e.g. USD.
        to_currency: ISO code of the currency to convert to, e.g. EUR.
    """
    source, target = from_currency.upper(), to_currency.upper()
    if source not in RATES_TO_EUR or target not in RATES_TO_EUR:
        return f"unknown currency: {source if source not in RATES_TO_EUR else target}"
    value = amount * RATES_TO_EUR[source] / RATES_TO_EUR[target]
    return f"{amount:g} {source} = {value:.2f} {target}"


def hotel_server() -> MCPServerStreamableHttp:
    """The hotel partner's MCP server (in test mode: the suite's mocks), of which the agent uses
    one tool."""
    url = os.environ.get("TOOL_EVAL_GATE_MCP_URL") or os.environ["HOTELS_MCP_URL"]
    return MCPServerStreamableHttp(
        params={"url": url},
        name="hotels",
        cache_tools_list=True,
        tool_filter=create_static_tool_filter(allowed_tool_names=["search_hotels"]),
    )


def concierge(hotels: MCPServerStreamableHttp) -> Agent:
    return Agent(
        name="Concierge",
        instructions=INSTRUCTIONS,
        model=MODEL,
        model_settings=ModelSettings(temperature=0),
        tools=[convert_currency],
        mcp_servers=[hotels],
    )


async def answer(agent: Agent, history: list[dict[str, Any]], text: str) -> tuple[str, list[dict[str, Any]]]:
    """The agent's answer to ``text`` after ``history``, streamed as a chat UI would, and the
    conversation to continue from."""
    result = Runner.run_streamed(agent, [*history, {"role": "user", "content": text}])
    async for _event in result.stream_events():
        pass  # a UI would show the tokens as they come
    return str(result.final_output), result.to_input_list()


__all__ = ["answer", "concierge", "convert_currency", "hotel_server", "set_tracing_disabled"]
