"""Estimated cost of model calls: a small table of list prices in USD per million tokens.

Prices change; the table covers common models and is only used for the estimate shown in reports and
for ``--max-cost``. Unknown models cost ``None`` (unknown), never a guess.
"""

from __future__ import annotations

from functools import lru_cache

from gate.run_record import Usage

# (provider, model prefix) -> (input USD per 1M tokens, output USD per 1M tokens).
# Longest matching prefix wins, so dated snapshots ("gpt-4o-2024-08-06") find their family.
PRICES: dict[tuple[str, str], tuple[float, float]] = {
    ("openai", "gpt-4o-mini"): (0.15, 0.60),
    ("openai", "gpt-4o"): (2.50, 10.00),
    ("openai", "gpt-4.1-nano"): (0.10, 0.40),
    ("openai", "gpt-4.1-mini"): (0.40, 1.60),
    ("openai", "gpt-4.1"): (2.00, 8.00),
    ("openai", "gpt-4-turbo"): (10.00, 30.00),
    ("openai", "gpt-3.5-turbo"): (0.50, 1.50),
    ("openai", "gpt-5-nano"): (0.05, 0.40),
    ("openai", "gpt-5-mini"): (0.25, 2.00),
    ("openai", "gpt-5"): (1.25, 10.00),
    ("openai", "o1-mini"): (1.10, 4.40),
    ("openai", "o1"): (15.00, 60.00),
    ("openai", "o1-pro"): (150.00, 600.00),
    ("openai", "o3-mini"): (1.10, 4.40),
    ("openai", "o3"): (2.00, 8.00),
    ("openai", "o3-pro"): (20.00, 80.00),
    ("openai", "o4-mini"): (1.10, 4.40),
    ("anthropic", "claude-3-haiku"): (0.25, 1.25),
    ("anthropic", "claude-3-5-haiku"): (0.80, 4.00),
    ("anthropic", "claude-haiku-4-5"): (1.00, 5.00),
    ("anthropic", "claude-3-5-sonnet"): (3.00, 15.00),
    ("anthropic", "claude-3-7-sonnet"): (3.00, 15.00),
    ("anthropic", "claude-sonnet-4"): (3.00, 15.00),
    ("anthropic", "claude-3-opus"): (15.00, 75.00),
    ("anthropic", "claude-opus-4-5"): (5.00, 25.00),
    ("anthropic", "claude-opus-4"): (15.00, 75.00),
}


@lru_cache(maxsize=256)
def price(provider: str, model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens for the model, or None when unknown."""
    best: tuple[float, float] | None = None
    best_len = -1
    for (prov, prefix), value in PRICES.items():
        if prov == provider and model.startswith(prefix) and len(prefix) > best_len:
            best, best_len = value, len(prefix)
    return best


def cost_usd(provider: str, model: str, usage: Usage) -> float | None:
    """Estimated cost of ``usage`` tokens on ``model``; None when the model's price is unknown."""
    rates = price(provider, model)
    if rates is None:
        return None
    return (usage.input_tokens * rates[0] + usage.output_tokens * rates[1]) / 1_000_000
