"""The travel concierge in plain code on the ``openai`` SDK, as a team would ship it: its own loop of
Chat Completions and tool calls, its tool a function of its own that calls the hotel partner's API.

Under tool-eval-gate nothing here changes but the tool's backend: ``OpenAI()`` reads
``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` (the gate's recording proxy and this trial's token), and in
test mode (``TOOL_EVAL_GATE_MCP_URL`` is set) the tool asks the suite's mocks, through the mock MCP
server's ``tools/call``, instead of the partner's API. ``openai_sdk_adapter.py`` is the few lines that
speak the gate's protocol.
"""

from __future__ import annotations

import json
import os
import urllib.parse
import urllib.request
from typing import Any

from openai import OpenAI

MODEL = os.environ.get("CONCIERGE_MODEL", "gpt-4.1-mini")
INSTRUCTIONS = """You are the travel concierge of Northwind Journeys.
Use search_hotels to find hotels (city, check-in date as YYYY-MM-DD, nights).
Answer in two sentences at most."""
MAX_STEPS = 6
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_hotels",
            "description": "Search the partner's hotels with a room free in a city for the given stay.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name in English, e.g. Lisbon"},
                    "check_in": {"type": "string", "description": "Check-in date, YYYY-MM-DD"},
                    "nights": {"type": "integer", "minimum": 1, "description": "Number of nights"},
                },
                "required": ["city", "check_in", "nights"],
            },
        },
    }
]


def _post_json(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[dict[str, Any], Any]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"content-type": "application/json", **headers}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response), response.headers


def mock_tool_call(url: str, name: str, arguments: dict[str, Any]) -> str:
    """Test mode: the suite's mocks answer, through the mock MCP server (Streamable HTTP, JSON)."""
    accept = {"accept": "application/json, text/event-stream"}
    init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "concierge", "version": "1"},
    }
    _, headers = _post_json(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}, accept)
    session = {**accept, "mcp-session-id": headers["mcp-session-id"]}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    answer, _ = _post_json(url, call, session)
    if "error" in answer:
        return f"Error: {answer['error']['message']}"
    return "\n".join(block["text"] for block in answer["result"]["content"] if block["type"] == "text")


def search_hotels(city: str, check_in: str, nights: int) -> str:
    arguments = {"city": city, "check_in": check_in, "nights": nights}
    if os.environ.get("TOOL_EVAL_GATE_MCP_URL"):
        return mock_tool_call(os.environ["TOOL_EVAL_GATE_MCP_URL"], "search_hotels", arguments)
    query = urllib.parse.urlencode(arguments)
    with urllib.request.urlopen(f"{os.environ['HOTELS_API_URL']}/search?{query}", timeout=30) as response:
        return response.read().decode()


class Concierge:
    def __init__(self) -> None:
        self.client = OpenAI()

    def reply(self, messages: list[dict[str, Any]], text: str) -> str:
        """The answer to ``text`` after ``messages`` (Chat Completions messages, extended in place)."""
        messages.append({"role": "user", "content": text})
        for _ in range(MAX_STEPS):
            completion = self.client.chat.completions.create(
                model=MODEL,
                messages=[{"role": "system", "content": INSTRUCTIONS}, *messages],
                tools=TOOLS,
                temperature=0,
            )
            reply = completion.choices[0].message
            messages.append(reply.model_dump(exclude_none=True))
            if not reply.tool_calls:
                return reply.content or ""
            for call in reply.tool_calls:
                result = search_hotels(**json.loads(call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        return "Sorry, I could not finish that. A colleague will get back to you."
