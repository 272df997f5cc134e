"""Provider-neutral model requests and replies, the provider protocol and provider errors.

Everything the evaluator sends to a model is a ``ModelRequest``; everything it gets back is a
``ModelReply``. The two adapters (``openai_provider``, ``anthropic_provider``) translate them to and
from their SDK and are the only modules that import an SDK. This module imports neither.

A request's messages are the typed messages of ``gate.results.messages`` (the system prompt apart),
made encodable as they are sent (``sendable``). Every adapter sends call arguments that are not a
JSON object back as ``{}`` (``sent_arguments``): servers refuse a history they cannot parse, and
the model's mistake is scored, not repeated to it. An assistant turn's ``reasoning`` (the
provider's own blocks) goes back unchanged, as the APIs require, and is never scored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from gate.errors import EXIT_INCOMPLETE, GateError
from gate.results.messages import AssistantMessage, Message, ToolCall, ToolResult
from gate.results.run_record import Usage
from gate.suite.model import Api, ModelParams, ToolDef
from gate.util.json_types import JsonObject

if TYPE_CHECKING:  # pragma: no cover
    from gate.providers.concurrency import Classified

# How a request forces its ``forced_tool``: by naming it (``{"type": "function", ...}``,
# ``{"type": "tool", ...}``), or, with that one tool offered, by requiring a tool call (``"required"``,
# ``{"type": "any"}``), the form more servers honour (llama.cpp ignores a named one).
ForceForm = Literal["required", "named"]

# The stop reasons with which the APIs say a reply was cut at its output-token limit: Chat Completions
# ``length``, Anthropic ``max_tokens``, the Responses API's incomplete ``max_output_tokens``.
CUT_STOP_REASONS = frozenset({"length", "max_tokens", "max_output_tokens"})

ErrorKind = Literal[
    "auth", "rate_limit", "server", "timeout", "connection", "bad_request", "malformed", "replay_miss"
]

REPLAY_MISS_MESSAGE = "no recorded response for this request; run with --record"


class ProviderError(GateError):
    """A model call failed. ``fatal`` errors (authentication, unknown model/endpoint) stop the whole
    run (exit 3); the others are retried when ``retryable`` and otherwise recorded on the trial."""

    exit_code = EXIT_INCOMPLETE

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        fatal: bool = False,
        retryable: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
    ):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.fatal = fatal
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status

    def __str__(self) -> str:
        prefix = f"{self.kind}" + (f" (HTTP {self.status})" if self.status else "")
        return f"{prefix}: {self.message}"


class BudgetReached(GateError):
    """No more model requests may be started: ``max_requests`` or ``max_cost_usd`` was reached."""

    exit_code = EXIT_INCOMPLETE


def tool_material(tool: ToolDef) -> JsonObject:
    """What of a tool definition is sent to the model (its source location is not)."""
    return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}


def params_material(params: ModelParams) -> JsonObject:
    material: JsonObject = {
        "temperature": params.temperature,
        "max_tokens": params.max_tokens,
        "tool_choice": params.tool_choice,
        "parallel_tool_calls": params.parallel_tool_calls,
        "seed": params.seed,
        "top_p": params.top_p,
    }
    # Newer settings only when set, so the keys of requests that do not use them stay as they were.
    optional = {
        "max_completion_tokens": params.max_completion_tokens,
        "max_output_tokens": params.max_output_tokens,
        "reasoning_effort": params.reasoning_effort,
        "verbosity": params.verbosity,
        "thinking_budget": params.thinking_budget,
        "stop": list(params.stop) or None,
        "extra_body": params.extra_body or None,
    }
    material.update({k: v for k, v in optional.items() if v is not None})
    return material


@dataclass(frozen=True)
class ModelRequest:
    """One request to a model, independent of the provider that will serve it. Its ``messages`` are
    made encodable (``sendable``) when it is made: a model may write a lone surrogate, which the
    record keeps and the next request must not."""

    provider: str
    model: str
    system: str | None
    messages: tuple[Message, ...]
    tools: tuple[ToolDef, ...]
    params: ModelParams
    # A tool the model must call (judges answer through a forced tool call). Overrides tool_choice.
    forced_tool: str | None = None
    api: Api = "chat"  # OpenAI only: Chat Completions or the Responses API
    # How ``forced_tool`` is forced: "required" (when it is the only tool offered) or by its name.
    force_by: ForceForm = "required"
    # The body an agent program sent through the recording proxy (gate.programs.model_proxy), in the
    # API of ``provider`` and ``api``: when set it goes upstream as it is (with ``wire_headers``, the
    # request headers that change the answer, e.g. anthropic-beta), and it alone keys the cache.
    wire: Mapping[str, Any] | None = None
    wire_headers: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        sent = tuple(sendable_message(m) for m in self.messages)
        if any(a is not b for a, b in zip(sent, self.messages, strict=True)):
            object.__setattr__(self, "messages", sent)

    def cache_key_material(self) -> JsonObject:
        """Everything that changes the answer, and nothing else: never an API key or a base URL. The
        named form of forcing a tool is a key of its own (a server may ignore one form and answer
        anyhow); the first form keeps the key forced requests always had."""
        api = {"api": self.api} if self.api != "chat" else {}
        if self.wire is not None:
            headers = {"headers": dict(self.wire_headers)} if self.wire_headers else {}
            return {**api, "provider": self.provider, "wire": dict(self.wire), **headers}
        force_by = {"force_by": self.force_by} if self.forced_tool and self.force_by != "required" else {}
        return {
            **api,
            "provider": self.provider,
            "model": self.model,
            "params": params_material(self.params),
            "system": self.system,
            "messages": [key_message(m) for m in self.messages],
            "tools": [tool_material(t) for t in self.tools],
            "forced_tool": self.forced_tool,
            **force_by,
        }

    @property
    def forced_by_requiring(self) -> bool:
        """Whether ``forced_tool`` goes out as "a tool call is required" (it is the only tool)."""
        return self.force_by == "required" and len(self.tools) == 1 and self.tools[0].name == self.forced_tool


@dataclass(frozen=True)
class ModelReply:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    stop_reason: str = ""
    request_id: str | None = None
    # How long the provider took to answer (ms), kept in the cache so replays report real latency.
    latency_ms: float | None = None
    # The provider's reasoning blocks (Anthropic thinking, Responses reasoning items), as received.
    reasoning: tuple[JsonObject, ...] = ()
    # Of usage.input_tokens, those read from the provider's prompt cache (priced at cached_input).
    cached_input_tokens: int = 0
    # The model the server says answered ("" when it named none): a dated snapshot of the model
    # asked for, or whatever model file a local server loaded.
    model: str = ""

    @property
    def cut(self) -> bool:
        """Whether the reply was cut at the output-token limit (its text or last call incomplete)."""
        return self.stop_reason in CUT_STOP_REASONS

    def message(self) -> AssistantMessage:
        """The reply as the assistant's turn of a conversation: its text, its calls, its reasoning
        (the blocks to send back and their readable text), and the provider's stop reason when it
        was cut at its token limit."""
        return AssistantMessage(
            self.text,
            tool_calls=self.tool_calls,
            thinking=reasoning_text(self.reasoning) if self.reasoning else "",
            reasoning=self.reasoning,
            finish_reason=self.stop_reason if self.cut else "",
        )

    def to_dict(self) -> JsonObject:
        reasoning = {"reasoning": list(self.reasoning)} if self.reasoning else {}
        return {
            **reasoning,
            "text": self.text,
            "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls],
            "usage": {
                "input_tokens": self.usage.input_tokens,
                "output_tokens": self.usage.output_tokens,
                **({"cached_input_tokens": self.cached_input_tokens} if self.cached_input_tokens else {}),
            },
            "stop_reason": self.stop_reason,
            "request_id": self.request_id,
            "latency_ms": self.latency_ms,
            **({"model": self.model} if self.model else {}),
        }

    @classmethod
    def from_dict(cls, data: JsonObject) -> ModelReply:
        usage = data.get("usage") or {}
        return cls(
            text=str(data.get("text") or ""),
            tool_calls=tuple(
                ToolCall(
                    id=str(c.get("id", "")),
                    name=str(c.get("name", "")),
                    arguments=str(c.get("arguments", "")),
                )
                for c in data.get("tool_calls") or ()
            ),
            usage=Usage(int(usage.get("input_tokens", 0) or 0), int(usage.get("output_tokens", 0) or 0)),
            cached_input_tokens=int(usage.get("cached_input_tokens", 0) or 0),
            stop_reason=str(data.get("stop_reason") or ""),
            request_id=data.get("request_id"),
            latency_ms=data.get("latency_ms"),
            reasoning=tuple(b for b in data.get("reasoning") or () if isinstance(b, dict)),
            model=str(data.get("model") or ""),
        )


class Provider(Protocol):
    """A model provider: ``complete`` raises ``ProviderError`` (never an SDK exception)."""

    name: str

    async def complete(self, request: ModelRequest) -> ModelReply: ...

    def classify(self, exc: BaseException) -> Classified: ...

    async def aclose(self) -> None: ...


def reasoning_text(blocks: tuple[JsonObject, ...] | list[JsonObject]) -> str:
    """What of the reasoning blocks a reader can see: Anthropic thinking text, Responses summaries."""
    parts: list[str] = []
    for block in blocks:
        if block.get("type") == "thinking":
            parts.append(str(block.get("thinking") or ""))
        elif block.get("type") == "redacted_thinking":
            parts.append("(redacted thinking)")
        elif block.get("type") == "reasoning":
            parts.extend(str(s.get("text") or "") for s in block.get("summary") or () if isinstance(s, dict))
    return "\n".join(p for p in parts if p)


def arguments_object(raw: str) -> JsonObject | None:
    """A call's argument text as the JSON object it is, or None when it is no JSON object (``NaN``
    and ``Infinity`` are no JSON either). No text at all is no arguments: an empty object."""
    import json

    if not raw or not raw.strip():
        return {}
    try:
        value = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def sent_arguments(raw: str) -> str:
    """A call's arguments as they go back to the model in the history: as the model wrote them when
    they are a JSON object, else ``{}``. Servers refuse a history they cannot parse (llama.cpp with a
    500) and a model shown its own broken text learns nothing; the call is scored as the agent's
    invalid arguments all the same."""
    return raw if raw and arguments_object(raw) is not None else "{}"


def classify_error(exc: BaseException) -> Classified:
    """How the retry loop treats an exception raised by ``Provider.complete``."""
    from gate.providers.concurrency import Classified

    if isinstance(exc, ProviderError):
        return Classified(
            retryable=exc.retryable and not exc.fatal,
            rate_limited=exc.kind == "rate_limit",
            retry_after=exc.retry_after,
            timed_out=exc.kind == "timeout",
        )
    return Classified(retryable=False, rate_limited=False, retry_after=None)


def sendable(value: Any) -> Any:
    """``value`` with every lone UTF-16 surrogate (a model can send ``"\\ud800"`` in its JSON)
    replaced by U+FFFD, so that a request can be encoded; anything else unchanged (the same object
    when nothing changes)."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, dict):
        items = [(sendable(k), sendable(v)) for k, v in value.items()]
        changed = any(a[0] is not k or a[1] is not v for a, (k, v) in zip(items, value.items(), strict=True))
        return dict(items) if changed else value
    if isinstance(value, list):
        values = [sendable(v) for v in value]
        return values if any(a is not b for a, b in zip(values, value, strict=True)) else value
    return value


