"""An agent program's requests forwarded without the SDK's client (gate.providers.wire_forward): the
same replies and the same errors as through the SDK, the headers the SDK sends, the SDK not imported,
and the configurations the forwarder leaves to the SDK."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import subprocess
import sys
from typing import Any

import pytest

from gate.providers.base import ModelReply, ModelRequest, ProviderError
from gate.providers.openai_provider import OpenAIProvider
from gate.providers.wire_forward import JsonView, WireForwarder, openai_forwarder
from gate.suite.model import ModelParams

SCRIPT = {
    "rules": [
        {"when": {"last_user": "weather", "turn": 1}, "tool_calls": [{"name": "w", "arguments": {"c": "P"}}]},
        {"when": {"after_tool": "w"}, "text": "It is {result.t} degrees."},
    ],
    "default": {"text": "plain answer"},
}
TOOL = {"type": "function", "function": {"name": "w", "parameters": {"type": "object", "properties": {}}}}
CHAT = {"model": "m", "messages": [{"role": "user", "content": "weather?"}], "tools": [TOOL]}
RESPONSES = {
    "model": "m",
    "input": "weather?",
    "tools": [{"type": "function", "name": "w", "parameters": {}}],
}


class ThroughSdk(OpenAIProvider):
    """The adapter as it was: every program request through the SDK's client."""

    def _new_forwarder(self) -> WireForwarder | None:
        return None


def _wire(body: dict[str, Any], api: str = "chat") -> ModelRequest:
    return ModelRequest("openai", "m", None, (), (), ModelParams(), api=api, wire=body)  # type: ignore[arg-type]


def _send(provider: OpenAIProvider, request: ModelRequest) -> ModelReply | ProviderError:
    async def go() -> ModelReply | ProviderError:
        try:
            return await provider.complete(request)
        except ProviderError as exc:
            return exc
        finally:
            await provider.aclose()

    return asyncio.run(go())


def _both(request: ModelRequest, timeout: float = 10) -> tuple[Any, Any]:
    return _send(OpenAIProvider(timeout=timeout), request), _send(ThroughSdk(timeout=timeout), request)


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-openai")
    for name in ("OPENAI_CUSTOM_HEADERS", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("ALL_PROXY", raising=False)
    monkeypatch.delenv("all_proxy", raising=False)


@pytest.mark.parametrize("body, api", [(CHAT, "chat"), (RESPONSES, "responses")])
def test_a_reply_reads_as_it_reads_through_the_sdk(body, api, model_server, monkeypatch) -> None:
    replies, sent = [], []
    for provider in (OpenAIProvider(timeout=10), ThroughSdk(timeout=10)):
        server = model_server(SCRIPT)  # each its own: the same call ids, usage from the same bytes
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        replies.append(_send(provider, _wire(body, api)))
        sent += [(r["path"], r["body"]) for r in server.requests]
    forwarded, through_sdk = replies
    assert isinstance(forwarded, ModelReply) and forwarded.tool_calls
    assert dataclasses.replace(forwarded, latency_ms=None) == dataclasses.replace(
        through_sdk, latency_ms=None
    )
    assert forwarded.request_id == "req_scripted_1"
    assert sent[0] == sent[1] and sent[0][1] == body  # the program's body, as it wrote it


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "status", "status": 401},
        {"kind": "status", "status": 404},
        {"kind": "status", "status": 400},
        {"kind": "status", "status": 503},
        {"kind": "status", "status": 429, "retry_after": 2},
        {"kind": "drop"},
        {"kind": "empty_body"},
    ],
)
def test_a_failure_is_the_error_the_sdk_path_gives(fault, model_server, monkeypatch) -> None:
    server = model_server(SCRIPT, faults=[{"fault": fault, "every": 1}])
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    forwarded, through_sdk = _both(_wire(CHAT))
    assert isinstance(forwarded, ProviderError) and isinstance(through_sdk, ProviderError)
    fields = ("kind", "fatal", "retryable", "status", "retry_after")
    assert [getattr(forwarded, f) for f in fields] == [getattr(through_sdk, f) for f in fields]
    assert str(forwarded) == str(through_sdk)


