"""The OpenAI Responses API (``client.responses.create``): requests built from neutral messages and
replies read back into a ``ModelReply``. Imported by ``openai_provider``, with what both
OpenAI APIs share (``sampling_arguments``).

Neutral messages become input items: user and assistant text as messages, each tool call as a
``function_call`` item and its mock result as a ``function_call_output`` with the same ``call_id``,
the system prompt as ``instructions``, and the reasoning items a reasoning model produced sent back
unchanged before the calls they led to (the API wants them there). Nothing here imports the SDK.
"""

from __future__ import annotations

import json
from typing import Any

from gate.providers.base import ModelReply, ModelRequest, ProviderError, sent_arguments
from gate.results.messages import AssistantMessage, Message, ToolCall, ToolResult
from gate.results.run_record import Usage
from gate.suite.model_family import token_limit, token_limit_key
from gate.util.json_types import JsonObject


def tool_arguments(request: ModelRequest, tools: list[JsonObject], choice: Any) -> JsonObject:
    """The tools, the tool choice (already in the API's form) and parallel calls, as both OpenAI APIs
    take them; nothing when the request has no tools."""
    if not request.tools:
        return {}
    kwargs: JsonObject = {"tools": tools}
    if choice is not None:
        kwargs["tool_choice"] = choice
    if request.params.parallel_tool_calls is not None and not request.forced_tool:
        kwargs["parallel_tool_calls"] = request.params.parallel_tool_calls
    return kwargs


def sampling_arguments(request: ModelRequest) -> JsonObject:
    """What both OpenAI APIs take alike: sampling, the token limit under the family's name, and
    ``extra_body`` untouched (the SDK merges it into the JSON body)."""
    params = request.params
    kwargs: JsonObject = {}
    if params.temperature is not None:
        kwargs["temperature"] = params.temperature
    if params.top_p is not None:
        kwargs["top_p"] = params.top_p
    limit = token_limit(params)
    if limit is not None:
        kwargs[token_limit_key(request.provider, request.api, request.model, params)] = limit
    if params.extra_body:
        kwargs["extra_body"] = dict(params.extra_body)
    return kwargs


def to_responses_tool(chat_tool: JsonObject) -> JsonObject:
    """A Chat Completions tool (``{"type": "function", "function": {...}}``) as a Responses tool.
    ``strict`` is sent as false unless set: the Responses API would otherwise enforce strict schemas."""
    function = chat_tool["function"]
    return {
        "type": "function",
        "name": function["name"],
        "description": function.get("description", ""),
        "parameters": function.get("parameters") or {"type": "object", "properties": {}},
        "strict": bool(function.get("strict", False)),
    }


def responses_input(messages: tuple[Message, ...]) -> list[JsonObject]:
    """A request's messages as Responses API input items."""
    items: list[JsonObject] = []
    for message in messages:
        if isinstance(message, ToolResult) and not message.call_id:  # a result no call id names
            items.append({"role": "user", "content": f"Tool result: {message.text}"})
        elif isinstance(message, ToolResult):
            output = message.text
            if message.is_error and not output.lower().startswith("error"):
                output = f"Error: {output}"
            items.append({"type": "function_call_output", "call_id": message.call_id, "output": output})
        elif isinstance(message, AssistantMessage):
            items.extend(block for block in message.reasoning if block.get("type") == "reasoning")
            if message.content:
                items.append({"role": "assistant", "content": message.content})
            for call in message.tool_calls:
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": sent_arguments(call.arguments),
                    }
                )
        else:
            items.append({"role": message.role, "content": message.content})
    return items


def responses_tool_choice(choice: str | None, request: ModelRequest) -> Any:
    forced_tool = request.forced_tool
    if forced_tool:
        return "required" if request.forced_by_requiring else {"type": "function", "name": forced_tool}
    if choice is None or choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "name": choice}


def responses_arguments(request: ModelRequest, tools: list[JsonObject]) -> JsonObject:
    """The keyword arguments of ``responses.create`` for ``request``."""
    params = request.params
    kwargs: JsonObject = {"model": request.model, "input": responses_input(request.messages)}
    if request.system:
        kwargs["instructions"] = request.system
    kwargs.update(tool_arguments(request, tools, responses_tool_choice(params.tool_choice, request)))
    kwargs.update(sampling_arguments(request))
    if params.reasoning_effort is not None:
        kwargs["reasoning"] = {"effort": params.reasoning_effort}
    if params.verbosity is not None:
        kwargs["text"] = {"verbosity": params.verbosity}
    return kwargs


def _plain(item: Any) -> JsonObject:
    """An SDK output item as a plain dict (without unset fields), to send back later."""
    dump = getattr(item, "model_dump", None)
    data = dump(exclude_none=True) if callable(dump) else dict(item)
    return {k: v for k, v in data.items() if v is not None}


def parse_response(response: Any, latency_ms: float | None = None, limit: int | None = None) -> ModelReply:
    """A ``ModelReply`` from a Responses API response; malformed output never raises past here. A
    reply whose ``output_tokens`` reached the ``limit`` sent was cut even when the server calls it
    ``completed`` (llama.cpp does; OpenAI says ``incomplete``)."""
    output = getattr(response, "output", None)
    if output is None:
        raise ProviderError("malformed", "the OpenAI response has no output", retryable=True)
    error = getattr(response, "error", None)
    if error is not None and getattr(response, "status", "") == "failed":
        message = getattr(error, "message", None) or str(error)
        raise ProviderError("server", f"openai response failed: {message}", retryable=True)
    texts: list[str] = []
    calls: list[ToolCall] = []
    reasoning: list[JsonObject] = []
    for position, item in enumerate(output):
        kind = getattr(item, "type", None)
        if kind == "message":
            for part in getattr(item, "content", None) or ():
                if getattr(part, "type", None) == "output_text":
                    texts.append(getattr(part, "text", "") or "")
        elif kind == "function_call":
            raw = getattr(item, "arguments", None)
            if raw is not None and not isinstance(raw, str):
                raw = json.dumps(raw)
            calls.append(
                ToolCall(
                    id=getattr(item, "call_id", None) or getattr(item, "id", None) or f"call_{position}",
                    name=getattr(item, "name", "") or "",
                    arguments=raw or "",
                )
            )
        elif kind == "reasoning":
            reasoning.append(_plain(item))
    usage = getattr(response, "usage", None)
    incomplete = getattr(response, "incomplete_details", None)
    stop_reason = str(getattr(incomplete, "reason", "") or "") if incomplete is not None else ""
    if not stop_reason and limit is not None and int(getattr(usage, "output_tokens", 0) or 0) >= limit:
        stop_reason = "max_output_tokens"
    return ModelReply(
        text="".join(texts),
        tool_calls=tuple(calls),
        usage=Usage(
            int(getattr(usage, "input_tokens", 0) or 0), int(getattr(usage, "output_tokens", 0) or 0)
        ),
        stop_reason=stop_reason or ("tool_calls" if calls else str(getattr(response, "status", "") or "")),
        request_id=getattr(response, "_request_id", None) or getattr(response, "id", None),
        latency_ms=latency_ms,
        reasoning=tuple(reasoning),
        model=str(getattr(response, "model", "") or ""),
    )
