"""The model requests of a run or a suite in words, the same in every output (console, Markdown,
JUnit, HTML): how many were sent and how their attempts ended, where their time went, what they cost,
when most of that time went to attempts that timed out, to raise ``--timeout``, and with a base side
how many each side needed. Pure.
"""

from __future__ import annotations

from gate.results.outcomes import RequestStats
from gate.results.settings import CacheCounts, RunSettings

# "Most of the time": the share of request time lost to timeouts from which the advice is given.
TIMEOUT_SHARE = 0.5


def _seconds(ms: float) -> str:
    return f"{ms / 1000:,.1f} s"


def _share(part: float, whole: float) -> str:
    return f"{part / whole:.0%}" if whole > 0 else "0%"


def cost_text(stats: RequestStats) -> str:
    """The estimated cost: ``$0.0123``, with what is unknown said (never counted as zero)."""
    if not stats.unpriced:
        return f"${stats.cost_usd:.4f}"
    unknown = f"{stats.unpriced} request(s) of a model with no known price"
    return f"unknown ({unknown})" if not stats.cost_usd else f"${stats.cost_usd:.4f} + unknown ({unknown})"


def attempts_text(stats: RequestStats) -> str:
    """``model requests: 33`` and, when some attempts failed, how many there were and how they ended."""
    text = f"model requests: {stats.requests}"
    if not (stats.timeouts or stats.rate_limited or stats.failed):
        return text
    ended = [
        f"{count} {what}"
        for count, what in (
            (stats.timeouts, "timed out"),
            (stats.rate_limited, "rate limited (429)"),
            (stats.failed, "failed"),
        )
        if count
    ]
    return f"{text}, {stats.attempts} attempts ({', '.join(ended)}; {stats.retries} retries)"


def time_text(stats: RequestStats) -> str:
    """Where the requests' time went; "" when none was lost to failed attempts or waiting."""
    lost = stats.timeout_ms + stats.failed_ms + stats.backoff_ms
    if not lost:
        return ""
    whole = stats.request_ms
    parts = [f"{_seconds(stats.answered_ms)} answering"]
    if stats.timeout_ms:
        parts.append(
            f"{_seconds(stats.timeout_ms)} ({_share(stats.timeout_ms, whole)}) in attempts that timed out"
        )
    if stats.failed_ms:
        parts.append(f"{_seconds(stats.failed_ms)} in refused or failed attempts")
    if stats.backoff_ms:
        parts.append(f"{_seconds(stats.backoff_ms)} waiting to retry")
    return (
        f"time in model requests {_seconds(whole)} (summed over requests in flight together): "
        + ", ".join(parts)
    )


def timeout_advice(stats: RequestStats) -> str:
    """When most of the request time went to attempts that timed out: raise ``--timeout``; else ""."""
    if not stats.timeouts or stats.timeout_ms < TIMEOUT_SHARE * stats.request_ms:
        return ""
    each = _seconds(stats.timeout_ms / stats.timeouts)
    return (
        f"most of the time in model requests ({_share(stats.timeout_ms, stats.request_ms)}) went to "
        f"{stats.timeouts} attempt(s) that timed out after about {each} each: raise --timeout "
        "(the action's timeout input); a model answering on CPU can need minutes per reply"
    )


def request_lines(stats: RequestStats) -> list[str]:
    """The run's (or a suite's) requests in a few lines: counts and cost, time, advice. Nothing when no
    request was sent."""
    if not stats.attempts:
        return []
    lines = [f"{attempts_text(stats)}, estimated cost {cost_text(stats)}"]
    return lines + [line for line in (time_text(stats), timeout_advice(stats)) if line]


def requests_by_side(settings: RunSettings) -> str:
    """How many model requests each side of a ``--baseline auto`` run needed, and how many answers
    came from the cache; empty without a base side."""
    base = settings.baseline
    if base is None:
        return ""

    def side(requests: int, cache: CacheCounts | None) -> str:
        hits = f", {cache.hits} from the cache" if cache is not None else ""
        return f"{requests} model request(s){hits}"

    return (
        f"head: {side(settings.requests or 0, settings.cache)}; "
        f"base ({base.merge_base[:12]}): {side(base.requests, base.cache)}"
    )
