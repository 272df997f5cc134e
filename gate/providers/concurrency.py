"""Bounded, adaptive concurrency for model requests: a limiter that backs off on rate limits, the
retry-after headers of OpenAI and Anthropic, and a retry loop with exponential full-jitter backoff.

Pure asyncio; no provider SDK is imported here. The provider adapters create their SDK clients with
``max_retries=0`` and pass a ``classify`` function that maps their exceptions to :class:`Classified`,
so that retries happen exactly once, here, where the limiter can see them.
"""

from __future__ import annotations

import asyncio
import math
import random
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Literal, TypeVar

from gate.limits import REQUEST_TIMEOUT_SECONDS

T = TypeVar("T")

# Never wait longer than this on the word of a response header.
MAX_RETRY_AFTER = 60.0


class AdaptiveLimiter:
    """At most ``current_limit`` requests in flight (``async with limiter:`` holds one slot).

    ``current_limit`` starts at ``limit``; :meth:`rate_limited` halves it (not below ``min_limit``)
    and pauses new starts until the retry-after has elapsed; :meth:`succeeded` adds one back after
    ``regrow_after`` consecutive successes, up to ``limit``. Waiters are served first come, first
    served, and a freed slot is handed directly to the next waiter.
    """

    def __init__(self, limit: int, *, min_limit: int = 1, regrow_after: int = 8):
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self.min_limit = max(1, min(min_limit, limit))
        self.regrow_after = max(1, regrow_after)
        self._current = limit
        self._in_flight = 0
        self._successes = 0
        self._paused_until = 0.0  # time.monotonic()
        self._timer: asyncio.TimerHandle | None = None
        self._waiters: deque[asyncio.Future[None]] = deque()
        # Bumped on every cut; a 429 from a request started before the latest cut says nothing new
        # about the current limit, so it pauses but does not cut again (see ``rate_limited``).
        self.generation = 0

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def current_limit(self) -> int:
        return self._current

    def _can_start(self) -> bool:
        return self._in_flight < self._current and time.monotonic() >= self._paused_until

    def _take(self) -> None:
        self._in_flight += 1

    async def acquire(self) -> None:
        if not self._waiters and self._can_start():
            self._take()
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        self._wake()  # arms the pause timer if needed
        try:
            await future  # resolved by _wake, which has taken the slot for us
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release()  # the slot was handed over just before the cancellation
            else:
                try:
                    self._waiters.remove(future)
                except ValueError:
                    pass
            raise

    def release(self) -> None:
        self._in_flight -= 1
        self._wake()

    async def __aenter__(self) -> AdaptiveLimiter:
        await self.acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    def rate_limited(
        self, retry_after: float | None = None, *, started_generation: int | None = None
    ) -> None:
        """A request was rate limited: halve the limit, pause new starts for ``retry_after`` seconds.

        ``started_generation`` (the ``generation`` when that request started) avoids cutting again and
        again for a burst of 429s from requests that were all in flight before the latest cut."""
        self._successes = 0
        if started_generation is None or started_generation >= self.generation:
            self._current = max(self.min_limit, self._current // 2)
            self.generation += 1
        if retry_after is not None and retry_after > 0:
            self._paused_until = max(self._paused_until, time.monotonic() + min(retry_after, MAX_RETRY_AFTER))

    def succeeded(self) -> None:
        """A request succeeded; after ``regrow_after`` in a row the limit grows by one."""
        self._successes += 1
        if self._successes >= self.regrow_after:
            self._successes = 0
            if self._current < self.limit:
                self._current += 1
                self._wake()

    def _wake(self) -> None:
        remaining = self._paused_until - time.monotonic()
        if remaining > 0:
            if self._waiters and self._timer is None:
                try:
                    loop = asyncio.get_running_loop()
                except RuntimeError:
                    return
                self._timer = loop.call_later(remaining, self._unpause)
            return
        while self._waiters and self._in_flight < self._current:
            future = self._waiters.popleft()
            if future.done():
                continue
            self._take()
            future.set_result(None)

    def _unpause(self) -> None:
        self._timer = None
        self._wake()


# --------------------------------------------------------------------------------------------------
# Retry-after headers
# --------------------------------------------------------------------------------------------------

_GO_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def _duration(text: str) -> float | None:
    """A Go-style duration as OpenAI sends it ("1s", "6m0s", "20ms", "1h2m3.5s"), or plain seconds."""
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    parts = _GO_DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)


