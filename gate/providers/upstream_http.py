"""A small HTTP/1.1 client on asyncio for the one kind of request the gate forwards as it is: an agent
program's JSON body posted to its model API (``gate.providers.wire_forward``).

Standard library only: ``http`` and ``https`` (the certificates the SDK's HTTP library trusts:
``SSL_CERT_FILE``, else ``SSL_CERT_DIR``, else certifi's bundle, see :func:`tls_context`),
keep-alive connections reused per host (a reused connection the server had closed is retried once
on a new one), replies by ``Content-Length``, chunked, or up to the close, ``gzip`` / ``deflate``
bodies. ``timeout`` bounds connecting and each wait for the server. No proxies and no redirects:
the forwarder is used only where no proxy applies (``wire_forward.proxied``), and an API that
answers a POST with a redirect gets its status reported.

Why it stays beside the SDK (issue 37, "built twice"): the SDK's client costs the gate CPU that turns
into wall time when the agent programs keep the machine busy. ``python bench/run.py --only
http_paths`` runs the bench's agent program (96 cases x 2 turns, concurrency 16, 300 ms latency)
directly and through the gate, once as it is and once with every program request sent through the
openai SDK instead (``OPENAI_CUSTOM_HEADERS`` set): gate/direct 1.198 and 1.189 as it is, 1.617 and
1.593 through the SDK; CPU beyond the direct side's 1.19 s and 1.96 s as it is, 2.43 s and 3.13 s
through the SDK, about 6 ms per request more (2026-11-29, 2 CPUs shared, load average 1-17; DESIGN
section 8's budget is 1.10). The SDK still sends everything else (``gate.providers.wire_forward``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

MAX_HEAD_BYTES = 64 * 1024
MAX_BODY_BYTES = 32 * 1024 * 1024  # a model's reply (a long answer with reasoning is a few MB)
_IDLE_PER_HOST = 100


class UpstreamError(Exception):
    """The request did not get a reply (refused, reset, malformed)."""


class BodyTooLarge(ValueError):
    """A body over the limit its reader was given."""


@dataclass(frozen=True)
class UpstreamReply:
    status: int
    headers: Mapping[str, str]  # names lower-cased
    body: bytes


async def read_chunked(reader: asyncio.StreamReader, limit: int) -> bytes:
    """A chunked body (``Transfer-Encoding: chunked``), its trailers skipped; ValueError when it is
    malformed, BodyTooLarge when it is over ``limit`` bytes."""
    chunks: list[bytes] = []
    total = 0
    while True:
        line = await reader.readuntil(b"\r\n")
        size = int(line.strip().split(b";")[0], 16)  # ValueError when it is not a size
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                pass
            return b"".join(chunks)
        total += size
        if total > limit:
            raise BodyTooLarge(f"body over {limit} bytes")
        chunks.append(await reader.readexactly(size))
        await reader.readexactly(2)


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


@dataclass
class UpstreamClient:
    """``await post(url, body, headers)``; ``await aclose()`` ends the idle connections."""

    timeout: float
    _idle: dict[tuple[str, str, int], list[_Connection]] = field(default_factory=dict)
    _tls: ssl.SSLContext | None = None

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> UpstreamReply:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UpstreamError(f"not an http(s) URL: {parts.scheme}://{parts.hostname or ''}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        key = (parts.scheme, parts.hostname, port)
        host = parts.netloc.rpartition("@")[2]
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = [f"POST {target} HTTP/1.1", f"host: {host}", f"content-length: {len(body)}"]
        head += [f"{name}: {value}" for name, value in headers.items()]
        request = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
        idle = self._idle.get(key)
        if idle:  # a kept connection the server may have closed since: one more try on a new one
            connection = idle.pop()
            try:
                return await self._exchange(key, connection, request)
            except (ConnectionError, asyncio.IncompleteReadError):
                connection.close()
        return await self._exchange(key, await self._connect(key), request)

    async def _connect(self, key: tuple[str, str, int]) -> _Connection:
        scheme, hostname, port = key
        tls = None
        if scheme == "https":
            tls = self._tls = self._tls or tls_context()
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(hostname, port, ssl=tls, limit=MAX_HEAD_BYTES), self.timeout
        )
        return _Connection(reader, writer)

    async def _exchange(
        self, key: tuple[str, str, int], connection: _Connection, request: bytes
    ) -> UpstreamReply:
        keep = False
        try:
            connection.writer.write(request)
            await asyncio.wait_for(connection.writer.drain(), self.timeout)
            reply, keep = await asyncio.wait_for(_read_reply(connection.reader), self.timeout)
            return reply
        finally:
            if keep and len(self._idle.setdefault(key, [])) < _IDLE_PER_HOST:
                self._idle[key].append(connection)
            else:
                connection.close()

    async def aclose(self) -> None:
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()


async def _read_reply(reader: asyncio.StreamReader) -> tuple[UpstreamReply, bool]:
    """The reply on ``reader`` and whether the connection can be kept."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise UpstreamError("reply head too large") from None
    lines = head.decode("latin-1").split("\r\n")
    status_line = lines[0].split(" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith("HTTP/") or not status_line[1].isdigit():
        raise UpstreamError(f"not an HTTP reply: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    keep = headers.get("connection", "").lower() != "close" and status_line[0] != "HTTP/1.0"
    try:
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = await read_chunked(reader, MAX_BODY_BYTES)
        elif "content-length" in headers:
            length = int(headers["content-length"])
            if not 0 <= length <= MAX_BODY_BYTES:
                raise ValueError(f"content-length {length}")
            body = await reader.readexactly(length)
        else:  # up to the close
            body, keep = await _read_to_close(reader, MAX_BODY_BYTES), False
        body = _decoded(body, headers.get("content-encoding", "").lower())
    except (ValueError, zlib.error) as exc:
        raise UpstreamError(f"malformed reply: {exc}") from None
    return UpstreamReply(int(status_line[1]), headers, body), keep


async def _read_to_close(reader: asyncio.StreamReader, limit: int) -> bytes:
    """Everything until the server closes the connection (``read(n)`` returns what has come so far,
    not the whole body); ValueError when it is over ``limit`` bytes."""
    chunks: list[bytes] = []
    total = 0
    while chunk := await reader.read(64 * 1024):
        total += len(chunk)
        if total > limit:
            raise ValueError(f"body over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def tls_context() -> ssl.SSLContext:
    """The certificates the SDK's HTTP library trusts: ``SSL_CERT_FILE``, else ``SSL_CERT_DIR``, else
    certifi's bundle (installed with the SDK; the system's store when it is missing). A machine whose
    system store is empty (a Python from python.org on macOS) reaches the API as through the SDK."""
    if os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    if os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


def _decoded(body: bytes, encoding: str) -> bytes:
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompress(body, 16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompress(body)
    return body
