"""The benchmark's agent program: the same program, run through the gate and talking to the model
directly. Standard library only (its start-up costs little, so the measurement is about the gate), it
speaks the gate's JSON-lines protocol and OpenAI Chat Completions at ``OPENAI_BASE_URL``: one request,
its ``lookup`` tool answered by its own code, one more request for the answer.

    python bench/program_agent.py     # reads {"role": "user", "content": ...} lines on stdin
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request

from workload import MOCK_RESULT, MODEL, TOOLS

URL = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
HEADERS = {"content-type": "application/json", "authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"}


def complete(messages: list[dict[str, object]]) -> dict[str, object]:
    body = json.dumps({"model": MODEL, "messages": messages, "tools": TOOLS, "temperature": 0}).encode()
    with urllib.request.urlopen(urllib.request.Request(URL, body, HEADERS), timeout=60) as response:
        message: dict[str, object] = json.load(response)["choices"][0]["message"]
        return message


def answer(text: str) -> str:
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You answer questions about stored values. Always call lookup first."},
        {"role": "user", "content": text},
    ]
    for _ in range(4):
        message = complete(messages)
        messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            return str(message.get("content") or "")
        for call in calls:  # type: ignore[attr-defined]
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(MOCK_RESULT)})
    return "no answer"


for line in sys.stdin:
    print(json.dumps({"content": answer(json.loads(line)["content"])}), flush=True)
