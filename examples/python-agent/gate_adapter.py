"""The adapter between tool-eval-gate and the concierge on the OpenAI Agents SDK: the gate's messages
in (``gate_protocol.turns``), the agent's answers out. A trial's first message opens the trial's MCP
session for the agent (one process may run many trials: ``reuse: true``; the SDK builds its model
client per run) and brings the case's earlier turns, converted to the SDK's input items (the
Responses API's: messages, function calls and their outputs); later messages (a simulated user's)
continue the conversation."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import gate_protocol
from concierge import answer, concierge, hotel_server, set_tracing_disabled


def agents_input(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The case's earlier turns as the Agents SDK's input items."""
    items: list[dict[str, Any]] = []
    for message in history:
        role, content = message["role"], message["content"]
        if role == "tool":
            items.append({"type": "function_call_output", "call_id": message["call_id"], "output": content})
            continue
        if content:
            items.append({"role": role, "content": content})
        for call in message.get("tool_calls", []):
            function = {"name": call["name"], "arguments": call["arguments"]}
            items.append({"type": "function_call", "call_id": call["id"], **function})
    return items


async def main() -> None:
    set_tracing_disabled(True)  # traces would go to the provider's tracing endpoint, not the model
    async with contextlib.AsyncExitStack() as trial:  # what the current trial opened
        for turn in gate_protocol.turns():
            if turn.starts_trial:  # the trial's own MCP session, then its earlier turns
                await trial.aclose()
                agent = concierge(await trial.enter_async_context(hotel_server()))
                conversation: list[dict[str, Any]] = agents_input(turn.history)
            text, conversation = await answer(agent, conversation, turn.content)
            gate_protocol.answer(text)


if __name__ == "__main__":
    asyncio.run(main())
