"""The one loopback server of a run that serves its agent programs: each live trial has its own route
(``/t/<id>/``, an unguessable id) with the recording model proxy (``openai/...``,
``anthropic/...``: ``gate.programs.model_proxy``) and the mock MCP server (``mcp``:
``gate.programs.mock_mcp_server``). A request for a trial that is not live (ended, or never was) is
refused (403). Started with the first program trial, closed with the run. ``redactor`` masks every
credential the gate holds in what the proxy relays to a program (``TrialProxy``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from gate.programs.loopback_http import HttpRequest, HttpResponse, LoopbackServer, json_response
from gate.programs.mock_mcp_server import MockMcpSession
from gate.programs.model_proxy import NO_RETRY, TrialProxy
from gate.providers.wire_replies import error_body
from gate.providers.wire_requests import WireApi
from gate.util.redact import Redactor


@dataclass(frozen=True)
class TrialRoute:
    """What a live trial's program is given: its URLs and its token."""

    id: str
    token: str
    openai_base_url: str
    anthropic_base_url: str
    mcp_url: str


@dataclass
class _Trial:
    proxy: TrialProxy
    mcp: MockMcpSession


class ProgramHost:
    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.server = LoopbackServer(self._handle)
        self._trials: dict[str, _Trial] = {}
        self._started = False

    async def open_trial(self, proxy: TrialProxy, mcp: MockMcpSession) -> TrialRoute:
        if not self._started:
            await self.server.start()
            self._started = True
        ident = secrets.token_hex(16)
        self._trials[ident] = _Trial(proxy, mcp)
        base = f"{self.server.url}/t/{ident}"
        return TrialRoute(ident, proxy.token, f"{base}/openai/v1", f"{base}/anthropic", f"{base}/mcp")

    def close_trial(self, route: TrialRoute) -> None:
        trial = self._trials.pop(route.id, None)
        if trial is not None:
            trial.mcp.close()

    async def close(self) -> None:
        for trial in self._trials.values():
            trial.mcp.close()
        self._trials.clear()
        await self.server.close()

    async def _handle(self, request: HttpRequest) -> HttpResponse:
        parts = request.path.split("/")  # "", "t", id, kind, ...
        trial = self._trials.get(parts[2]) if len(parts) > 3 and parts[1] == "t" else None
        kind = parts[3] if len(parts) > 3 else ""
        rest = "/" + "/".join(parts[4:])
        if trial is None:
            message = "tool-eval-gate: no live trial at this address (it has ended, or never was)"
            return json_response(403, {"error": {"message": message, "type": "permission_error"}}, NO_RETRY)
        if kind == "mcp":
            return await trial.mcp.handle(request)
        trial.proxy.received += 1  # it tried to reach the model: it started (whatever the answer)
        api = _api(kind, rest)
        if api is None:
            message = f"tool-eval-gate: no model endpoint {request.method} {kind}{rest} (the proxy serves "
            message += "chat/completions and responses of OpenAI, and messages of Anthropic)"
            return json_response(
                404, error_body("messages" if kind == "anthropic" else "chat", 404, message), NO_RETRY
            )
        return await trial.proxy.handle(api, request)


def _api(kind: str, rest: str) -> WireApi | None:
    path = rest.rstrip("/")
    if kind == "openai" and path.endswith("/chat/completions"):
        return "chat"
    if kind == "openai" and path.endswith("/responses"):
        return "responses"
    if kind == "anthropic" and path.endswith("/v1/messages"):
        return "messages"
    return None
