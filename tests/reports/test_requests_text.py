"""The model requests in words (gate.reports.requests_text), as every report says them."""

from __future__ import annotations

from gate.reports.requests_text import cost_text, request_lines, requests_by_side
from gate.results.outcomes import RequestStats
from gate.results.settings import BaseSideRecord, CacheCounts, RunSettings


def test_each_side_of_a_comparison_says_its_requests_and_cache_answers():
    settings = RunSettings(
        requests=12,
        cache=CacheCounts(hits=3, misses=12),
        baseline=BaseSideRecord(merge_base="0123456789abcdef", requests=0, cache=CacheCounts(hits=15)),
    )
    assert requests_by_side(settings) == (
        "head: 12 model request(s), 3 from the cache; "
        "base (0123456789ab): 0 model request(s), 15 from the cache"
    )
    assert requests_by_side(RunSettings(requests=12)) == ""  # no base side


def test_an_unknown_price_is_never_counted_as_zero():
    assert cost_text(RequestStats(requests=2, attempts=2, cost_usd=0.01)) == "$0.0100"
    assert cost_text(RequestStats(requests=2, attempts=2, unpriced=2)) == (
        "unknown (2 request(s) of a model with no known price)"
    )
    assert request_lines(RequestStats()) == []  # nothing sent, nothing said
