"""The adapter between tool-eval-gate and the PydanticAI concierge: the gate's messages in
(``gate_protocol.turns``), the agent's answers out. A trial's first message brings the case's earlier
turns, converted to PydanticAI's message history (requests with user prompts and tool returns,
responses with text and tool calls); later messages (a simulated user's) continue the conversation."""

from __future__ import annotations

import asyncio
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
    agent = concierge()
    async with agent:  # one MCP session for the whole process
        history: list[ModelMessage] = []
        for turn in gate_protocol.turns():
            if turn.starts_trial:
                history = pydantic_ai_history(turn.history)
            result = await agent.run(turn.content, message_history=history)
            history = result.all_messages()
            gate_protocol.answer(str(result.output))


if __name__ == "__main__":
    asyncio.run(main())
