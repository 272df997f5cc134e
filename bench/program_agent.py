"""The benchmark's agent program: the same program, run through the gate and talking to the model
directly. Standard library only (its start-up costs little, so the measurement is about the gate), it
speaks the gate's JSON-lines protocol and OpenAI Chat Completions at ``OPENAI_BASE_URL``: one request,
its ``lookup`` tool answered by its own code, one more request for the answer. Its client is built
per message from the environment, which a trial's line may update (``env``, ``reuse: true``).

    python bench/program_agent.py                 # reads {"role": "user", "content": ...} lines on stdin
    python bench/program_agent.py --startup 3     # first spends 3 s of CPU, as a framework's import does
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request

from workload import MOCK_RESULT, MODEL, TOOLS


def start_up(seconds: float) -> None:
    """Spend ``seconds`` of CPU, as importing a framework does (LangGraph: about 3 s)."""
    while time.process_time() < seconds:
        pass


def complete(messages: list[dict[str, object]]) -> dict[str, object]:
    url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
    headers = {"content-type": "application/json", "authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"}
    body = json.dumps({"model": MODEL, "messages": messages, "tools": TOOLS, "temperature": 0}).encode()
    with urllib.request.urlopen(urllib.request.Request(url, body, headers), timeout=60) as response:
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


if len(sys.argv) == 3 and sys.argv[1] == "--startup":
    start_up(float(sys.argv[2]))
for line in sys.stdin:
    message = json.loads(line)
    os.environ.update(message.get("env", {}))  # a trial's own addresses (reuse: true)
    print(json.dumps({"content": answer(message["content"])}), flush=True)