def _seconds_until(stamp: str, now: datetime) -> float | None:
    try:
        when = datetime.fromisoformat(stamp.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return (when - now).total_seconds()


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def retry_after_seconds(
    headers: Mapping[str, str], *, now: datetime | None = None, cap: float = MAX_RETRY_AFTER
) -> float | None:
    """How long the server asks us to wait, from whichever header it sent, in this order:
    ``retry-after-ms``; ``retry-after`` (seconds or an HTTP date); OpenAI's
    ``x-ratelimit-reset-requests`` / ``-tokens`` (durations like "6m0s"); Anthropic's
    ``anthropic-ratelimit-*-reset`` (RFC 3339 timestamps). For the rate-limit families, the limits
    reported exhausted (``remaining`` 0) are preferred; among several, the longest wait wins.
    Clamped to ``[0, cap]``; None when no header says anything usable. ``now`` defaults to the clock."""
    h = {str(k).lower(): str(v) for k, v in headers.items()}
    current = now or datetime.now(timezone.utc)

    def clamp(value: float) -> float:
        return min(max(value, 0.0), cap)

    if "retry-after-ms" in h:
        try:
            value = _finite(float(h["retry-after-ms"]) / 1000.0)
        except ValueError:
            value = None
        if value is not None:
            return clamp(value)
    if "retry-after" in h:
        raw = h["retry-after"].strip()
        try:
            value = _finite(float(raw))
        except ValueError:
            try:
                date = parsedate_to_datetime(raw)
                if date.tzinfo is None:
                    date = date.replace(tzinfo=timezone.utc)
                value = (date - current).total_seconds()
            except (TypeError, ValueError, IndexError):
                value = None
        if value is not None:
            return clamp(value)

    waits: list[tuple[bool, float]] = []  # (exhausted, seconds)
    for kind in ("requests", "tokens"):
        reset = h.get(f"x-ratelimit-reset-{kind}")
        if reset is None:
            continue
        value = _duration(reset)
        if value is not None:
            waits.append((h.get(f"x-ratelimit-remaining-{kind}", "").strip() == "0", value))
    for key, reset in h.items():
        match = re.fullmatch(r"anthropic-ratelimit-([a-z-]+)-reset", key)
        if not match:
            continue
        value = _seconds_until(reset, current)
        if value is not None:
            remaining = h.get(f"anthropic-ratelimit-{match.group(1)}-remaining", "").strip()
            waits.append((remaining == "0", value))
    if not waits:
        return None
    exhausted = [seconds for flag, seconds in waits if flag]
    return clamp(max(exhausted or [seconds for _, seconds in waits]))


# --------------------------------------------------------------------------------------------------
# Retries
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """``max_attempts`` counts the first try. ``timeout`` is the per-attempt time limit in seconds
    (providers give it to their SDK client too); None disables the limit here."""

    max_attempts: int = 6
    base_delay: float = 0.5
    max_delay: float = 30.0
    timeout: float | None = REQUEST_TIMEOUT_SECONDS


@dataclass(frozen=True)
class Classified:
    """What an exception means for retrying: worth retrying at all, a rate limit (the limiter backs
    off), how long the server asked us to wait, and whether the attempt ran out of time."""

    retryable: bool
    rate_limited: bool = False
    retry_after: float | None = None
    timed_out: bool = False


# How one attempt ended: answered; no answer within the time limit; refused with 429; otherwise failed.
AttemptKind = Literal["answered", "timeout", "rate_limited", "failed"]


@dataclass(frozen=True)
class Attempt:
    """One attempt of a request, for whoever counts them: how it ended, how long it took (from
    sending to its answer or failure, a concurrency slot held), and how long the retry loop then
    waited before the next attempt (0: none followed)."""

    kind: AttemptKind
    seconds: float
    backoff: float = 0.0


def backoff_delay(
    attempt: int, policy: RetryPolicy, rng: random.Random, *, retry_after: float | None = None
) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1-based): the server's retry-after
    when given (at most ``MAX_RETRY_AFTER``), else full jitter, uniform in
    ``[0, min(max_delay, base_delay * 2 ** (attempt - 1))]``."""
    if retry_after is not None and math.isfinite(retry_after):
        return min(max(retry_after, 0.0), MAX_RETRY_AFTER)
    ceiling = min(policy.max_delay, policy.base_delay * (2.0 ** max(0, min(attempt - 1, 60))))
    return rng.uniform(0.0, max(0.0, ceiling))


class AttemptTimeout(TimeoutError):
    """An attempt exceeded ``RetryPolicy.timeout`` (always retryable)."""


async def _attempt(fn: Callable[[], Awaitable[T]], timeout: float | None) -> T:
    if timeout is None or timeout <= 0:
        return await fn()
    try:
        return await asyncio.wait_for(fn(), timeout)
    except asyncio.TimeoutError as exc:
        raise AttemptTimeout(f"no answer within {timeout:g} s") from exc


async def call_with_retries(
    fn: Callable[[], Awaitable[T]],
    *,
    limiter: AdaptiveLimiter | None,
    policy: RetryPolicy,
    classify: Callable[[BaseException], Classified],
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    rng: random.Random | None = None,
    on_attempt: Callable[[Attempt], None] | None = None,
) -> T:
    """Await ``fn()`` (a fresh request per call), retrying retryable failures.

    A limiter slot is held only while a request is in flight, never while backing off. Rate limits
    are reported to the limiter (which halves its limit and pauses), successes too (which regrow it).
    After ``policy.max_attempts`` attempts, or on an error ``classify`` calls not retryable, the last
    error is raised. An attempt that exceeds ``policy.timeout`` raises :class:`AttemptTimeout`, which
    is retried without asking ``classify``. ``on_attempt`` hears how every attempt ended.
    """
    rng = rng if rng is not None else random.Random()
    attempt = 0
    while True:
        attempt += 1
        generation = None
        if limiter is not None:
            await limiter.acquire()
            generation = limiter.generation
        started = time.monotonic()
        try:
            result = await _attempt(fn, policy.timeout)
        except Exception as exc:  # classify decides what it means
            if limiter is not None:
                limiter.release()
            verdict = Classified(True, timed_out=True) if isinstance(exc, AttemptTimeout) else classify(exc)
            if verdict.rate_limited and limiter is not None:
                limiter.rate_limited(verdict.retry_after, started_generation=generation)
            again = verdict.retryable and attempt < policy.max_attempts
            delay = backoff_delay(attempt, policy, rng, retry_after=verdict.retry_after) if again else 0.0
            if on_attempt is not None:
                on_attempt(Attempt(_failure_kind(verdict), time.monotonic() - started, delay))
            if not again:
                raise
            await sleep(delay)
            continue
        except BaseException:
            if limiter is not None:
                limiter.release()
            raise
        if limiter is not None:
            limiter.release()
            limiter.succeeded()
        if on_attempt is not None:
            on_attempt(Attempt("answered", time.monotonic() - started))
        return result


def _failure_kind(verdict: Classified) -> AttemptKind:
    if verdict.timed_out:
        return "timeout"
    return "rate_limited" if verdict.rate_limited else "failed"
