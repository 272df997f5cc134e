"""The OpenAI adapter (and every OpenAI-compatible server: Azure, vLLM, Ollama, llama.cpp, LM Studio).

The SDK reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` from the environment; a suite can never set
either. The SDK's own retries are off (``max_retries=0``): the runner retries with its adaptive
limiter, so a 429 is never retried twice over. The ``openai`` package is imported only when the
first request is sent, so that ``--replay`` runs and ``validate`` never pay for it or need a key.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from gate.providers.base import (
    ModelReply,
    ModelRequest,
    ProviderError,
    ToolCall,
    classify_error,
    tool_result_text,
)
from gate.run_record import Usage
from gate.suite_model import ToolDef

DEFAULT_TIMEOUT = 60.0
# Model families that reject ``max_tokens`` and want ``max_completion_tokens`` instead.
_COMPLETION_TOKENS_PREFIXES = ("o1", "o3", "o4", "gpt-5")


def _tool_payload(tool: ToolDef) -> dict[str, Any]:
    from gate.tool_formats import to_openai

    return to_openai(tool)


def openai_messages(system: str | None, messages: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """Neutral messages in the chat-completions format."""
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    for message in messages:
        role = message["role"]
        if role == "tool" and not message.get("call_id"):  # a tool result written in a case's conversation
            out.append({"role": "user", "content": f"Tool result: {tool_result_text(message.get('content', ''))}"})
        elif role == "tool":
            content = tool_result_text(message.get("content", ""))
            if message.get("is_error") and not content.lower().startswith("error"):
                content = f"Error: {content}"
            out.append({"role": "tool", "tool_call_id": message["call_id"], "content": content})
        elif role == "assistant" and message.get("tool_calls"):
            out.append(
                {
                    "role": "assistant",
                    "content": message.get("content") or None,
                    "tool_calls": [
                        {
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["name"], "arguments": call["arguments"]},
                        }
                        for call in message["tool_calls"]
                    ],
                }
            )
        else:
            out.append({"role": role, "content": message.get("content", "")})
    return out


def openai_tool_choice(choice: str | None, forced_tool: str | None) -> Any:
    if forced_tool:
        return {"type": "function", "function": {"name": forced_tool}}
    if choice is None or choice in ("auto", "required", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def error_from_exception(exc: BaseException, provider: str = "openai") -> ProviderError:
    """Map an SDK exception (openai or anthropic: they share the class names) to a ProviderError.

    The messages never include request headers, so an API key cannot leak through them."""
    from gate.concurrency import retry_after_seconds

    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    message = _short_message(exc)
    if name == "APITimeoutError" or isinstance(exc, TimeoutError):
        return ProviderError("timeout", f"{provider} request timed out", retryable=True)
    if name == "APIConnectionError" or isinstance(exc, ConnectionError):
        return ProviderError("connection", f"could not connect to {provider}: {message}", retryable=True)
    if name == "APIResponseValidationError":
        return ProviderError("malformed", f"malformed {provider} response: {message}", retryable=True, status=status)
    if isinstance(status, int):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) or {}
        retry_after = retry_after_seconds(headers)
        if status in (401, 403):
            return ProviderError(
                "auth", f"{provider} rejected the credentials: {message}", fatal=True, status=status
            )
        if status == 404:
            return ProviderError(
                "bad_request", f"{provider} endpoint or model not found: {message}", fatal=True, status=status
            )
        if status == 429:
            return ProviderError(
                "rate_limit", f"rate limited: {message}", retryable=True, retry_after=retry_after, status=status
            )
        if status in (408, 409) or status >= 500:
            return ProviderError(
                "server", f"{provider} server error: {message}", retryable=True, retry_after=retry_after, status=status
            )
        return ProviderError("bad_request", f"{provider} rejected the request: {message}", status=status)
    if isinstance(exc, TypeError) and "authentication" in str(exc).lower():
        # anthropic: no API key, auth token or credentials configured.
        return ProviderError("auth", f"no {provider} credentials configured: {message}", fatal=True)
    return ProviderError("malformed", f"{provider} call failed: {name}: {message}", retryable=True)


def _short_message(exc: BaseException) -> str:
    """The error's message, short, with every secret masked: servers do echo keys back
    ("Incorrect API key provided: sk-..."), and these messages end up in reports."""
    from gate.redact import Redactor

    body = getattr(exc, "body", None)
    text = ""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            text = str(err["message"])
    text = text or str(exc) or type(exc).__name__
    return Redactor.from_env(os.environ).redact(text)[:300]


class OpenAIProvider:
    """Chat completions through ``openai.AsyncOpenAI``."""

    name = "openai"

    def __init__(self, *, timeout: float = DEFAULT_TIMEOUT):
        self.timeout = timeout
        self._client: Any = None
        self._tools_cache: dict[int, tuple[tuple[ToolDef, ...], list[dict[str, Any]]]] = {}

    def _get_client(self) -> Any:
        if self._client is None:
            try:
                import openai

                self._client = openai.AsyncOpenAI(max_retries=0, timeout=self.timeout)
            except Exception as exc:  # missing OPENAI_API_KEY and similar
                raise ProviderError(
                    "auth", f"cannot create the OpenAI client (is OPENAI_API_KEY set?): {_short_message(exc)}", fatal=True
                ) from None
        return self._client

    def _tools(self, tools: tuple[ToolDef, ...]) -> list[dict[str, Any]]:
        cached = self._tools_cache.get(id(tools))
        if cached is not None and cached[0] is tools:
            return cached[1]
        payload = [_tool_payload(t) for t in tools]
        self._tools_cache[id(tools)] = (tools, payload)
        return payload

    def build_arguments(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for ``request``."""
        params = request.params
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": openai_messages(request.system, request.messages),
        }
        if request.tools:
            kwargs["tools"] = self._tools(request.tools)
            choice = openai_tool_choice(params.tool_choice, request.forced_tool)
            if choice is not None:
                kwargs["tool_choice"] = choice
            if params.parallel_tool_calls is not None and not request.forced_tool:
                kwargs["parallel_tool_calls"] = params.parallel_tool_calls
        if params.temperature is not None:
            kwargs["temperature"] = params.temperature
        if params.top_p is not None:
            kwargs["top_p"] = params.top_p
        if params.seed is not None:
            kwargs["seed"] = params.seed
        if params.max_tokens is not None:
            if request.model.startswith(_COMPLETION_TOKENS_PREFIXES):
                kwargs["max_completion_tokens"] = params.max_tokens
            else:
                kwargs["max_tokens"] = params.max_tokens
        return kwargs

    async def complete(self, request: ModelRequest) -> ModelReply:
        client = self._get_client()
        kwargs = self.build_arguments(request)
        started = time.perf_counter()
        try:
            completion = await client.chat.completions.create(**kwargs)
        except ProviderError:
            raise
        except Exception as exc:
            raise error_from_exception(exc, "openai") from None
        latency_ms = (time.perf_counter() - started) * 1000.0
        return parse_completion(completion, latency_ms)

    def classify(self, exc: BaseException) -> Any:
        return classify_error(exc)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


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
        calls.append(ToolCall(id=getattr(call, "id", None) or f"call_{position}", name=name, arguments=raw or ""))
    usage = getattr(completion, "usage", None)
    return ModelReply(
        text=getattr(message, "content", None) or "",
        tool_calls=tuple(calls),
        usage=Usage(
            int(getattr(usage, "prompt_tokens", 0) or 0),
            int(getattr(usage, "completion_tokens", 0) or 0),
        ),
        stop_reason=str(getattr(choice, "finish_reason", "") or ""),
        request_id=getattr(completion, "_request_id", None) or getattr(completion, "id", None),
        latency_ms=latency_ms,
    )
