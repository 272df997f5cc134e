"""A request an agent program sent to the recording proxy, read in the API it was written for: OpenAI
Chat Completions, the OpenAI Responses API, Anthropic Messages (DESIGN section 10).

The body goes upstream as the program wrote it (``WireRequest.body``), with only streaming taken
out (the proxy streams the reply to the program itself). What the gate records and scores is read
from it in provider-neutral form: the system prompt, the messages (``gate.results.messages``: the
calls of earlier replies, the tool results the program sends back) and the tools offered. Pure: no
SDK, no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gate import limits
from gate.results.messages import AssistantMessage, Message, ToolCall, ToolResult, UserMessage
from gate.suite.model import Source, ToolDef
from gate.util import strict_json

WireApi = Literal["chat", "responses", "messages"]
PROVIDER_OF: dict[WireApi, Literal["openai", "anthropic"]] = {
    "chat": "openai",
    "responses": "openai",
    "messages": "anthropic",
}
# Where a tool offered by a program is defined is not known from its request (its code, a tool file).
PROGRAM_SOURCE = Source("", 0, 0)
# Keys that ask the proxy to stream; they are not sent upstream (nor part of the cache key).
_STREAM_KEYS = ("stream", "stream_options")
# Responses API state kept by the provider: the gate must see the whole conversation in each request.
_SERVER_STATE = ("previous_response_id", "conversation")


class WireError(ValueError):
    """The request cannot be served: the message says why (sent back to the program as a 400)."""


@dataclass(frozen=True)
class WireRequest:
    api: WireApi
    model: str
    stream: bool
    include_usage: bool  # Chat Completions streaming: a last chunk with the usage
    body: dict[str, Any]  # sent upstream as it is
    system: str | None
    messages: tuple[Message, ...]
    tools: tuple[ToolDef, ...]

    @property
    def provider(self) -> Literal["openai", "anthropic"]:
        return PROVIDER_OF[self.api]


def read_wire_request(api: WireApi, raw: bytes) -> WireRequest:
    """The request of ``raw`` (the HTTP body) for ``api``; ``WireError`` when it cannot be served."""
    shape = strict_json.structure_problem(
        raw, containers=limits.MAX_REQUEST_CONTAINERS, depth=limits.MAX_REQUEST_NESTING
    )
    if shape is not None:
        raise WireError(f"the request body holds {shape}: no model request needs that many")
    try:
        body = json.loads(raw or b"null")
    except (ValueError, RecursionError) as exc:
        raise WireError(f"the request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise WireError("the request body is not a JSON object")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise WireError("the request names no model")
    if api == "responses":
        for key in _SERVER_STATE:
            if body.get(key):
                raise WireError(
                    f"tool-eval-gate does not serve {key}: the gate must see the whole conversation in "
                    "each request (send the full input, as the OpenAI Agents SDK does by default)"
                )
    stream = body.get("stream") is True
    options = body.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    upstream = {k: v for k, v in body.items() if k not in _STREAM_KEYS}
    reader = {"chat": _chat, "responses": _responses, "messages": _messages}[api]
    system, messages, tools = reader(body)
    return WireRequest(api, model, stream, include_usage, upstream, system, tuple(messages), tools)


# -- text ------------------------------------------------------------------------------------------


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts (other parts,
    an image say, are shown as ``[image]``)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping):
                kind = str(part.get("type") or "")
                if "text" in part and isinstance(part.get("text"), str):
                    parts.append(part["text"])
                elif kind == "refusal" and isinstance(part.get("refusal"), str):
                    parts.append(part["refusal"])
                elif kind:
                    parts.append(f"[{kind.removeprefix('input_')}]")
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)


def _arguments(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value if value is not None else {})


def _tool(name: Any, description: Any, parameters: Any) -> ToolDef | None:
    if not isinstance(name, str) or not name:
        return None
    schema = parameters if isinstance(parameters, dict) else {"type": "object", "properties": {}}
    return ToolDef(name, description if isinstance(description, str) else "", schema, PROGRAM_SOURCE)


def _unique(tools: list[ToolDef | None]) -> tuple[ToolDef, ...]:
    seen: dict[str, ToolDef] = {}
    for tool in tools:
        if tool is not None:
            seen.setdefault(tool.name, tool)
    return tuple(seen.values())


# -- Chat Completions -------------------------------------------------------------------------------

_Read = tuple[str | None, list[Message], tuple[ToolDef, ...]]


def _chat(body: dict[str, Any]) -> _Read:
    system: list[str] = []
    messages: list[Message] = []
    names: dict[str, str] = {}
    for message in body.get("messages") or ():
        if not isinstance(message, Mapping):
            continue
        role = message.get("role")
        content = text_of(message.get("content"))
        if role in ("system", "developer"):
            system.append(content)
        elif role == "assistant":
            calls = [_chat_call(call) for call in message.get("tool_calls") or ()]
            given = tuple(c for c in calls if c is not None)
            names.update((c.id, c.name) for c in given)
            messages.append(AssistantMessage(content, tool_calls=given))
        elif role in ("tool", "function"):
            call_id = str(message.get("tool_call_id", ""))
            messages.append(ToolResult(call_id, names.get(call_id, str(message.get("name", ""))), content))
        else:
            messages.append(UserMessage(content))
    tools = [
        _tool(f.get("name"), f.get("description"), f.get("parameters"))
        for t in body.get("tools") or ()
        if isinstance(t, Mapping) and isinstance(f := t.get("function"), Mapping)
    ]
    return ("\n\n".join(system) if system else None), messages, _unique(tools)


def _chat_call(call: Any) -> ToolCall | None:
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping):
        return None
    return ToolCall(
        str(call.get("id", "")), str(function.get("name", "")), _arguments(function.get("arguments"))
    )


# -- the Responses API ------------------------------------------------------------------------------


def _responses(body: dict[str, Any]) -> _Read:
    system = [body["instructions"]] if isinstance(body.get("instructions"), str) else []
    raw = body.get("input")
    items = [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw or ())
    messages: list[Message] = []
    names: dict[str, str] = {}
    for item in items:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type", "message")
        if kind == "function_call":
            call = ToolCall(
                str(item.get("call_id", "")), str(item.get("name", "")), _arguments(item.get("arguments"))
            )
            names[call.id] = call.name
            last = messages[-1] if messages else None
            if isinstance(last, AssistantMessage) and last.tool_calls:
                messages[-1] = AssistantMessage(last.content, tool_calls=(*last.tool_calls, call))
            else:
                messages.append(AssistantMessage("", tool_calls=(call,)))
        elif kind == "function_call_output":
            call_id = str(item.get("call_id", ""))
            messages.append(ToolResult(call_id, names.get(call_id, ""), text_of(item.get("output"))))
        elif kind == "message":
            role = item.get("role")
            content = text_of(item.get("content"))
            if role in ("system", "developer"):
                system.append(content)
            elif role == "assistant":
                messages.append(AssistantMessage(content))
            else:
                messages.append(UserMessage(content))
    tools = [
        _tool(t.get("name"), t.get("description"), t.get("parameters"))
        for t in body.get("tools") or ()
        if isinstance(t, Mapping) and t.get("type") == "function"
    ]
    return ("\n\n".join(system) if system else None), messages, _unique(tools)


# -- Anthropic Messages -----------------------------------------------------------------------------


def _messages(body: dict[str, Any]) -> _Read:
    raw_system = body.get("system")
    system = text_of(raw_system) if raw_system else None
    messages: list[Message] = []
    names: dict[str, str] = {}
    for message in body.get("messages") or ():
        if not isinstance(message, Mapping):
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": text_of(content)}]
        if message.get("role") == "assistant":
            messages.append(_assistant_blocks(blocks, names))
            continue
        texts: list[str] = []
        for block in blocks:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                call_id = str(block.get("tool_use_id", ""))
                messages.append(
                    ToolResult(
                        call_id,
                        names.get(call_id, ""),
                        text_of(block.get("content")),
                        is_error=bool(block.get("is_error", False)),
                    )
                )
            else:
                texts.append(text_of([block]))
        if any(texts):
            messages.append(UserMessage("\n".join(t for t in texts if t)))
    tools = [
        _tool(t.get("name"), t.get("description"), t.get("input_schema"))
        for t in body.get("tools") or ()
        if isinstance(t, Mapping) and "input_schema" in t
    ]
    return system, messages, _unique(tools)


def _assistant_blocks(blocks: list[Any], names: dict[str, str]) -> AssistantMessage:
    texts: list[str] = []
    calls: list[ToolCall] = []
    for block in blocks:
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "tool_use":
            call = ToolCall(
                str(block.get("id", "")), str(block.get("name", "")), _arguments(block.get("input"))
            )
            names[call.id] = call.name
            calls.append(call)
        elif block.get("type") == "text":
            texts.append(str(block.get("text", "")))
    return AssistantMessage("".join(texts), tool_calls=tuple(calls))
