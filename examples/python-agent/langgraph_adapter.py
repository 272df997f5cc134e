"""The adapter between tool-eval-gate and the LangGraph concierge: the gate's messages in
(``gate_protocol.turns``), the graph's answers out. A trial's first message builds the graph with the
trial's model and MCP clients (one process may run many trials: ``reuse: true``) and brings the
case's earlier turns, converted to LangChain messages (an earlier tool call becomes an ``AIMessage``
with its ``tool_calls``, its result a ``ToolMessage``); later messages (a simulated user's) continue
the conversation."""

from __future__ import annotations

import asyncio

import gate_protocol
from langchain_core.messages import AnyMessage, HumanMessage, convert_to_messages
from langgraph_agent import build_graph, chat_model, hotel_tools


async def main() -> None:
    messages: list[AnyMessage] = []
    for turn in gate_protocol.turns():
        if turn.starts_trial:  # the trial's own clients, then its earlier turns
            graph = build_graph(chat_model(), await hotel_tools())
            messages = convert_to_messages(gate_protocol.chat_messages(turn.history))
        state = await graph.ainvoke({"messages": [*messages, HumanMessage(turn.content)]})
        messages = state["messages"]
        gate_protocol.answer(messages[-1].text)


if __name__ == "__main__":
    asyncio.run(main())
