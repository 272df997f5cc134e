"""A small HTTP/1.1 server on 127.0.0.1 for what the gate serves its agent programs: the recording
model proxy and the mock MCP server (``gate.programs.host``).

Standard library only, on the run's own event loop (its handlers call the runner's model path
directly, and it never touches signal handling). Keep-alive connections, ``Content-Length`` and
chunked request bodies (bounded: ``MAX_BODY_BYTES``), replies with a body or streamed chunk by chunk
(server-sent events). Only loopback: nothing else can reach it.

Why not the standard library's ``http.server`` (issue 37, "built twice"): its ``ThreadingHTTPServer``,
a thread per connection handing each request to the run's event loop (``bench/threaded_loopback.py``),
costs more CPU than this server on the loop and shows in the program's wall time. ``python
bench/run.py --only http_paths`` (the bench's agent program, 96 cases x 2 turns, concurrency 16, 300
ms latency): gate/direct 1.198 and 1.189 with this server, 1.313 and 1.250 with the threaded one
(slower in 5 of 6 rounds); CPU beyond the direct side's 1.19 s and 1.96 s with this one, 1.34 s and
2.19 s with the threaded one (more in every round: about 1 ms per request). That is 6-11% of the
program's wall, the size of DESIGN section 8's whole 10% budget (2026-11-29, 2 CPUs shared, load
average 1-17). Its chunked-body reader is the client's (``gate.providers.upstream_http``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from gate.providers.upstream_http import BodyTooLarge, read_chunked

MAX_BODY_BYTES = 32 * 1024 * 1024  # one request body (a long conversation with tools is a few MB)
MAX_HEAD_BYTES = 64 * 1024
_REASONS = {
    200: "OK",
    202: "Accepted",
    204: "No Content",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    406: "Not Acceptable",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


@dataclass(frozen=True)
class HttpRequest:
    method: str
    path: str  # percent-decoded, without the query
    headers: Mapping[str, str]  # names lower-cased
    body: bytes


@dataclass(frozen=True)
class HttpResponse:
    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    # When set, the body is sent chunk by chunk as it comes (``Transfer-Encoding: chunked``).
    stream: AsyncIterator[bytes] | None = None


Handler = Callable[[HttpRequest], Awaitable[HttpResponse]]


def json_response(status: int, value: object, headers: Mapping[str, str] | None = None) -> HttpResponse:
    body = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return HttpResponse(status, body, {"content-type": "application/json", **(headers or {})})


class _BadRequest(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class LoopbackServer:
    """``await start()``, then ``url``; ``await close()`` ends every connection."""

    def __init__(self, handler: Handler):
        self.handler = handler
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._connection, "127.0.0.1", 0, limit=MAX_HEAD_BYTES, backlog=1024
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self._server.wait_closed()
        self._server = None

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        try:
            while True:
                try:
                    request = await _read_request(reader)
                except _BadRequest as bad:
                    await _write(writer, json_response(bad.status, {"error": {"message": str(bad)}}), False)
                    break
                if request is None:
                    break
                keep_alive = request.headers.get("connection", "").lower() != "close"
                try:
                    response = await self.handler(request)
                except Exception as exc:  # a bug must not take the program's connection down silently
                    response = json_response(
                        500, {"error": {"message": f"internal error: {type(exc).__name__}"}}
                    )
                await _write(writer, response, keep_alive)
                if not keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            if task is not None:
                self._connections.discard(task)
            with contextlib.suppress(Exception):
                writer.close()


async def _read_request(reader: asyncio.StreamReader) -> HttpRequest | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None  # the client closed the connection between requests
    except asyncio.LimitOverrunError:
        raise _BadRequest(431, "request head too large") from None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        raise _BadRequest(400, "malformed request line")
    method, target, _ = parts
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        try:
            body = await read_chunked(reader, MAX_BODY_BYTES)
        except BodyTooLarge:
            raise _BadRequest(413, f"request body over {MAX_BODY_BYTES} bytes") from None
        except ValueError:
            raise _BadRequest(400, "bad chunk size") from None
    else:
        try:
            length = int(headers.get("content-length", "0") or 0)
        except ValueError:
            raise _BadRequest(400, "bad content-length") from None
        if length > MAX_BODY_BYTES or length < 0:
            raise _BadRequest(413, f"request body over {MAX_BODY_BYTES} bytes")
        body = await reader.readexactly(length)
    return HttpRequest(method.upper(), unquote(target.split("?", 1)[0]), headers, body)


async def _write(writer: asyncio.StreamWriter, response: HttpResponse, keep_alive: bool) -> None:
    headers = {k.lower(): v for k, v in response.headers.items()}
    headers["connection"] = "keep-alive" if keep_alive else "close"
    if response.stream is None:
        headers["content-length"] = str(len(response.body))
    else:
        headers["transfer-encoding"] = "chunked"
        headers.setdefault("cache-control", "no-cache")
    head = [f"HTTP/1.1 {response.status} {_REASONS.get(response.status, 'Status')}"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
    if response.stream is None:
        writer.write(response.body)
        await writer.drain()
        return
    await writer.drain()
    async for chunk in response.stream:
        if chunk:
            writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            await writer.drain()
    writer.write(b"0\r\n\r\n")
    await writer.drain()
