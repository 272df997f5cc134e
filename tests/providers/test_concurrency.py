"""Adaptive concurrency: the limiter's bounds, back-off and regrowth; retry-after headers; backoff;
and the retry loop (deterministic: injected sleep and rng, fake async requests)."""

from __future__ import annotations

import asyncio
import random
import time
from datetime import datetime, timedelta, timezone

import pytest

from gate.providers.concurrency import (
    MAX_RETRY_AFTER,
    AdaptiveLimiter,
    AttemptTimeout,
    Classified,
    RetryPolicy,
    backoff_delay,
    call_with_retries,
    retry_after_seconds,
)


class RateLimited(Exception):
    def __init__(self, retry_after: float | None = None):
        super().__init__("429")
        self.retry_after = retry_after


class Flaky(Exception):
    pass


class Fatal(Exception):
    pass


def classify(exc: BaseException) -> Classified:
    if isinstance(exc, RateLimited):
        return Classified(retryable=True, rate_limited=True, retry_after=exc.retry_after)
    if isinstance(exc, Flaky):
        return Classified(retryable=True)
    return Classified(retryable=False)


class FakeSleep:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        await asyncio.sleep(0)


# ---- limiter ----


def test_limiter_never_exceeds_its_limit():
    async def go() -> AdaptiveLimiter:
        limiter = AdaptiveLimiter(5)
        peak = 0

        async def work() -> None:
            nonlocal peak
            async with limiter:
                peak = max(peak, limiter.in_flight)
                await asyncio.sleep(0.001)

        await asyncio.gather(*(work() for _ in range(60)))
        assert peak == 5
        return limiter

    limiter = asyncio.run(go())
    assert limiter.in_flight == 0


def test_rate_limited_halves_down_to_min_and_regrows_after_consecutive_successes():
    limiter = AdaptiveLimiter(16, min_limit=3, regrow_after=4)
    limiter.rate_limited(None)
    assert limiter.current_limit == 8
    limiter.rate_limited(None)
    limiter.rate_limited(None)
    assert limiter.current_limit == 3  # 4 would halve to 2, but min_limit is 3
    for _ in range(3):
        limiter.succeeded()
    assert limiter.current_limit == 3
    limiter.succeeded()
    assert limiter.current_limit == 4
    # A rate limit resets the run of successes.
    for _ in range(3):
        limiter.succeeded()
    limiter.rate_limited(None)
    limiter.succeeded()
    assert limiter.current_limit == 3
    for _ in range(4 * 40):
        limiter.succeeded()
    assert limiter.current_limit == 16  # never above the configured limit


def test_a_burst_of_429s_from_requests_started_before_a_cut_cuts_once():
    limiter = AdaptiveLimiter(32)
    started = limiter.generation  # 32 requests start under the same limit...
    for _ in range(10):  # ...and all come back 429
        limiter.rate_limited(None, started_generation=started)
    assert limiter.current_limit == 16
    limiter.rate_limited(None, started_generation=limiter.generation)  # started after the cut
    assert limiter.current_limit == 8


def test_after_a_cut_no_new_start_until_in_flight_is_below_the_new_limit():
    async def go() -> list[int]:
        limiter = AdaptiveLimiter(4)
        release = asyncio.Event()
        seen: list[int] = []

        async def hold() -> None:
            async with limiter:
                await release.wait()

        async def later() -> None:
            async with limiter:
                seen.append(limiter.in_flight)

        holders = [asyncio.create_task(hold()) for _ in range(4)]
        await asyncio.sleep(0)
        limiter.rate_limited(None)  # limit 4 -> 2 while 4 are in flight
        waiting = asyncio.create_task(later())
        await asyncio.sleep(0.01)
        assert not waiting.done()
        release.set()
        await asyncio.gather(*holders, waiting)
        return seen

    assert asyncio.run(go()) == [1]


def test_retry_after_pauses_new_starts():
    async def go() -> float:
        limiter = AdaptiveLimiter(4)
        limiter.rate_limited(0.15)
        started = time.monotonic()
        async with limiter:
            return time.monotonic() - started

    waited = asyncio.run(go())
    assert 0.13 <= waited < 1.0


def test_cancelled_waiter_does_not_leak_a_slot():
    async def go() -> AdaptiveLimiter:
        limiter = AdaptiveLimiter(1)
        await limiter.acquire()
        waiter = asyncio.create_task(limiter.acquire())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        limiter.release()
        async with limiter:
            assert limiter.in_flight == 1
        return limiter

    assert asyncio.run(go()).in_flight == 0


