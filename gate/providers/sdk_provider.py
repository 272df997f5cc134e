"""What the two SDK adapters share: the error mapping from SDK exceptions to ``ProviderError``, the
lazily created client, the per-tuple cache of converted tool definitions, and the timed call.

Each adapter (``openai_provider``, ``anthropic_provider``) says only what differs: how to create its
client, how to convert a tool and a request, which method sends it, and how to read the reply.
Neither SDK is imported here.
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from typing import Any

from gate.limits import REQUEST_TIMEOUT_SECONDS
from gate.providers.base import ModelReply, ModelRequest, ProviderError, classify_error
from gate.providers.wire_forward import WireForwarder
from gate.suite.model import ToolDef
from gate.util.escape import truncate
from gate.util.json_types import JsonObject


def error_from_exception(exc: BaseException, provider: str = "openai") -> ProviderError:
    """Map an SDK exception (openai or anthropic: they share the class names) to a ProviderError.

    The messages never include request headers, so an API key cannot leak through them."""
    from gate.providers.concurrency import retry_after_seconds

    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    message = short_message(exc)
    if name == "APITimeoutError" or isinstance(exc, TimeoutError):
        return ProviderError("timeout", f"{provider} request timed out", retryable=True)
    if name == "APIConnectionError" or isinstance(exc, ConnectionError):
        return ProviderError(
            "connection", f"could not connect to {provider}{_host(exc)}: {message}", retryable=True
        )
    if name == "APIResponseValidationError":
        return ProviderError(
            "malformed", f"malformed {provider} response: {message}", retryable=True, status=status
        )
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
                "rate_limit",
                f"rate limited: {message}",
                retryable=True,
                retry_after=retry_after,
                status=status,
            )
        if status in (408, 409) or status >= 500:
            return ProviderError(
                "server",
                f"{provider} server error: {message}",
                retryable=True,
                retry_after=retry_after,
                status=status,
            )
        param = rejected_parameter(exc)  # a gateway can quote any header there, the key included
        named = f" (parameter {_masked(param)!r})" if param else ""
        return ProviderError(
            "bad_request", f"{provider} rejected the request{named}: {message}", status=status
        )
    if isinstance(exc, TypeError) and "authentication" in str(exc).lower():
        # anthropic: no API key, auth token or credentials configured.
        return ProviderError("auth", f"no {provider} credentials configured: {message}", fatal=True)
    return ProviderError("malformed", f"{provider} call failed: {name}: {message}", retryable=True)


def _host(exc: BaseException) -> str:
    """`` at HOST[:PORT]`` of the request a connection error was for (never the URL's user info,
    path or query, so no credential), or nothing when the SDK did not attach the request."""
    url = getattr(getattr(exc, "request", None), "url", None)
    host = getattr(url, "host", None)
    if not isinstance(host, str) or not host:
        return ""
    port = getattr(url, "port", None)
    return f" at {host}" + (f":{port}" if isinstance(port, int) else "")


def rejected_parameter(exc: BaseException) -> str | None:
    """The request parameter an API error names (OpenAI's ``error.param``), if any."""
    body = getattr(exc, "body", None)
    err = body.get("error", body) if isinstance(body, dict) else None
    param = err.get("param") if isinstance(err, dict) else None
    return str(param) if param else None


def short_message(exc: BaseException) -> str:
    """The error's message, short, with every secret masked: servers do echo keys back
    ("Incorrect API key provided: sk-..."), and these messages end up in reports."""
    body = getattr(exc, "body", None)
    text = ""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            text = str(err["message"])
    return _masked(text or str(exc) or type(exc).__name__)


def _masked(text: str) -> str:
    """``text`` from an error body, short, with every secret of the environment masked."""
    from gate.util.redact import Redactor

    return truncate(Redactor.from_env(os.environ).redact(text), 300, brief=True)


class SdkProvider(ABC):
    """A provider over an official SDK client, created on the first request (so that ``--replay``
    never needs a key) with ``max_retries=0`` (the runner retries, under its adaptive limiter)."""

    name: str  # "openai" | "anthropic"
    title: str  # as people write it, for messages
    key_variable: str  # named in the error when the client cannot be created

    def __init__(self, *, timeout: float = REQUEST_TIMEOUT_SECONDS):
        self.timeout = timeout
        self._client: Any = None
        self._forwarder: WireForwarder | None = None
        self._forwarder_known = False
        self._tools_cache: dict[int, tuple[tuple[ToolDef, ...], list[JsonObject]]] = {}

    @abstractmethod
    def _new_client(self) -> Any:
        """The SDK's async client (imports the SDK)."""

    @abstractmethod
    def _tool_payload(self, tool: ToolDef) -> JsonObject:
        """One tool definition in the SDK's format."""

    @abstractmethod
    def build_arguments(self, request: ModelRequest) -> JsonObject:
        """The keyword arguments of the SDK call for ``request``."""

    @abstractmethod
    async def _send(self, client: Any, request: ModelRequest, kwargs: JsonObject) -> Any:
        """Send one request through the SDK."""

    @abstractmethod
    def _parse(self, request: ModelRequest, response: Any, latency_ms: float) -> ModelReply:
        """The neutral reply; malformed responses raise ``ProviderError``."""

    def _get_client(self) -> Any:
        if self._client is None:
            try:
                self._client = self._new_client()
            except Exception as exc:  # a missing API key and similar
                raise ProviderError(
                    "auth",
                    f"cannot create the {self.title} client (is {self.key_variable} set?): "
                    + short_message(exc),
                    fatal=True,
                ) from None
        return self._client

    def _tools(self, tools: tuple[ToolDef, ...]) -> list[JsonObject]:
        """The converted tools, once per tools tuple (every request of a suite shares one)."""
        cached = self._tools_cache.get(id(tools))
        if cached is not None and cached[0] is tools:
            return cached[1]
        payload = [self._tool_payload(t) for t in tools]
        self._tools_cache[id(tools)] = (tools, payload)
        return payload

    def _new_forwarder(self) -> WireForwarder | None:
        """What sends program requests without the SDK (``gate.providers.wire_forward``; None: the
        SDK's client sends them)."""
        return None

    def _get_forwarder(self) -> WireForwarder | None:
        if not self._forwarder_known:
            self._forwarder, self._forwarder_known = self._new_forwarder(), True
        return self._forwarder

    async def _send_wire(self, request: ModelRequest) -> Any:
        """Send an agent program's own body (``request.wire``) as it is, to the same endpoint its SDK
        call would use, parsed as that call's response."""
        forwarder = self._get_forwarder()
        if forwarder is not None:
            return await forwarder.post(
                self._wire_path(request), request.wire or {}, dict(request.wire_headers)
            )
        client = self._get_client()
        path, cast_to = self._wire_endpoint(request)
        headers = {"headers": dict(request.wire_headers)} if request.wire_headers else {}
        return await client.post(path, cast_to=cast_to, body=dict(request.wire or {}), options=headers)

    def _wire_path(self, request: ModelRequest) -> str:
        """The path of ``request``'s API (below the base URL)."""
        raise ProviderError("bad_request", f"{self.title} takes no program requests", fatal=True)

    def _wire_endpoint(self, request: ModelRequest) -> tuple[str, Any]:
        """The path of ``request``'s API and the SDK type of its response (imports the SDK)."""
        raise ProviderError("bad_request", f"{self.title} takes no program requests", fatal=True)

    async def complete(self, request: ModelRequest) -> ModelReply:
        wire = request.wire is not None
        client = None if wire else self._get_client()
        kwargs = {} if wire else self.build_arguments(request)
        started = time.perf_counter()
        try:
            response = await (self._send_wire(request) if wire else self._send(client, request, kwargs))
        except ProviderError:
            raise
        except Exception as exc:
            raise error_from_exception(exc, self.name) from None
        return self._parse(request, response, (time.perf_counter() - started) * 1000.0)

    def classify(self, exc: BaseException) -> Any:
        return classify_error(exc)

    async def aclose(self) -> None:
        if self._forwarder is not None:
            await self._forwarder.aclose()
        if self._client is not None:
            await self._client.close()
            self._client = None
