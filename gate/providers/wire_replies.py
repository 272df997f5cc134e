"""A ``ModelReply`` written back to an agent program in the API it asked in: the JSON body of OpenAI
Chat Completions, of the Responses API, of Anthropic Messages, or the server-sent events of each
when it asked to stream (SDKs and frameworks stream by default).

A reply is rendered the same way whether it came from the provider or from the response cache, so a
replayed trial sends the program exactly what the recorded one did. Identifiers are derived from
the reply's content (never random): a program sends them back in its next request, and that request
must be the same on every run for the cache to answer it. Pure.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from gate.providers.base import ModelReply
from gate.providers.wire_requests import WireApi, WireRequest

Event = tuple[str | None, Any]  # (SSE event name or None, data: a JSON value, or "[DONE]")

CREATED = 0  # timestamps in replies: fixed, like the identifiers (the program may echo them)


def reply_id(reply: ModelReply) -> str:
    material = json.dumps(
        [reply.text, [(c.id, c.name, c.arguments) for c in reply.tool_calls], reply.stop_reason],
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def reply_body(request: WireRequest, reply: ModelReply) -> dict[str, Any]:
    """The non-streaming JSON body of ``reply`` in the request's API."""
    render = {"chat": _chat, "responses": _response, "messages": _message}[request.api]
    return render(request, reply)


def reply_events(request: WireRequest, reply: ModelReply) -> list[Event]:
    """The server-sent events of ``reply`` in the request's API, in order, as its SDKs read them."""
    stream = {"chat": _chat_events, "responses": _response_events, "messages": _message_events}[request.api]
    return stream(request, reply)


def error_body(api: WireApi, status: int, message: str) -> dict[str, Any]:
    """An error in the API's own shape (the SDKs read its message)."""
    kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error"}.get(
        status, "rate_limit_error" if status == 429 else "api_error"
    )
    if api == "messages":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def encode_event(event: Event) -> bytes:
    name, data = event
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    head = f"event: {name}\n" if name else ""
    return (head + f"data: {text}\n\n").encode("utf-8", "surrogatepass")


# -- Chat Completions -------------------------------------------------------------------------------


def _finish_reason(reply: ModelReply) -> str:
    if reply.stop_reason in ("stop", "length", "tool_calls", "content_filter", "function_call"):
        return reply.stop_reason
    return "tool_calls" if reply.tool_calls else "stop"


def _chat_usage(reply: ModelReply) -> dict[str, Any]:
    usage = reply.usage
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cached_input_tokens},
    }


def _chat_calls(reply: ModelReply) -> list[dict[str, Any]]:
    return [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
        for c in reply.tool_calls
    ]


def _chat(request: WireRequest, reply: ModelReply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = _chat_calls(reply)
    return {
        "id": f"chatcmpl-{reply_id(reply)}",
        "object": "chat.completion",
        "created": CREATED,
        "model": reply.model or request.model,
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": _finish_reason(reply)}
        ],
        "usage": _chat_usage(reply),
    }


def _chat_events(request: WireRequest, reply: ModelReply) -> list[Event]:
    ident = f"chatcmpl-{reply_id(reply)}"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> Event:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return None, {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": reply.model or request.model,
            "choices": [choice],
        }

    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    if reply.text:
        events.append(chunk({"content": reply.text}))
    for index, call in enumerate(reply.tool_calls):
        head = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        events.append(chunk({"tool_calls": [head]}))
        if call.arguments:
            events.append(
                chunk({"tool_calls": [{"index": index, "function": {"arguments": call.arguments}}]})
            )
    events.append(chunk({}, _finish_reason(reply)))
    if request.include_usage:
        usage = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": reply.model or request.model,
            "choices": [],
            "usage": _chat_usage(reply),
        }
        events.append((None, usage))
    events.append((None, "[DONE]"))
    return events


# -- the Responses API ------------------------------------------------------------------------------


def _output_items(reply: ModelReply) -> list[dict[str, Any]]:
    ident = reply_id(reply)
    items: list[dict[str, Any]] = [
        dict(block) for block in reply.reasoning if block.get("type") == "reasoning"
    ]
    if reply.text:
        items.append(
            {
                "type": "message",
                "id": f"msg_{ident}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}],
            }
        )
    for index, call in enumerate(reply.tool_calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{ident}_{index}",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "status": "completed",
            }
        )
    return items


