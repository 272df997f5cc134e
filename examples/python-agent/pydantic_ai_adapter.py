"""The adapter between tool-eval-gate and the PydanticAI concierge: the gate's messages in
(``gate_protocol.turns``), the agent's answers out. A trial's first message builds the trial's agent
with its MCP session (one process may run many trials: ``reuse: true``) and brings the case's earlier
turns, converted to PydanticAI's message history (requests with user prompts and tool returns,
responses with text and tool calls); later messages (a simulated user's) continue the conversation."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import gate_protocol
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai_agent import concierge


def pydantic_ai_history(history: list[dict[str, Any]]) -> list[ModelMessage]:
    """The case's earlier turns as PydanticAI messages."""
    messages: list[ModelMessage] = []
    for message in history:
        if message["role"] == "user":
            messages.append(ModelRequest(parts=[UserPromptPart(message["content"])]))
        elif message["role"] == "tool":
            result = ToolReturnPart(message["name"], message["content"], message["call_id"])
            messages.append(ModelRequest(parts=[result]))
        else:
            parts: list[Any] = [TextPart(message["content"])] if message["content"] else []
            parts += [ToolCallPart(c["name"], c["arguments"], c["id"]) for c in message.get("tool_calls", [])]
            messages.append(ModelResponse(parts=parts))
    return messages


async def main() -> None:
    async with contextlib.AsyncExitStack() as trial:  # what the current trial opened
        for turn in gate_protocol.turns():
            if turn.starts_trial:  # the trial's own agent and MCP session, then its earlier turns
                await trial.aclose()
                agent = await trial.enter_async_context(concierge())
                history: list[ModelMessage] = pydantic_ai_history(turn.history)
            result = await agent.run(turn.content, message_history=history)
            history = result.all_messages()
            gate_protocol.answer(str(result.output))


if __name__ == "__main__":
    asyncio.run(main())