def test_waiters_are_served_in_arrival_order():
    async def go() -> list[int]:
        limiter = AdaptiveLimiter(1)
        order: list[int] = []

        async def work(i: int) -> None:
            async with limiter:
                order.append(i)
                await asyncio.sleep(0)

        await asyncio.gather(*(work(i) for i in range(10)))
        return order

    assert asyncio.run(go()) == list(range(10))


# ---- retry-after headers ----

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"Retry-After-Ms": "1500", "retry-after": "9"}, 1.5),  # ms wins
        ({"retry-after": "3"}, 3.0),
        ({"Retry-After": "0.5"}, 0.5),
        ({"retry-after": "Sat, 01 Mar 2025 12:00:07 GMT"}, 7.0),
        ({"retry-after": "Sat, 01 Mar 2025 11:00:00 GMT"}, 0.0),  # in the past
        ({"retry-after": "3600"}, MAX_RETRY_AFTER),  # capped
        ({"x-ratelimit-reset-requests": "1s"}, 1.0),
        ({"x-ratelimit-reset-requests": "20ms"}, 0.02),
        ({"x-ratelimit-reset-tokens": "6m0s"}, MAX_RETRY_AFTER),
        ({"x-ratelimit-reset-tokens": "1m2.5s"}, MAX_RETRY_AFTER),
        (
            {
                "x-ratelimit-reset-requests": "2s",
                "x-ratelimit-remaining-requests": "0",
                "x-ratelimit-reset-tokens": "30s",
                "x-ratelimit-remaining-tokens": "5000",
            },
            2.0,
        ),
        ({"x-ratelimit-reset-requests": "2s", "x-ratelimit-reset-tokens": "450ms"}, 2.0),
        ({"anthropic-ratelimit-requests-reset": "2025-03-01T12:00:04Z"}, 4.0),
        (
            {
                "anthropic-ratelimit-requests-reset": "2025-03-01T12:00:04Z",
                "anthropic-ratelimit-requests-remaining": "10",
                "anthropic-ratelimit-output-tokens-reset": "2025-03-01T12:00:01.500000+00:00",
                "anthropic-ratelimit-output-tokens-remaining": "0",
            },
            1.5,
        ),
        ({}, None),
        ({"retry-after": "soon"}, None),
        ({"x-ratelimit-reset-requests": "whenever"}, None),
        ({"content-type": "application/json"}, None),
    ],
)
def test_retry_after_seconds(headers, expected):
    got = retry_after_seconds(headers, now=NOW)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected)


def test_retry_after_seconds_custom_cap_and_real_clock():
    assert retry_after_seconds({"retry-after": "100"}, cap=5) == 5
    soon = (datetime.now(timezone.utc) + timedelta(seconds=10)).isoformat()
    assert 8 < retry_after_seconds({"anthropic-ratelimit-requests-reset": soon}) <= 10


# ---- backoff ----