def _response(request: WireRequest, reply: ModelReply, *, done: bool = True) -> dict[str, Any]:
    incomplete = reply.stop_reason in ("max_output_tokens", "content_filter")
    usage = reply.usage
    body = request.body
    return {
        "id": f"resp_{reply_id(reply)}",
        "object": "response",
        "created_at": CREATED,
        "status": ("incomplete" if incomplete else "completed") if done else "in_progress",
        "error": None,
        "incomplete_details": {"reason": reply.stop_reason} if incomplete and done else None,
        "instructions": body.get("instructions"),
        "model": reply.model or request.model,
        "output": _output_items(reply) if done else [],
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []),
        "temperature": body.get("temperature"),
        "top_p": body.get("top_p"),
        "metadata": body.get("metadata") or {},
        "usage": {
            "input_tokens": usage.input_tokens,
            "input_tokens_details": {"cached_tokens": reply.cached_input_tokens},
            "output_tokens": usage.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.input_tokens + usage.output_tokens,
        }
        if done
        else None,
    }


def _response_events(request: WireRequest, reply: ModelReply) -> list[Event]:
    events: list[Event] = []

    def add(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": len(events), **data}))

    add("response.created", response=_response(request, reply, done=False))
    add("response.in_progress", response=_response(request, reply, done=False))
    for index, item in enumerate(_output_items(reply)):
        _item_events(add, index, item)
    add("response.completed", response=_response(request, reply))
    return events


def _item_events(add: Any, index: int, item: dict[str, Any]) -> None:
    """The events of one output item: added, its content (text or arguments) in one delta, done."""
    kind = item["type"]
    if kind == "message":
        text = item["content"][0]["text"]
        part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        add(
            "response.output_item.added",
            output_index=index,
            item={**item, "status": "in_progress", "content": []},
        )
        at = {"item_id": item["id"], "output_index": index, "content_index": 0}
        add("response.content_part.added", **at, part=part)
        add("response.output_text.delta", **at, delta=text, logprobs=[])
        add("response.output_text.done", **at, text=text, logprobs=[])
        add("response.content_part.done", **at, part={**part, "text": text})
    elif kind == "function_call":
        add(
            "response.output_item.added",
            output_index=index,
            item={**item, "arguments": "", "status": "in_progress"},
        )
        add(
            "response.function_call_arguments.delta",
            item_id=item["id"],
            output_index=index,
            delta=item["arguments"],
        )
        add(
            "response.function_call_arguments.done",
            item_id=item["id"],
            output_index=index,
            name=item["name"],
            arguments=item["arguments"],
        )
    else:
        add("response.output_item.added", output_index=index, item=item)
    add("response.output_item.done", output_index=index, item=item)


# -- Anthropic Messages -----------------------------------------------------------------------------


def _content_blocks(reply: ModelReply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [
        dict(b) for b in reply.reasoning if b.get("type") in ("thinking", "redacted_thinking")
    ]
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        try:
            value = json.loads(call.arguments) if call.arguments else {}
        except ValueError:
            value = {}
        blocks.append(
            {
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": value if isinstance(value, dict) else {},
            }
        )
    return blocks


def _stop_reason(reply: ModelReply) -> str:
    known = ("end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal")
    if reply.stop_reason in known:
        return reply.stop_reason
    return "tool_use" if reply.tool_calls else "end_turn"


def _message_usage(reply: ModelReply, output: bool = True) -> dict[str, Any]:
    return {
        "input_tokens": max(0, reply.usage.input_tokens - reply.cached_input_tokens),
        "output_tokens": reply.usage.output_tokens if output else 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": reply.cached_input_tokens,
    }


def _message(request: WireRequest, reply: ModelReply) -> dict[str, Any]:
    return {
        "id": f"msg_{reply_id(reply)}",
        "type": "message",
        "role": "assistant",
        "model": reply.model or request.model,
        "content": _content_blocks(reply),
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": _message_usage(reply),
    }


def _message_events(request: WireRequest, reply: ModelReply) -> list[Event]:
    start = {
        **_message(request, reply),
        "content": [],
        "stop_reason": None,
        "usage": _message_usage(reply, False),
    }
    events: list[Event] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(_content_blocks(reply)):
        events.extend(_block_events(index, block))
    delta = {"stop_reason": _stop_reason(reply), "stop_sequence": None}
    events.append(
        (
            "message_delta",
            {"type": "message_delta", "delta": delta, "usage": {"output_tokens": reply.usage.output_tokens}},
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def _block_events(index: int, block: dict[str, Any]) -> list[Event]:
    kind = block["type"]
    if kind == "text":
        empty: dict[str, Any] = {"type": "text", "text": ""}
        delta: dict[str, Any] | None = {"type": "text_delta", "text": block["text"]}
    elif kind == "tool_use":
        empty = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"], ensure_ascii=False)}
    elif kind == "thinking":
        empty = {"type": "thinking", "thinking": ""}
        delta = {"type": "thinking_delta", "thinking": block.get("thinking", "")}
    else:
        empty, delta = block, None
    events: list[Event] = [
        ("content_block_start", {"type": "content_block_start", "index": index, "content_block": empty})
    ]
    if delta is not None:
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        )
    if kind == "thinking":
        signature = {"type": "signature_delta", "signature": block.get("signature", "")}
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": signature})
        )
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events
