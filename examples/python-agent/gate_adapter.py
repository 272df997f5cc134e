"""The adapter between tool-eval-gate and the concierge: one JSON line in per user message (the first
also carries the case's earlier turns as ``history``), one JSON line out per answer."""

from __future__ import annotations

import asyncio
import json
import sys

from concierge import answer, concierge, hotel_server, set_tracing_disabled


async def main() -> None:
    set_tracing_disabled(True)  # traces would go to the provider's tracing endpoint, not the model
    async with hotel_server() as hotels:
        agent = concierge(hotels)
        conversation: list[dict[str, str]] = []
        for line in sys.stdin:
            message = json.loads(line)
            conversation += message.get("history", [])
            text, conversation = await answer(agent, conversation, message["content"])
            print(json.dumps({"content": text}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
