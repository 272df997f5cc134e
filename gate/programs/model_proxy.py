"""The recording model proxy of one trial of an agent program (DESIGN section 10, "The gate sees the
model, not the agent").

The program's SDK sends its requests here (``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL`` point at the
trial's route of the run's loopback server, ``gate.programs.host``) with the trial's token as its
API key. Each request is read in its API (``gate.providers.wire_requests``), sent through the
runner's model path (the response cache, the concurrency limiter, retries, the request and cost
budgets, the provider adapter with the real key) as a ``ModelRequest`` carrying the program's own
body, and its reply written back in the program's API, streamed when it asked to stream
(``gate.providers.wire_replies``). Every exchange is kept: the trial's episode takes its replies,
calls and results from them (``gate.programs.record``).

What the proxy refuses, it answers in the API's own error shape with ``x-should-retry: false`` (the
gate has retried already: the SDK must not multiply requests): a wrong token (401), a body it cannot
serve (400), a request the episode's budgets forbid (more calls than ``max_tool_calls`` made, or
``max_turns`` replies had: the episode ends for it, as the model agent's does) or made once the
episode is over (429), a provider failure after the gate's retries, a budget reached or a replay miss
(the provider's status, 429, 503). A provider failure, a budget, or a reply cut at its token limit
(relayed, all the same) makes the trial an error, never the agent's failure.

Nothing the proxy relays carries a credential the gate holds (its ``redactor``: the keys of the
environment, the credentials in its URLs, the shapes of keys and tokens): an upstream or a gateway can
echo the ``Authorization`` header into an answer or quote it in an error, and the program under test
may be a pull request's code. Replies are masked before they are recorded and relayed (the response
cache stores them masked too, so a replay relays the same), and so is every error message.
"""

from __future__ import annotations

import hmac
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from gate.episode.episode import BUDGET_MESSAGE, Episode, budget_stop
from gate.programs.loopback_http import HttpRequest, HttpResponse, json_response
from gate.programs.record import Exchange
from gate.providers.base import BudgetReached, ModelReply, ModelRequest, ProviderError
from gate.providers.wire_replies import encode_event, error_body, reply_body, reply_events
from gate.providers.wire_requests import WireApi, WireError, WireRequest, read_wire_request
from gate.suite.model import ModelParams
from gate.util.redact import Redactor

CallModel = Callable[[ModelRequest], Awaitable[ModelReply]]
NO_RETRY = {"x-should-retry": "false"}
# Request headers that change the answer, sent upstream and part of the cache key.
FORWARDED_HEADERS = ("anthropic-beta",)
_STATUS = {
    "rate_limit": 429,
    "timeout": 504,
    "connection": 502,
    "malformed": 502,
    "auth": 502,
    "replay_miss": 503,
}


def _token_of(request: HttpRequest) -> str:
    authorization = request.headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return request.headers.get("x-api-key") or request.headers.get("api-key") or ""