def test_backoff_is_full_jitter_exponential_and_capped():
    policy = RetryPolicy(base_delay=0.5, max_delay=4.0)
    rng = random.Random(1)
    for attempt, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 4.0), (40, 4.0), (5000, 4.0)]:
        delays = [backoff_delay(attempt, policy, rng) for _ in range(300)]
        assert all(0.0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling * 0.8  # it really spreads up to the ceiling
        assert min(delays) < ceiling * 0.2  # and down towards zero (full jitter)


def test_backoff_retry_after_wins():
    policy = RetryPolicy(base_delay=0.5, max_delay=4.0)
    assert backoff_delay(1, policy, random.Random(0), retry_after=7.0) == 7.0
    assert backoff_delay(6, policy, random.Random(0), retry_after=0.0) == 0.0
    assert backoff_delay(1, policy, random.Random(0), retry_after=1e9) == MAX_RETRY_AFTER


# ---- the retry loop ----


def run(coro):
    return asyncio.run(coro)


def test_retries_retryable_errors_then_returns():
    outcomes = [Flaky(), RateLimited(2.0), "answer"]
    calls = 0

    async def fn() -> str:
        nonlocal calls
        outcome = outcomes[calls]
        calls += 1
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    sleep = FakeSleep()
    limiter = AdaptiveLimiter(8)
    result = run(
        call_with_retries(
            fn,
            limiter=limiter,
            policy=RetryPolicy(base_delay=1.0),
            classify=classify,
            sleep=sleep,
            rng=random.Random(3),
        )
    )
    assert result == "answer" and calls == 3
    assert len(sleep.delays) == 2
    assert 0.0 <= sleep.delays[0] <= 1.0  # jittered backoff after the first failure
    assert sleep.delays[1] == 2.0  # the server's retry-after after the 429
    assert limiter.current_limit == 4  # one cut
    assert limiter.in_flight == 0


def test_gives_up_after_max_attempts_and_reraises_the_last_error():
    calls = 0

    async def fn() -> str:
        nonlocal calls
        calls += 1
        raise Flaky(f"attempt {calls}")

    sleep = FakeSleep()
    with pytest.raises(Flaky, match="attempt 4"):
        run(
            call_with_retries(
                fn,
                limiter=AdaptiveLimiter(2),
                policy=RetryPolicy(max_attempts=4),
                classify=classify,
                sleep=sleep,
                rng=random.Random(0),
            )
        )
    assert calls == 4 and len(sleep.delays) == 3


def test_not_retryable_errors_are_raised_at_once():
    calls = 0

    async def fn() -> str:
        nonlocal calls
        calls += 1
        raise Fatal("401")

    sleep = FakeSleep()
    limiter = AdaptiveLimiter(2)
    with pytest.raises(Fatal):
        run(call_with_retries(fn, limiter=limiter, policy=RetryPolicy(), classify=classify, sleep=sleep))
    assert calls == 1 and sleep.delays == [] and limiter.in_flight == 0


def test_no_slot_is_held_while_backing_off():
    async def go() -> tuple[list[int], AdaptiveLimiter]:
        limiter = AdaptiveLimiter(1)
        in_flight_while_sleeping: list[int] = []

        async def sleep(delay: float) -> None:
            in_flight_while_sleeping.append(limiter.in_flight)
            await asyncio.sleep(0)

        failures = iter([Flaky(), Flaky()])

        async def fn() -> str:
            failure = next(failures, None)
            if failure:
                raise failure
            return "ok"

        result = await call_with_retries(
            fn, limiter=limiter, policy=RetryPolicy(), classify=classify, sleep=sleep
        )
        assert result == "ok"
        return in_flight_while_sleeping, limiter

    sleeping, limiter = run(go())
    assert sleeping == [0, 0]
    assert limiter.in_flight == 0


def test_many_callers_never_exceed_the_limit_and_regrow_after_rate_limits():
    async def go() -> tuple[int, AdaptiveLimiter, int, int]:
        limiter = AdaptiveLimiter(8, regrow_after=4)
        peak = 0
        done = 0
        attempts = 0

        async def request(i: int) -> int:
            nonlocal peak, attempts
            attempts += 1
            peak = max(peak, limiter.in_flight)
            assert limiter.in_flight <= limiter.limit
            await asyncio.sleep(0.001)
            if attempts % 10 == 0:
                raise RateLimited(None)
            return i

        async def one(i: int) -> None:
            nonlocal done
            assert (
                await call_with_retries(
                    lambda: request(i),
                    limiter=limiter,
                    policy=RetryPolicy(base_delay=0.001, max_delay=0.002),
                    classify=classify,
                )
                == i
            )
            done += 1

        await asyncio.gather(*(one(i) for i in range(200)))
        return peak, limiter, done, attempts

    peak, limiter, done, attempts = run(go())
    assert done == 200
    assert peak <= 8
    assert attempts > 200  # rate limited attempts were retried
    assert limiter.current_limit > limiter.min_limit  # it grew back after the cuts
    assert limiter.in_flight == 0


def test_attempt_timeout_is_retried():
    calls = 0

    async def fn() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.sleep(10)
        return "second time lucky"

    sleep = FakeSleep()
    started = time.monotonic()
    result = run(
        call_with_retries(
            fn, limiter=AdaptiveLimiter(1), policy=RetryPolicy(timeout=0.05), classify=classify, sleep=sleep
        )
    )
    assert result == "second time lucky" and calls == 2
    assert time.monotonic() - started < 1.0
    assert isinstance(AttemptTimeout("x"), TimeoutError)


def test_works_without_a_limiter():
    async def fn() -> int:
        return 7

    assert run(call_with_retries(fn, limiter=None, policy=RetryPolicy(), classify=classify)) == 7
