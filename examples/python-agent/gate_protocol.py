"""tool-eval-gate's program protocol, read in one place for every Python adapter beside it.

The gate writes one JSON line per user message to the program's standard input and reads one answer
line per message from its standard output. The first line of a trial also carries the suite, the
case, the trial, the case's variables and ``history``: the case's earlier turns, in the gate's shape
(``{"role", "content"}``; an assistant's earlier ``tool_calls`` as ``[{"id", "name", "arguments"}]``,
``arguments`` the JSON text; their results as ``{"role": "tool", "call_id", "name", "content",
"is_error"}``). Each adapter converts that history to its framework's own messages.

With ``reuse: true`` one process runs many trials, and the first line of each also carries ``env``:
that trial's addresses and token (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``ANTHROPIC_BASE_URL``,
``ANTHROPIC_API_KEY``, ``TOOL_EVAL_GATE_MCP_URL``). :func:`turns` puts them in ``os.environ``
before it gives the trial's first message, so an adapter builds its model and MCP clients when a
trial starts (imports stay paid once), and they reach that trial.

Copy this file next to your adapter; an adapter reads :func:`turns` and writes :func:`answer`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO


@dataclass(frozen=True)
class Turn:
    """One user message to answer. ``starts_trial``: the first message of a trial (build the trial's
    clients now), with the case's ``history`` (a conversation to start from, or none); the later ones
    (a simulated user's next messages) continue the same conversation."""

    content: str
    starts_trial: bool
    history: list[dict[str, Any]] = field(default_factory=list)
    case: dict[str, Any] = field(default_factory=dict)  # suite, case, trial, vars (the first line only)


def turns(lines: TextIO = sys.stdin) -> Iterator[Turn]:
    """The gate's messages, one at a time, until it closes the input; a trial's own addresses put in
    ``os.environ`` as it starts (``reuse: true``)."""
    for line in lines:
        if not line.strip():
            continue
        message = json.loads(line)
        starts_trial = "case" in message
        os.environ.update(message.get("env", {}))
        case = {key: message[key] for key in ("suite", "case", "trial", "vars") if key in message}
        yield Turn(message["content"], starts_trial, message.get("history", []), case)


def answer(text: str) -> None:
    """Send the answer to the current message (logs go to standard error, never here)."""
    print(json.dumps({"content": text}), flush=True)


def chat_messages(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history as OpenAI Chat Completions messages: what the openai SDK, LangChain and most
    frameworks take."""
    messages: list[dict[str, Any]] = []
    for message in history:
        role, content = message["role"], message["content"]
        if role == "tool":
            messages.append({"role": "tool", "tool_call_id": message["call_id"], "content": content})
        elif message.get("tool_calls"):
            calls = [_chat_call(call) for call in message["tool_calls"]]
            messages.append({"role": role, "content": content or None, "tool_calls": calls})
        else:
            messages.append({"role": role, "content": content})
    return messages


def _chat_call(call: dict[str, Any]) -> dict[str, Any]:
    function = {"name": call["name"], "arguments": call["arguments"]}
    return {"id": call["id"], "type": "function", "function": function}