def test_a_refused_parameter_is_named_as_through_the_sdk(model_server, monkeypatch) -> None:
    server = model_server(SCRIPT)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    forwarded, through_sdk = _both(_wire({**CHAT, "model": "o3-mini", "temperature": 0.2}))
    assert isinstance(forwarded, ProviderError) and str(forwarded) == str(through_sdk)
    assert "temperature" in str(forwarded) and forwarded.kind == "bad_request"


def test_malformed_json_and_timeouts_are_retryable_as_through_the_sdk(model_server, monkeypatch) -> None:
    server = model_server(SCRIPT, faults=[{"fault": {"kind": "truncated_json"}, "every": 1}])
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    forwarded, through_sdk = _both(_wire(CHAT))
    assert isinstance(forwarded, ProviderError) and isinstance(through_sdk, ProviderError)
    assert (
        (forwarded.kind, forwarded.retryable)
        == (through_sdk.kind, through_sdk.retryable)
        == ("malformed", True)
    )
    slow = model_server(SCRIPT, latency=1.0)
    monkeypatch.setenv("OPENAI_BASE_URL", slow.openai_base_url)
    forwarded, through_sdk = _both(_wire(CHAT), timeout=0.2)
    assert str(forwarded) == str(through_sdk) and (forwarded.kind, forwarded.retryable) == ("timeout", True)


def test_the_upstream_gets_the_key_and_the_headers_the_sdk_sends(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-1")
    heads: list[str] = []

    async def go() -> Any:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            heads.append((await reader.readuntil(b"\r\n\r\n")).decode())
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-request-id: r1\r\n\r\n{}")
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1/")
        forwarder = openai_forwarder(__import__("os").environ, 5.0)
        assert forwarder is not None
        try:
            return await forwarder.post("/chat/completions", CHAT, {"anthropic-beta": "x"})
        finally:
            await forwarder.aclose()
            server.close()

    reply = asyncio.run(go())
    assert isinstance(reply, JsonView) and reply == {} and reply._request_id == "r1"
    lines = heads[0].lower().split("\r\n")
    assert lines[0] == "post /v1/chat/completions http/1.1"
    for header in (
        "authorization: bearer sk-test-dummy-openai",
        "openai-organization: org-1",
        "openai-project: proj-1",
        "content-type: application/json",
        "anthropic-beta: x",
    ):
        assert header in lines


@pytest.mark.parametrize(
    "variable, value",
    [("OPENAI_API_KEY", ""), ("OPENAI_CUSTOM_HEADERS", "x-a: b"), ("HTTPS_PROXY", "http://proxy:3128")],
)
def test_other_configurations_go_through_the_sdk(variable, value, monkeypatch) -> None:
    monkeypatch.setenv(variable, value)
    assert openai_forwarder(__import__("os").environ, 5.0) is None


def test_no_key_is_the_sdk_s_own_error(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    error = _send(OpenAIProvider(timeout=5), _wire(CHAT))
    assert isinstance(error, ProviderError) and error.kind == "auth" and "OPENAI_API_KEY" in str(error)


def test_forwarding_never_imports_the_sdk(model_server, monkeypatch) -> None:
    server = model_server(SCRIPT)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    code = (
        "import asyncio, json, sys\n"
        "from gate.providers.openai_provider import OpenAIProvider\n"
        "from gate.providers.base import ModelRequest\n"
        "from gate.suite.model import ModelParams\n"
        f"body = json.loads({json.dumps(json.dumps(CHAT))})\n"
        "request = ModelRequest('openai', 'm', None, (), (), ModelParams(), wire=body)\n"
        "reply = asyncio.run(OpenAIProvider(timeout=5).complete(request))\n"
        "print(reply.tool_calls[0].name, 'openai' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["w", "False"], done.stderr
