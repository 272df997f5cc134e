"""The travel concierge on LangGraph, as a team would ship it: a graph of a chat model and the tools
it calls, the hotels from the hotel partner's MCP server through ``langchain-mcp-adapters``.

Under tool-eval-gate nothing here changes: ``ChatOpenAI`` reads ``OPENAI_BASE_URL`` /
``OPENAI_API_KEY`` (the gate's recording proxy and this trial's token), and in test mode
(``TOOL_EVAL_GATE_MCP_URL`` is set) the hotels come from the suite's mocks instead of the partner's
server. ``langgraph_adapter.py`` is the few lines that speak the gate's protocol.
"""

from __future__ import annotations

import os

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import SystemMessage
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition

MODEL = os.environ.get("CONCIERGE_MODEL", "gpt-4.1-mini")
INSTRUCTIONS = """You are the travel concierge of Northwind Journeys.
Use search_hotels to find hotels (city, check-in date as YYYY-MM-DD, nights).
Answer in two sentences at most."""


def chat_model() -> BaseChatModel:
    return ChatOpenAI(model=MODEL, temperature=0)


async def hotel_tools() -> list[BaseTool]:
    """The hotel partner's MCP tools (in test mode: the suite's mocks), of which the agent uses one."""
    url = os.environ.get("TOOL_EVAL_GATE_MCP_URL") or os.environ["HOTELS_MCP_URL"]
    client = MultiServerMCPClient({"hotels": {"transport": "streamable_http", "url": url}})
    return [tool for tool in await client.get_tools() if tool.name == "search_hotels"]


def build_graph(model: BaseChatModel, tools: list[BaseTool]) -> CompiledStateGraph:
    """The agent: the model answers or calls tools, the tools run, the model reads their results."""
    bound = model.bind_tools(tools)

    async def agent(state: MessagesState) -> dict[str, list]:
        return {"messages": [await bound.ainvoke([SystemMessage(INSTRUCTIONS), *state["messages"]])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()
