"""The small HTTP/1.1 client that forwards program requests (gate.providers.upstream_http): the reply
forms servers send, kept connections (and one the server closed meanwhile), and what is not a reply."""

from __future__ import annotations

import asyncio
import gzip
import ssl as ssl_module
from collections.abc import Awaitable, Callable

import pytest

from gate.providers.upstream_http import UpstreamClient, UpstreamError, UpstreamReply

Answer = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    return await reader.readexactly(length)


def _exchange(answer: Answer, bodies: list[bytes]) -> tuple[list[UpstreamReply], int]:
    """Post ``bodies`` one after another to a loopback server answering with ``answer``; the replies
    and the number of connections the server accepted."""
    accepted = 0

    async def go() -> list[UpstreamReply]:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal accepted
            accepted += 1
            await answer(reader, writer)

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions"
        client = UpstreamClient(timeout=5.0)
        try:
            return [await client.post(url, body, {"content-type": "application/json"}) for body in bodies]
        finally:
            await client.aclose()
            server.close()

    return asyncio.run(go()), accepted


def test_chunked_and_gzip_replies_on_one_kept_connection() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while not reader.at_eof():
            try:
                body = await _read_request(reader)
            except asyncio.IncompleteReadError:
                break
            packed = gzip.compress(b'{"echo": ' + body + b"}")
            half = len(packed) // 2
            writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-encoding: gzip\r\n\r\n")
            for chunk in (packed[:half], packed[half:]):
                writer.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        writer.close()

    replies, accepted = _exchange(answer, [b"1", b"2", b"3"])
    assert [(r.status, r.body) for r in replies] == [(200, b'{"echo": %s}' % n) for n in (b"1", b"2", b"3")]
    assert accepted == 1


def test_a_kept_connection_the_server_closed_is_retried_on_a_new_one() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        body = await _read_request(reader)
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\nx-request-id: r\r\n\r\n%s" % (len(body), body)
        )
        await writer.drain()
        writer.close()  # without saying so: the client finds out on its next request

    replies, accepted = _exchange(answer, [b"first", b"second"])
    assert [r.body for r in replies] == [b"first", b"second"] and replies[1].headers["x-request-id"] == "r"
    assert accepted == 2


def test_a_reply_without_a_length_is_read_to_the_close() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b'HTTP/1.0 503 Service Unavailable\r\nretry-after: 1\r\n\r\n{"error": {}}')
        await writer.drain()
        writer.close()

    replies, _ = _exchange(answer, [b"x", b"y"])
    assert [(r.status, r.body, r.headers["retry-after"]) for r in replies] == [
        (503, b'{"error": {}}', "1")
    ] * 2


def test_what_is_not_an_http_reply_is_an_error() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b"SSH-2.0-OpenSSH\r\n\r\n")
        await writer.drain()
        writer.close()

    with pytest.raises(UpstreamError, match="not an HTTP reply"):
        _exchange(answer, [b"x"])


def test_a_reply_without_a_length_sent_in_pieces_is_read_whole() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n" + b'{"choices": [')
        await writer.drain()
        await asyncio.sleep(0.05)  # the rest comes later, as a slow server's does
        writer.write(b'{"index": 0}]}')
        await writer.drain()
        writer.close()

    replies, _ = _exchange(answer, [b"x"])
    assert replies[0].body == b'{"choices": [{"index": 0}]}'


def test_https_trusts_the_certificates_the_sdk_trusts(monkeypatch: pytest.MonkeyPatch) -> None:
    """certifi's bundle, as the SDK's HTTP library uses, unless SSL_CERT_FILE or SSL_CERT_DIR say
    otherwise (a machine whose system store is empty still reaches the API)."""
    import certifi

    from gate.providers.upstream_http import tls_context

    loaded: list[dict[str, object]] = []
    real = ssl_module.create_default_context

    def spy(**kwargs: object) -> ssl_module.SSLContext:
        loaded.append(kwargs)
        return real()

    monkeypatch.setattr(ssl_module, "create_default_context", spy)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    tls_context()
    monkeypatch.setenv("SSL_CERT_DIR", "/etc/ssl/certs")
    tls_context()
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    tls_context()
    assert loaded == [
        {"cafile": certifi.where()},
        {"capath": "/etc/ssl/certs"},
        {"cafile": certifi.where()},
    ]
