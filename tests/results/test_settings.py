"""RunSettings: the run's recorded settings, typed, with the keys the results file always had."""

from __future__ import annotations

import json

from gate.results.settings import BaseSideRecord, CacheCounts, PriceRecord, RunSettings

WRITTEN = {  # what `run --baseline auto` records (keys as the results file holds them)
    "errors": "count",
    "fail_on": "regression_or_threshold",
    "threshold": 0.8,
    "changed_since": "origin/main",
    "model": "openai:gpt-4.1-mini",
    "judge_model": "gpt-4o",
    "prices": {
        "openai/gpt-4o-mini": {
            "input": 0.15,
            "output": 0.6,
            "cached_input": None,
            "source": "built-in table",
        },
        "openai/local": {"source": "unknown: no price (give it with --prices)"},
    },
    "requests": 12,
    "estimated_cost_usd": 0.0123,
    "cost_incomplete": True,
    "cache": {"hits": 3, "misses": 12},
    "baseline": {
        "mode": "auto",
        "ref": "origin/main",
        "merge_base": "a" * 40,
        "changed_lines": {"tools/weather.json": [5, 6]},
        "suites_without_base": ["new-suite"],
        "requests": 4,
        "estimated_cost_usd": 0.002,
        "cache": {"hits": 8, "misses": 4},
    },
}


def test_the_recorded_settings_read_back_typed_and_write_the_same_keys() -> None:
    settings = RunSettings.from_dict(json.loads(json.dumps(WRITTEN)))
    assert settings.fail_on == "regression_or_threshold" and settings.requests == 12
    assert settings.prices is not None and settings.prices["openai/local"] == PriceRecord(
        "unknown: no price (give it with --prices)"
    )
    assert not settings.prices["openai/local"].known and settings.prices["openai/gpt-4o-mini"].known
    assert settings.cache == CacheCounts(3, 12)
    assert settings.baseline == BaseSideRecord(
        ref="origin/main",
        merge_base="a" * 40,
        changed_lines={"tools/weather.json": (5, 6)},
        suites_without_base=("new-suite",),
        requests=4,
        estimated_cost_usd=0.002,
        cache=CacheCounts(8, 4),
    )
    assert settings.to_dict() == WRITTEN


def test_what_was_not_recorded_is_not_written() -> None:
    assert RunSettings().to_dict() == {}
    assert RunSettings.from_dict({"errors": "count"}).to_dict() == {"errors": "count"}
    base_side = RunSettings().counted(requests=0, estimated_cost_usd=0.0, cost_incomplete=False)
    assert base_side.to_dict() == {"requests": 0, "estimated_cost_usd": 0.0}


def test_older_spellings_are_read_and_unknown_keys_kept() -> None:
    old = RunSettings.from_dict({"errors_count": False, "fail_on": "any-failure", "note": {"a": [1]}})
    assert (old.errors, old.fail_on) == ("ignore", "any_failure")
    assert old.to_dict() == {"errors": "ignore", "fail_on": "any_failure", "note": {"a": [1]}}
    assert RunSettings.from_dict({"errors_count": True}).errors == "count"
    assert RunSettings.from_dict({"fail_on": "sometimes"}).fail_on is None  # unknown: the default rule


def test_counting_keeps_what_was_recorded() -> None:
    recorded = RunSettings(requests=5, estimated_cost_usd=1.0)
    assert recorded.counted(requests=9, estimated_cost_usd=2.0, cost_incomplete=True) == RunSettings(
        requests=5, estimated_cost_usd=1.0, cost_incomplete=True
    )
