"""Cost estimates: known models by their family's list price, dated snapshots included, unknown
models never guessed."""

from __future__ import annotations

import pytest

from gate.pricing import cost_usd, price
from gate.run_record import Usage


@pytest.mark.parametrize(
    "provider, model, expected",
    [
        ("openai", "gpt-4o-mini", (0.15, 0.60)),
        ("openai", "gpt-4o-mini-2024-07-18", (0.15, 0.60)),  # a snapshot of the family
        ("openai", "gpt-4o", (2.50, 10.00)),
        ("openai", "gpt-4o-2024-08-06", (2.50, 10.00)),  # not confused with gpt-4o-mini
        ("openai", "o3-mini", (1.10, 4.40)),
        ("openai", "o3", (2.00, 8.00)),
        ("anthropic", "claude-3-5-haiku-20241022", (0.80, 4.00)),
        ("anthropic", "claude-sonnet-4-20250514", (3.00, 15.00)),
        ("anthropic", "claude-opus-4-5-20251101", (5.00, 25.00)),
    ],
)
def test_known_models(provider, model, expected):
    assert price(provider, model) == expected


@pytest.mark.parametrize(
    "provider, model",
    [("openai", "my-local-llama"), ("anthropic", "gpt-4o"), ("openai", "claude-sonnet-4"), ("openai", "")],
)
def test_unknown_models_have_no_price(provider, model):
    assert price(provider, model) is None
    assert cost_usd(provider, model, Usage(1000, 1000)) is None


def test_cost_is_tokens_times_price_per_million():
    assert cost_usd("openai", "gpt-4o-mini", Usage(1_000_000, 0)) == pytest.approx(0.15)
    assert cost_usd("openai", "gpt-4o-mini", Usage(2000, 500)) == pytest.approx(
        (2000 * 0.15 + 500 * 0.60) / 1e6
    )
    assert cost_usd("anthropic", "claude-3-haiku-20240307", Usage(0, 0)) == 0.0