def _sendable_call(call: ToolCall) -> ToolCall:
    fields = (sendable(call.id), sendable(call.name), sendable(call.arguments))
    if all(a is b for a, b in zip(fields, (call.id, call.name, call.arguments), strict=True)):
        return call
    return ToolCall(*fields)


def sendable_message(message: Message) -> Message:
    """``message`` with its texts made encodable (``sendable``); the same message when they are."""
    content = sendable(message.content)
    if isinstance(message, AssistantMessage):
        calls = tuple(_sendable_call(c) for c in message.tool_calls)
        if content is message.content and all(a is b for a, b in zip(calls, message.tool_calls, strict=True)):
            return message
        return replace(message, content=content, tool_calls=calls)
    if isinstance(message, ToolResult):
        call_id, name = sendable(message.call_id), sendable(message.name)
        if content is message.content and call_id is message.call_id and name is message.name:
            return message
        return replace(message, call_id=call_id, name=name, content=content)
    return message if content is message.content else replace(message, content=content)


def key_message(message: Message) -> JsonObject:
    """A request's message as its cache key holds it (the key of every answer recorded so far)."""
    if isinstance(message, AssistantMessage):
        key: JsonObject = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            key["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls
            ]
        if message.reasoning:
            key["reasoning"] = list(message.reasoning)
        return key
    if isinstance(message, ToolResult):
        return {
            "role": "tool",
            "call_id": message.call_id,
            "name": message.name,
            "content": message.content,
            "is_error": message.is_error,
        }
    return {"role": message.role, "content": message.content}
