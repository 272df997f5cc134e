"""The OpenAI adapter (and every OpenAI-compatible server: Azure, vLLM, Ollama, llama.cpp, LM Studio).

The SDK reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` from the environment; a suite can never set
either. The SDK's own retries are off (``max_retries=0``): the runner retries with its adaptive
limiter, so a 429 is never retried twice over. The ``openai`` package is imported only when the
first request is sent, so that ``--replay`` runs and ``validate`` never pay for it or need a key.
"""

from __future__ import annotations

import json
import os
from typing import Any

from gate.providers.base import ModelReply, ModelRequest, ProviderError, sent_arguments
from gate.providers.openai_responses import (
    parse_response,
    responses_arguments,
    sampling_arguments,
    to_responses_tool,
    tool_arguments,
)
from gate.providers.sdk_provider import SdkProvider
from gate.providers.wire_forward import WireForwarder, openai_forwarder
from gate.results.messages import AssistantMessage, Message, ToolCall, ToolResult
from gate.results.run_record import Usage
from gate.suite.model import ToolDef
from gate.suite.model_family import token_limit
from gate.util.json_types import JsonObject


def openai_messages(system: str | None, messages: tuple[Message, ...]) -> list[JsonObject]:
    """A request's messages in the chat-completions format."""
    out: list[JsonObject] = []
    if system:
        out.append({"role": "system", "content": system})
    for message in messages:
        if isinstance(message, ToolResult) and not message.call_id:  # a result no call id names
            out.append({"role": "user", "content": f"Tool result: {message.text}"})
        elif isinstance(message, ToolResult):
            content = message.text
            if message.is_error and not content.lower().startswith("error"):
                content = f"Error: {content}"
            out.append({"role": "tool", "tool_call_id": message.call_id, "content": content})
        elif isinstance(message, AssistantMessage) and message.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    "content": message.content or None,
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": sent_arguments(call.arguments)},
                        }
                        for call in message.tool_calls
                    ],
                }
            )
        else:
            out.append({"role": message.role, "content": message.content})
    return out


def openai_tool_choice(choice: str | None, request: ModelRequest) -> Any:
    forced_tool = request.forced_tool
    if forced_tool:
        return (
            "required"
            if request.forced_by_requiring
            else {"type": "function", "function": {"name": forced_tool}}
        )
    if choice is None or choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def chat_arguments(request: ModelRequest, tools: list[JsonObject]) -> JsonObject:
    """The keyword arguments of ``chat.completions.create`` for ``request``."""
    params = request.params
    kwargs: JsonObject = {
        "model": request.model,
        "messages": openai_messages(request.system, request.messages),
    }
    kwargs.update(tool_arguments(request, tools, openai_tool_choice(params.tool_choice, request)))
    kwargs.update(sampling_arguments(request))
    if params.seed is not None:
        kwargs["seed"] = params.seed
    if params.stop:
        kwargs["stop"] = list(params.stop)
    if params.reasoning_effort is not None:
        kwargs["reasoning_effort"] = params.reasoning_effort
    if params.verbosity is not None:
        kwargs["verbosity"] = params.verbosity
    return kwargs


class OpenAIProvider(SdkProvider):
    """Chat Completions or the Responses API (``request.api``) through ``openai.AsyncOpenAI``."""

    name = "openai"
    title = "OpenAI"
    key_variable = "OPENAI_API_KEY"

    def _new_client(self) -> Any:
        import openai

        return openai.AsyncOpenAI(max_retries=0, timeout=self.timeout)

    def _tool_payload(self, tool: ToolDef) -> JsonObject:
        from gate.assembly.tool_formats import to_openai

        return to_openai(tool)

    def build_arguments(self, request: ModelRequest) -> JsonObject:
        """The keyword arguments of the SDK call for ``request`` (the API chosen by ``request.api``)."""
        if request.api == "responses":
            return responses_arguments(request, [to_responses_tool(t) for t in self._tools(request.tools)])
        return chat_arguments(request, self._tools(request.tools))

    def _new_forwarder(self) -> WireForwarder | None:
        return openai_forwarder(os.environ, self.timeout)

    def _wire_path(self, request: ModelRequest) -> str:
        return "/responses" if request.api == "responses" else "/chat/completions"

    def _wire_endpoint(self, request: ModelRequest) -> tuple[str, Any]:
        if request.api == "responses":
            from openai.types.responses import Response

            return self._wire_path(request), Response
        from openai.types.chat import ChatCompletion

        return self._wire_path(request), ChatCompletion

    async def _send(self, client: Any, request: ModelRequest, kwargs: JsonObject) -> Any:
        if request.api == "responses":
            return await client.responses.create(**kwargs)
        return await client.chat.completions.create(**kwargs)

    def _parse(self, request: ModelRequest, response: Any, latency_ms: float) -> ModelReply:
        if request.api == "responses":
            return parse_response(response, latency_ms, token_limit(request.params))
        return parse_completion(response, latency_ms)


def parse_completion(completion: Any, latency_ms: float | None = None) -> ModelReply:
    """A ``ModelReply`` from a chat completion, tolerating every malformation a server can produce."""
    choices = getattr(completion, "choices", None)
    if not choices:
        raise ProviderError("malformed", "the OpenAI response has no choices", retryable=True)
    choice = choices[0]
    message = getattr(choice, "message", None)
    if message is None:
        raise ProviderError("malformed", "the OpenAI response has no message", retryable=True)
    calls: list[ToolCall] = []
    for position, call in enumerate(getattr(message, "tool_calls", None) or ()):
        function = getattr(call, "function", None)
        name = getattr(function, "name", None) or getattr(getattr(call, "custom", None), "name", None) or ""
        raw = getattr(function, "arguments", None)
        if raw is None:
            raw = getattr(getattr(call, "custom", None), "input", None)
        if raw is not None and not isinstance(raw, str):
            raw = json.dumps(raw)
        calls.append(
            ToolCall(id=getattr(call, "id", None) or f"call_{position}", name=name, arguments=raw or "")
        )
    usage = getattr(completion, "usage", None)
    return ModelReply(
        text=getattr(message, "content", None) or "",
        tool_calls=tuple(calls),
        usage=Usage(
            int(getattr(usage, "prompt_tokens", 0) or 0),
            int(getattr(usage, "completion_tokens", 0) or 0),
        ),
        cached_input_tokens=int(
            getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", 0) or 0
        ),
        stop_reason=str(getattr(choice, "finish_reason", "") or ""),
        request_id=getattr(completion, "_request_id", None) or getattr(completion, "id", None),
        latency_ms=latency_ms,
        model=str(getattr(completion, "model", "") or ""),
    )
