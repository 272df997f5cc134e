"""Sending an agent program's own request body upstream without the SDK's client (DESIGN section 10,
"The gate sees the model, not the agent"; section 8, the program within 10% of talking directly).

The recording proxy forwards the program's body as it is: the SDK would add nothing to it but its
headers, and its CPU turns into wall time when the programs keep the machine busy (importing
``openai`` is about 0.3 s of CPU, and each request through its client about 1.2 ms, against about
0.1 ms through ``gate.providers.upstream_http``). So an OpenAI-compatible upstream configured the
documented way (``OPENAI_API_KEY``, with ``OPENAI_BASE_URL``, ``OPENAI_ORG_ID``,
``OPENAI_PROJECT_ID``, read as the SDK reads them) gets the body from that small client, with the
headers the SDK would send. The reply is read as JSON into a :class:`JsonView`, which the adapters'
parsers read as they read the SDK's objects (the same ``ModelReply``); its failures become exceptions
that :func:`gate.providers.sdk_provider.error_from_exception` maps as it maps the SDK's (same kinds,
statuses, ``retry-after`` and messages). Any other configuration keeps going through the SDK: no key
in the environment (the SDK's own error, or its other credentials), ``OPENAI_CUSTOM_HEADERS``, an
HTTP proxy, and Anthropic (its SDK discovers credentials from profiles too).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

from gate import __version__
from gate.providers.upstream_http import UpstreamClient, UpstreamError

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"


class JsonView(dict):  # type: ignore[type-arg]
    """A JSON object whose keys also read as attributes, as the SDK's response objects do:
    ``getattr(view, "choices", None)`` is the key's value (objects in it are views too), or the
    default when the key is absent; ``_request_id`` is the request's id from the reply's headers."""

    _request_id: str | None = None

    def __getattr__(self, name: str) -> Any:
        try:
            return view(self[name])
        except KeyError:
            raise AttributeError(name) from None

    def model_dump(self, exclude_none: bool = False) -> dict[str, Any]:
        """The plain object, as the SDK's ``model_dump`` gives it (without nulls, when asked)."""
        plain: dict[str, Any] = _plain(self, exclude_none)
        return plain


def view(value: Any) -> Any:
    """``value`` with its JSON objects readable as attributes (see :class:`JsonView`)."""
    if isinstance(value, dict) and not isinstance(value, JsonView):
        return JsonView(value)
    if isinstance(value, list):
        return [view(item) for item in value]
    return value


def _plain(value: Any, exclude_none: bool) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v, exclude_none) for k, v in value.items() if not (exclude_none and v is None)}
    if isinstance(value, list):
        return [_plain(item, exclude_none) for item in value]
    return value


class StatusError(Exception):
    """The upstream answered with an error status: read as the SDK's ``APIStatusError`` is (``body``
    is the reply's ``error`` object, or the whole reply when it has none)."""

    def __init__(self, status_code: int, reply: Any, headers: Mapping[str, str]):
        super().__init__(f"Error code: {status_code} - {reply}")
        self.status_code = status_code
        self.body = reply.get("error", reply) if isinstance(reply, dict) else reply
        self.response = SimpleNamespace(headers=headers)


class UpstreamConnectionError(ConnectionError):
    """The upstream could not be reached: read as the SDK's ``APIConnectionError`` is (``request``
    says where it went: its ``url``'s host, and its port unless the scheme's own)."""

    def __init__(self, url: str):
        super().__init__("Connection error.")
        parts = urlsplit(url)
        port = None if parts.port in (None, 443 if parts.scheme == "https" else 80) else parts.port
        self.request = SimpleNamespace(url=SimpleNamespace(host=parts.hostname, port=port))


class UpstreamTimeout(TimeoutError):
    """The upstream did not answer in time: read as the SDK's ``APITimeoutError`` is."""


@dataclass
class WireForwarder:
    """Posts program bodies to ``base_url`` with ``headers``; ``request_id_header`` names the reply
    header the SDK reads as the request's id."""

    base_url: str
    headers: dict[str, str]
    timeout: float
    request_id_header: str
    _client: UpstreamClient | None = field(default=None, repr=False)

    async def post(self, path: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> Any:
        """The reply to ``body`` at ``path``, as a :class:`JsonView` (or whatever JSON it was)."""
        client = self._client = self._client or UpstreamClient(self.timeout)
        # Encoded as the SDK's HTTP library encodes it (the same bytes upstream).
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        url = self.base_url.rstrip("/") + path
        try:
            reply = await client.post(url, content, {**self.headers, **headers})
        except asyncio.TimeoutError:
            raise UpstreamTimeout("Request timed out.") from None
        except (OSError, UpstreamError, asyncio.IncompleteReadError):  # refused, reset, malformed
            raise UpstreamConnectionError(url) from None
        if reply.status >= 300:
            try:
                data = json.loads(reply.body)
            except ValueError:
                data = reply.body.decode("utf-8", "replace")
            raise StatusError(reply.status, data, reply.headers)
        answer = view(json.loads(reply.body))  # a reply that is not JSON: malformed, as through the SDK
        if isinstance(answer, JsonView):
            answer._request_id = reply.headers.get(self.request_id_header)
        return answer

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def proxied(env: Mapping[str, str]) -> bool:
    """Whether ``env`` configures an HTTP proxy (then the SDK, which reads proxies, sends)."""
    names = ("https_proxy", "http_proxy", "all_proxy")
    return any(env.get(name) or env.get(name.upper()) for name in names)


def openai_forwarder(env: Mapping[str, str], timeout: float) -> WireForwarder | None:
    """The forwarder for OpenAI-compatible program requests under ``env`` (None: they go through the
    SDK, which reads the configurations this does not)."""
    key = env.get("OPENAI_API_KEY")
    if not key or env.get("OPENAI_CUSTOM_HEADERS") or proxied(env):
        return None
    headers = {
        "authorization": f"Bearer {key}",
        "content-type": "application/json",
        "accept": "application/json",
        "user-agent": f"tool-eval-gate/{__version__}",
    }
    if env.get("OPENAI_ORG_ID"):
        headers["openai-organization"] = env["OPENAI_ORG_ID"]
    if env.get("OPENAI_PROJECT_ID"):
        headers["openai-project"] = env["OPENAI_PROJECT_ID"]
    base_url = env.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE_URL
    return WireForwarder(base_url, headers, timeout, "x-request-id")