class TrialProxy:
    """The model side of one trial: ``call`` is the runner's model path for this trial; ``episode``
    the trial's episode, whose budgets a request must be within and which is told why it ended (a
    provider failure, a budget, a reply cut at its token limit)."""

    def __init__(self, token: str, call: CallModel, episode: Episode, redactor: Redactor):
        self.token = token
        self.call = call
        self.episode = episode
        self.redactor = redactor
        self.exchanges: list[Exchange] = []
        self.received = 0  # the requests sent to its model routes, answered or refused (``reached``)
        self.first_at: float | None = None  # when the first of them came (time.monotonic)
        self.fatal: ProviderError | None = None  # stops the run's requests to that provider or model

    def reached(self) -> None:
        """A request came to one of its model routes (the host says so before it reads it)."""
        self.received += 1
        if self.first_at is None:
            self.first_at = time.monotonic()

    def provider_failed(self, exc: ProviderError) -> None:
        """A request of the trial failed after the gate's retries (the trial is an error)."""
        if exc.fatal:
            self.fatal = self.fatal or exc
        self.episode.end("provider_error", str(exc))

    def refusal(self) -> str | None:
        """Why the trial's next model request is refused: a budget forbids the agent another reply
        (the episode ends for it, as the model agent's does), or the episode is over."""
        episode, case = self.episode, self.episode.case
        if not episode.ended:
            calls = sum(len(e.reply.tool_calls) for e in self.exchanges)
            stop = budget_stop(case, len(self.exchanges), calls)
            if stop is None:
                return None
            episode.end(stop)
        if episode.stop_reason == "max_turns":
            return f"the case allows {case.max_turns} model replies (max_turns)"
        if episode.stop_reason == "max_tool_calls":
            return f"the case allows {case.max_tool_calls} tool calls (max_tool_calls)"
        return f"the trial has ended ({episode.stop_reason.replace('_', ' ')})"

    async def handle(self, api: WireApi, request: HttpRequest) -> HttpResponse:
        if request.method != "POST":
            return self._error(api, 405, "use POST", {"allow": "POST", **NO_RETRY})
        if not hmac.compare_digest(_token_of(request), self.token):
            return self._error(api, 401, "tool-eval-gate: not this trial's token")
        try:
            wire = read_wire_request(api, request.body)
        except WireError as exc:
            return self._error(api, 400, f"tool-eval-gate: {exc}")
        self.episode.requested(wire.model, wire.system)
        refused = self.refusal()
        if refused is not None:
            return self._error(api, 429, f"tool-eval-gate: {refused}")
        headers = tuple(
            (name, request.headers[name]) for name in FORWARDED_HEADERS if name in request.headers
        )
        model_request = ModelRequest(
            provider=wire.provider,
            model=wire.model,
            system=wire.system,
            messages=wire.messages,
            tools=wire.tools,
            params=ModelParams(),
            api="responses" if api == "responses" else "chat",
            wire=wire.body,
            wire_headers=headers,
        )
        started = time.perf_counter()
        try:
            reply = await self.call(model_request)
        except ProviderError as exc:
            return self._failed(api, exc)
        except BudgetReached as exc:
            self.episode.end("budget", str(exc) or BUDGET_MESSAGE)
            return self._error(api, 429, f"tool-eval-gate: {exc}")
        reply = self._masked_reply(reply)
        wall_ms = (time.perf_counter() - started) * 1000.0
        # Negative for an answer from the cache: the time it took when recorded counts (as for the model).
        waited = wall_ms - reply.latency_ms if reply.latency_ms is not None else 0.0
        self.exchanges.append(Exchange(wire, reply, waited))
        if reply.cut:  # relayed all the same; the trial is an error, as the model agent's is
            self.episode.end("max_tokens", cut_text(wire))
        if not wire.stream:
            return json_response(200, reply_body(wire, reply))
        return HttpResponse(200, headers={"content-type": "text/event-stream"}, stream=_stream(wire, reply))

    def _failed(self, api: WireApi, exc: ProviderError) -> HttpResponse:
        self.provider_failed(exc)
        status = _STATUS.get(exc.kind) or (exc.status if exc.status and exc.status >= 400 else 502)
        return self._error(api, status, f"tool-eval-gate: {exc}")

    def _error(
        self, api: WireApi, status: int, message: str, headers: dict[str, str] = NO_RETRY
    ) -> HttpResponse:
        """An error in the API's own shape, its message masked (it can quote an upstream's words)."""
        return json_response(status, error_body(api, status, self.redactor.redact(message)), headers)

    def _masked_reply(self, reply: ModelReply) -> ModelReply:
        """``reply`` with every credential the gate holds masked in all it relays (text, calls,
        reasoning, ids, the model's name); the very same reply when it holds none."""
        data = reply.to_dict()
        text = json.dumps(data, ensure_ascii=False)
        if self.redactor.redact(text) == text:
            return reply
        return ModelReply.from_dict(self.redactor.redact_obj(data))


def cut_text(wire: WireRequest) -> str:
    """Why a reply to the program's request ``wire`` ended unfinished, and where to raise the limit."""
    for key in ("max_completion_tokens", "max_tokens", "max_output_tokens"):
        value = wire.body.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return f"the reply was cut at {key}={value}: raise it in the agent program's requests"
    return "the reply was cut at the server's own output limit: set a token limit in the program's requests"


async def _stream(wire: WireRequest, reply: ModelReply) -> AsyncIterator[bytes]:
    for event in reply_events(wire, reply):
        yield encode_event(event)
