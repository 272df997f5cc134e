"""Agent parameters that can never work, or that would make the gate report on something it did not
send (DESIGN.md section 2):

- ``extra_body`` passes what the gate does not model to OpenAI-compatible servers, untouched. A key
  there replaces the request's own field of that name, so it may never name what the gate reports
  on or sends itself: the model, the messages or input, the system prompt, the tools, the tool
  choice, streaming, a parameter the gate models (``temperature`` is set in ``params``, where the
  model-family checks and the report see it), or any credential, header or URL;
- ``tool_choice: required`` (or a tool to force) on an agent without tools.

Pure: ``(path, message, hint)`` triples.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gate.assembly.checks.finding import Finding
from gate.util.json_types import PathKey

# The request fields the gate sends and reports on, in each API's spelling (Chat Completions,
# Responses, Anthropic Messages).
_REPORTED = {
    "model": "the model",
    "messages": "the messages",
    "input": "the input",
    "instructions": "the system prompt",
    "system": "the system prompt",
    "prompt": "the prompt",
    "tools": "the tools",
    "functions": "the tools",
    "tool_choice": "the tool choice",
    "function_call": "the tool choice",
    "stream": "streaming",
    "stream_options": "streaming",
    "n": "the number of answers",
}
# The parameters the gate models (agent.params), in each API's spelling.
_MODELLED = frozenset(
    {
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "max_output_tokens",
        "parallel_tool_calls",
        "seed",
        "stop",
        "stop_sequences",
        "reasoning_effort",
        "reasoning",
        "verbosity",
        "thinking",
    }
)
# Words of a key that carries a credential, a header or a URL (key names split at "_" and "-").
_SECRET_WORDS = frozenset(
    {
        "auth",
        "authorization",
        "bearer",
        "cookie",
        "credential",
        "credentials",
        "header",
        "headers",
        "password",
        "passwd",
        "secret",
        "token",
        "apikey",
        "url",
        "uri",
        "endpoint",
        "host",
    }
)

# Two last words of a key that holds a key ("api_key", "x-api-key", "access_key"; not "prompt_cache_key").
_KEY_WORDS = [[first, "key"] for first in ("api", "access", "secret", "private", "subscription", "auth")]


def _words(key: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", key.casefold()) if w]


def extra_body_problems(extra_body: Mapping[str, Any], at: PathKey) -> list[Finding]:
    """Keys of ``extra_body`` that would replace what the gate sends or reports on."""
    found: list[Finding] = []
    for key in extra_body:
        words = _words(str(key))
        name = "_".join(words)
        if name in _REPORTED:
            what = _REPORTED[name]
            found.append(
                (
                    (*at, key),
                    f"extra_body may not set {key!r}: it would replace {what} the gate sends and reports on",
                    "write it where the suite says it (agent.model, system_prompt, tools, cases, params)",
                )
            )
        elif name in _MODELLED:
            found.append(
                (
                    (*at, key),
                    f"extra_body may not set {key!r}: it is a parameter the gate models",
                    f"set it in agent.params ({key}: ...), where the model checks and the reports see it",
                )
            )
        elif set(words) & _SECRET_WORDS or name == "key" or words[-2:-1] + words[-1:] in _KEY_WORDS:
            found.append(
                (
                    (*at, key),
                    f"extra_body may not set {key!r}: credentials, headers and URLs never come from a suite",
                    "the base URL and keys come from the environment or the action's inputs",
                )
            )
    return found


def tool_choice_problem(choice: str | None, has_tools: bool) -> tuple[str, str] | None:
    """(message, hint) when ``tool_choice`` asks for a tool call from an agent that has no tools."""
    if has_tools or choice in (None, "auto", "none"):
        return None
    if choice == "required":
        return (
            "tool_choice: required needs tools, but the agent has none",
            "add the agent's tools, or remove tool_choice",
        )
    return None  # a tool name: the unknown-tool check says the agent defines none
