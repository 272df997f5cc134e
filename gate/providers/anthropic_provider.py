"""The Anthropic adapter: the Messages API through ``anthropic.AsyncAnthropic``.

The SDK reads ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL`` from the environment; a suite can
never set either. SDK retries are off (``max_retries=0``); the runner retries. The ``anthropic``
package is imported only when the first request is sent.
"""

from __future__ import annotations

import json
from typing import Any

from gate.providers.base import ModelReply, ModelRequest, ProviderError, arguments_object
from gate.providers.sdk_provider import SdkProvider
from gate.results.messages import AssistantMessage, Message, ToolCall, ToolResult
from gate.results.run_record import Usage
from gate.suite.model import ToolDef
from gate.suite.model_family import anthropic_max_tokens
from gate.util.json_types import JsonObject


def anthropic_messages(messages: tuple[Message, ...]) -> list[JsonObject]:
    """A request's messages in the Messages API format: tool results become ``tool_result`` blocks of
    a user turn, and consecutive turns of one role are merged (the API wants them alternating)."""
    out: list[JsonObject] = []

    def add(role: str, blocks: list[JsonObject]) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for message in messages:
        if isinstance(message, ToolResult) and not message.call_id:  # a result no call id names
            add("user", [{"type": "text", "text": f"Tool result: {message.text}"}])
        elif isinstance(message, ToolResult):
            block: JsonObject = {
                "type": "tool_result",
                "tool_use_id": message.call_id,
                "content": message.text,
            }
            if message.is_error:
                block["is_error"] = True
            add("user", [block])
        elif isinstance(message, AssistantMessage):
            add("assistant", _assistant_blocks(message))
        else:
            add("user", [{"type": "text", "text": message.content or "(empty)"}])
    return out


def _assistant_blocks(message: AssistantMessage) -> list[JsonObject]:
    """An assistant turn as content blocks. Thinking blocks go back first and unchanged (signatures
    included): with thinking on, the API refuses an assistant turn with tool use that does not start
    with them."""
    blocks: list[JsonObject] = [
        dict(b) for b in message.reasoning if b.get("type") in ("thinking", "redacted_thinking")
    ]
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append(
            {
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": arguments_object(call.arguments) or {},
            }
        )
    return blocks or [{"type": "text", "text": "(no answer)"}]


def anthropic_tool_choice(request: ModelRequest) -> JsonObject | None:
    choice, forced_tool, parallel = (
        request.params.tool_choice,
        request.forced_tool,
        request.params.parallel_tool_calls,
    )
    if forced_tool:
        result: JsonObject = (
            {"type": "any"} if request.forced_by_requiring else {"type": "tool", "name": forced_tool}
        )
    elif choice is None:
        result = {"type": "auto"} if parallel is False else {}
    elif choice == "auto":
        result = {"type": "auto"}
    elif choice == "required":
        result = {"type": "any"}
    elif choice == "none":
        return {"type": "none"}
    else:
        result = {"type": "tool", "name": choice}
    if parallel is False and result:
        result["disable_parallel_tool_use"] = True
    return result or None


class AnthropicProvider(SdkProvider):
    """Messages through ``anthropic.AsyncAnthropic``."""

    name = "anthropic"
    title = "Anthropic"
    key_variable = "ANTHROPIC_API_KEY"

    def _new_client(self) -> Any:
        import anthropic

        return anthropic.AsyncAnthropic(max_retries=0, timeout=self.timeout)

    def _tool_payload(self, tool: ToolDef) -> JsonObject:
        from gate.assembly.tool_formats import to_anthropic

        return to_anthropic(tool)

    def build_arguments(self, request: ModelRequest) -> JsonObject:
        """The keyword arguments of ``messages.create`` for ``request``."""
        params = request.params
        kwargs: JsonObject = {
            "model": request.model,
            "max_tokens": anthropic_max_tokens(params),
            "messages": anthropic_messages(request.messages),
        }
        if params.thinking_budget is not None:
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": params.thinking_budget}
        if params.stop:
            kwargs["stop_sequences"] = list(params.stop)
        if request.system:
            kwargs["system"] = request.system
        if request.tools:
            kwargs["tools"] = self._tools(request.tools)
            choice = anthropic_tool_choice(request)
            if choice is not None:
                kwargs["tool_choice"] = choice
        # Sampling parameters: this SDK generation has no keyword for them, the API still takes them
        # in the body (newest models may reject them: then leave them out of the suite).
        extra: JsonObject = {}
        if params.temperature is not None:
            extra["temperature"] = params.temperature
        if params.top_p is not None:
            extra["top_p"] = params.top_p
        if extra:
            kwargs["extra_body"] = extra
        if params.extra_body:
            kwargs["extra_body"] = {**extra, **params.extra_body}
        # The Messages API has no seed; it is part of the cache key but not sent.
        return kwargs

    def _wire_path(self, request: ModelRequest) -> str:
        return "/v1/messages"

    def _wire_endpoint(self, request: ModelRequest) -> tuple[str, Any]:
        from anthropic.types import Message

        return self._wire_path(request), Message

    async def _send(self, client: Any, request: ModelRequest, kwargs: JsonObject) -> Any:
        return await client.messages.create(**kwargs)

    def _parse(self, request: ModelRequest, response: Any, latency_ms: float) -> ModelReply:
        return parse_message(response, latency_ms)


def parse_message(message: Any, latency_ms: float | None = None) -> ModelReply:
    """A ``ModelReply`` from a Messages API response; malformed content never raises past here."""
    content = getattr(message, "content", None)
    if content is None:
        raise ProviderError("malformed", "the Anthropic response has no content", retryable=True)
    texts: list[str] = []
    calls: list[ToolCall] = []
    reasoning: list[JsonObject] = []
    for position, block in enumerate(content):
        kind = getattr(block, "type", None)
        if kind == "thinking":
            reasoning.append(
                {
                    "type": "thinking",
                    "thinking": getattr(block, "thinking", "") or "",
                    "signature": getattr(block, "signature", "") or "",
                }
            )
        elif kind == "redacted_thinking":
            reasoning.append({"type": "redacted_thinking", "data": getattr(block, "data", "") or ""})
        elif kind == "text":
            texts.append(getattr(block, "text", "") or "")
        elif kind == "tool_use":
            raw_input = getattr(block, "input", None)
            raw = (
                raw_input
                if isinstance(raw_input, str)
                else json.dumps(raw_input if raw_input is not None else {})
            )
            calls.append(
                ToolCall(
                    id=getattr(block, "id", None) or f"toolu_{position}",
                    name=getattr(block, "name", "") or "",
                    arguments=raw,
                )
            )
    usage = getattr(message, "usage", None)
    return ModelReply(
        text="".join(texts),
        tool_calls=tuple(calls),
        usage=anthropic_usage(usage),
        cached_input_tokens=int(getattr(usage, "cache_read_input_tokens", 0) or 0),
        stop_reason=str(getattr(message, "stop_reason", "") or ""),
        request_id=getattr(message, "_request_id", None) or getattr(message, "id", None),
        latency_ms=latency_ms,
        reasoning=tuple(reasoning),
        model=str(getattr(message, "model", "") or ""),
    )


def anthropic_usage(usage: Any) -> Usage:
    """Anthropic counts cache reads and writes apart from ``input_tokens``: all are input here."""
    cached = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
    written = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
    fresh = int(getattr(usage, "input_tokens", 0) or 0)
    return Usage(fresh + cached + written, int(getattr(usage, "output_tokens", 0) or 0))
