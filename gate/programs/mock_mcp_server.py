"""The suite's mocks served to one trial as an MCP server (DESIGN section 10, "Mocks as an MCP server").

The Streamable HTTP transport of MCP on the run's loopback server (``gate.programs.host``), one
session per trial: ``initialize`` (the handshake era of the protocol: 2024-11-05 to 2025-11-25;
``server/discover`` is answered "method not found", so clients fall back to the handshake),
``tools/list`` (the suite's ``agent.tools``, exactly as the model agent offers them) and
``tools/call``, answered by the trial's :class:`gate.suite.mocks.MockSession`, the same engine and
state as the model agent's mocks (``final_state`` reads it), or, for the tools of a ``calls: live``
MCP server, by that server (the trial's own process of it, :class:`gate.tool_servers.live.LiveTools`),
as the model agent's calls are. Replies are JSON, or server-sent events for a client that accepts
only those; ``GET`` opens an idle event stream that ends with the trial. Every call is kept
(``calls``) so that the trial's record can say which mock (or server) answered which call.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

from gate import __version__, limits
from gate.errors import GateError
from gate.programs.loopback_http import HttpRequest, HttpResponse, json_response
from gate.programs.record import McpCall
from gate.results.run_record import copy_value
from gate.suite.mocks import MockOutcome, MockSession
from gate.suite.model import ToolDef
from gate.tool_servers.live import LiveTools
from gate.util import strict_json
from gate.util.escape import as_text

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
SESSION_HEADER = "mcp-session-id"
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INTERNAL_ERROR = -32603


def mcp_tool(tool: ToolDef) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "inputSchema": tool.parameters}


class MockMcpSession:
    """The MCP server of one trial. ``live`` answers the calls to the tools of ``calls: live``
    servers; a server that cannot answer (it could not start, or stopped) is reported to ``failed``,
    which ends the trial as an error, and the program gets a JSON-RPC error."""

    def __init__(
        self,
        tools: tuple[ToolDef, ...],
        mocks: MockSession,
        stateful: bool,
        live: LiveTools | None = None,
        failed: Callable[[str], None] | None = None,
    ):
        self.tools = tools
        self.names = frozenset(t.name for t in tools)
        self.mocks = mocks
        self.stateful = stateful
        self.live = live
        self.failed = failed
        self.calls: list[McpCall] = []
        self.session_id = secrets.token_hex(16)
        self.closed = asyncio.Event()

    def close(self) -> None:
        self.closed.set()

    async def handle(self, request: HttpRequest) -> HttpResponse:
        if request.method == "DELETE":
            return HttpResponse(200)
        if request.method == "GET":
            if "text/event-stream" not in request.headers.get("accept", ""):
                return HttpResponse(405, headers={"allow": "POST, DELETE"})
            return HttpResponse(200, headers={"content-type": "text/event-stream"}, stream=self._idle())
        if request.method != "POST":
            return HttpResponse(405, headers={"allow": "GET, POST, DELETE"})
        session = request.headers.get(SESSION_HEADER)
        if session is not None and session != self.session_id:
            return json_response(404, _error(None, INVALID_REQUEST, "unknown MCP session"))
        shape = strict_json.structure_problem(
            request.body, containers=limits.MAX_REQUEST_CONTAINERS, depth=limits.MAX_REQUEST_NESTING
        )
        if shape is not None:
            return json_response(413, _error(None, INVALID_REQUEST, f"the body holds {shape}"))
        try:
            message = json.loads(request.body)
        except (ValueError, RecursionError):
            return json_response(400, _error(None, PARSE_ERROR, "the body is not JSON"))
        batch = message if isinstance(message, list) else [message]
        replies = [reply for item in batch if (reply := await self._answer(item)) is not None]
        if not replies:
            return HttpResponse(202)
        value: Any = replies if isinstance(message, list) else replies[0]
        headers = {SESSION_HEADER: self.session_id}
        accept = request.headers.get("accept", "")
        if not accept or "application/json" in accept or "*/*" in accept:
            return json_response(200, value, headers)
        return HttpResponse(
            200, headers={**headers, "content-type": "text/event-stream"}, stream=_events(replies)
        )

    async def _idle(self) -> AsyncIterator[bytes]:
        await self.closed.wait()
        yield b""  # nothing is sent (an empty chunk is skipped): the stream ends with the trial

    async def _answer(self, message: Any) -> dict[str, Any] | None:
        """The JSON-RPC response to ``message`` (None for a notification or a response)."""
        if not isinstance(message, dict) or "method" not in message:
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return None  # a client's answer to a request we never make
            return _error(None, INVALID_REQUEST, "not a JSON-RPC request")
        if "id" not in message:
            return None  # notifications/initialized, notifications/cancelled...
        ident, method = message["id"], message["method"]
        raw = message.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if method == "initialize":
            return _result(ident, self._initialize(params))
        if method == "ping":
            return _result(ident, {})
        if method == "tools/list":
            return _result(ident, {"tools": [mcp_tool(t) for t in self.tools]})
        if method == "tools/call":
            return await self._call(ident, params)
        return _error(ident, METHOD_NOT_FOUND, f"method not found: {method}")

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "tool-eval-gate-mocks", "version": __version__},
            "instructions": "The tools of this server are the mocks of a tool-eval-gate suite.",
        }

    async def _call(self, ident: Any, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str) or name not in self.names:
            return _error(ident, INVALID_PARAMS, f"unknown tool: {name}")
        arguments = params.get("arguments")
        arguments = arguments if isinstance(arguments, dict) else {}
        if self.live is not None and name in self.live.names:
            return await self._live_call(ident, self.live, name, arguments)
        outcome = self.mocks.call(name, arguments)
        state = copy_value(self.mocks.state) if self.stateful else None
        self.calls.append(McpCall(name, arguments, outcome, state))
        text = as_text(outcome.result)
        return _result(ident, {"content": [{"type": "text", "text": text}], "isError": outcome.is_error})

    async def _live_call(
        self, ident: Any, live: LiveTools, name: str, arguments: dict[str, Any]
    ) -> dict[str, Any]:
        """The call answered by the tool's live server, as an MCP server answers it (its structured
        content passed on)."""
        try:
            answer = await live.call(name, arguments)
        except GateError as exc:  # the server could not be started, or stopped
            if self.failed is not None:
                self.failed(str(exc))
            return _error(ident, INTERNAL_ERROR, f"tool-eval-gate: {exc}")
        self.calls.append(McpCall(name, arguments, MockOutcome("live", answer.value, answer.is_error)))
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": answer.text}],
            "isError": answer.is_error,
        }
        if isinstance(answer.value, dict):
            result["structuredContent"] = answer.value
        return _result(ident, result)


def _result(ident: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def _error(ident: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


async def _events(replies: list[dict[str, Any]]) -> AsyncIterator[bytes]:
    for reply in replies:
        yield f"event: message\ndata: {json.dumps(reply, ensure_ascii=False)}\n\n".encode()
