"""The gate with its loopback server (``gate.programs.loopback_http``) replaced by the standard
library's: ``http.server.ThreadingHTTPServer``, a thread per connection, each request's handler run
on the run's event loop (``asyncio.run_coroutine_threadsafe``) and a streamed reply fetched from it
chunk by chunk. What ``python bench/run.py --only http_paths`` measures the gate's own server
against; nothing else runs it.

    python bench/threaded_loopback.py run DIR ...     # as ``python -m gate run DIR ...``
"""

from __future__ import annotations

import asyncio
import runpy
import sys
import threading
from collections.abc import AsyncIterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, BinaryIO
from urllib.parse import unquote

from gate.programs import loopback_http
from gate.programs.loopback_http import MAX_BODY_BYTES, Handler, HttpRequest


def _read_chunked(stream: BinaryIO) -> bytes:
    chunks = []
    total = 0
    while True:
        size = int(stream.readline().strip().split(b";")[0], 16)
        if size == 0:
            while stream.readline() not in (b"\r\n", b""):
                pass
            return b"".join(chunks)
        total += size
        if total > MAX_BODY_BYTES:
            raise ValueError("body too large")
        chunks.append(stream.read(size))
        stream.read(2)


def _handler_class(handler: Handler, loop: asyncio.AbstractEventLoop) -> type[BaseHTTPRequestHandler]:
    class _Request(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _answer(self) -> None:
            headers = {name.lower(): value for name, value in self.headers.items()}
            if headers.get("transfer-encoding", "").lower() == "chunked":
                body = _read_chunked(self.rfile)
            else:
                body = self.rfile.read(int(headers.get("content-length") or 0))
            request = HttpRequest(self.command, unquote(self.path.split("?", 1)[0]), headers, body)
            response = asyncio.run_coroutine_threadsafe(handler(request), loop).result()
            self.send_response(response.status)
            for name, value in response.headers.items():
                self.send_header(name, value)
            if response.stream is None:
                self.send_header("content-length", str(len(response.body)))
                self.end_headers()
                self.wfile.write(response.body)
                return
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            self._stream(response.stream)

        def _stream(self, stream: AsyncIterator[bytes]) -> None:
            while True:
                try:
                    chunk = asyncio.run_coroutine_threadsafe(_next(stream), loop).result()
                except StopAsyncIteration:
                    break
                if chunk:
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")

        do_GET = do_POST = do_DELETE = do_PUT = _answer

    return _Request


async def _next(stream: AsyncIterator[bytes]) -> bytes:
    return await stream.__anext__()


class ThreadedLoopbackServer:
    """``gate.programs.loopback_http.LoopbackServer``'s face on ``ThreadingHTTPServer``."""

    def __init__(self, handler: Handler):
        self.handler = handler
        self.port = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        server = ThreadingHTTPServer(
            ("127.0.0.1", 0), _handler_class(self.handler, asyncio.get_running_loop())
        )
        server.daemon_threads = True
        self._server, self.port = server, server.server_address[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            await asyncio.to_thread(server.shutdown)
            server.server_close()


if __name__ == "__main__":
    # gate.programs.host takes the name when it is imported: before that, or it would keep the gate's.
    if "gate.programs.host" in sys.modules:
        raise SystemExit("gate.programs.host was imported before its server could be replaced")
    loopback_http.LoopbackServer = ThreadedLoopbackServer  # type: ignore[misc,assignment]
    runpy.run_module("gate", run_name="__main__", alter_sys=True)
