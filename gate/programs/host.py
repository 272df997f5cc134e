"""The one loopback server of a run that serves its agent programs: each live trial has its own route
(``/t/<id>/``, an unguessable id) with the recording model proxy (``openai/...``,
``anthropic/...``: ``gate.programs.model_proxy``) and the mock MCP server (``mcp``:
``gate.programs.mock_mcp_server``). A request for a trial that is not live (ended, or never was) is
refused (403). Started with the first program trial, closed with the run. ``redactor`` masks every
credential the gate holds in what the proxy relays to a program (``TrialProxy``).

A long-lived process (``reuse: true``, ``gate.programs.pool``) is started with the addresses of a
route of its own that serves nothing (``open_process``): its requests belong to no trial. A request
there, or for one of its trials after that trial ended (``open_trial(..., late=...)``), is refused
and told to the pool (the process is replaced); an MCP client closing its session of an ended trial
(``DELETE``) is not such a request.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
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
    late: Callable[[str], None] | None = None  # told of a request after the trial ended


Stray = Callable[[str], None]  # told of a request outside a running trial (its kind: openai, anthropic, mcp)


class ProgramHost:
    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.server = LoopbackServer(self._handle)
        self._trials: dict[str, _Trial] = {}
        self._outside: dict[str, Stray] = {}  # the routes of ended trials and of processes: who to tell
        self._started = False

    async def _route(self, ident: str, token: str) -> TrialRoute:
        if not self._started:
            await self.server.start()
            self._started = True
        base = f"{self.server.url}/t/{ident}"
        return TrialRoute(ident, token, f"{base}/openai/v1", f"{base}/anthropic", f"{base}/mcp")

    async def open_trial(
        self, proxy: TrialProxy, mcp: MockMcpSession, late: Stray | None = None
    ) -> TrialRoute:
        """A route for a trial; ``late`` is told of a request for it once it has ended."""
        ident = secrets.token_hex(16)
        self._trials[ident] = _Trial(proxy, mcp, late)
        return await self._route(ident, proxy.token)

    def close_trial(self, route: TrialRoute) -> None:
        trial = self._trials.pop(route.id, None)
        if trial is not None:
            trial.mcp.close()
            if trial.late is not None:
                self._outside[route.id] = trial.late

    async def open_process(self, stray: Stray) -> TrialRoute:
        """The addresses a long-lived process starts with: they serve nothing, and ``stray`` is told
        of every request to them."""
        ident = secrets.token_hex(16)
        self._outside[ident] = stray
        return await self._route(ident, secrets.token_urlsafe(24))

    def forget(self, ids: Iterable[str]) -> None:
        """The routes of a process that has ended, and of its trials: from now on simply refused."""
        for ident in ids:
            self._outside.pop(ident, None)

    async def close(self) -> None:
        for trial in self._trials.values():
            trial.mcp.close()
        self._trials.clear()
        self._outside.clear()
        await self.server.close()

    async def _handle(self, request: HttpRequest) -> HttpResponse:
        parts = request.path.split("/")  # "", "t", id, kind, ...
        ident = parts[2] if len(parts) > 3 and parts[1] == "t" else ""
        trial = self._trials.get(ident)
        kind = parts[3] if len(parts) > 3 else ""
        rest = "/" + "/".join(parts[4:])
        if trial is None:
            return self._outside_any_trial(ident, kind, request)
        if kind == "mcp":
            return await trial.mcp.handle(request)
        trial.proxy.reached()  # it tried to reach the model: it started (whatever the answer)
        api = _api(kind, rest)
        if api is None:
            message = f"tool-eval-gate: no model endpoint {request.method} {kind}{rest} (the proxy serves "
            message += "chat/completions and responses of OpenAI, and messages of Anthropic)"
            return json_response(
                404, error_body("messages" if kind == "anthropic" else "chat", 404, message), NO_RETRY
            )
        return await trial.proxy.handle(api, request)

    def _outside_any_trial(self, ident: str, kind: str, request: HttpRequest) -> HttpResponse:
        """A request for no live trial: refused; a long-lived process's pool is told of it (unless it
        only closes the MCP session of a trial that has ended)."""
        stray = self._outside.get(ident)
        message = "tool-eval-gate: no live trial at this address (it has ended, or never was)"
        if stray is not None and not (kind == "mcp" and request.method == "DELETE"):
            stray(kind)
            message += (
                "; a long-lived program (reuse: true) sends a trial's requests to the addresses of the env "
                "of that trial's first line, while the trial runs"
            )
        return json_response(403, {"error": {"message": message, "type": "permission_error"}}, NO_RETRY)


def _api(kind: str, rest: str) -> WireApi | None:
    path = rest.rstrip("/")
    if kind == "openai" and path.endswith("/chat/completions"):
        return "chat"
    if kind == "openai" and path.endswith("/responses"):
        return "responses"
    if kind == "anthropic" and path.endswith("/v1/messages"):
        return "messages"
    return None
