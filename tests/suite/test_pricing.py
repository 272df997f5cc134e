"""Cost estimates: known models by their family's list price, dated snapshots included, unknown
models never guessed."""

from __future__ import annotations

import pytest

from gate.results.run_record import Usage
from gate.suite.pricing import BUILT_IN, price


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
    assert BUILT_IN.cost(provider, model, Usage(1000, 1000)) is None


def test_cost_is_tokens_times_price_per_million():
    assert BUILT_IN.cost("openai", "gpt-4o-mini", Usage(1_000_000, 0)) == pytest.approx(0.15)
    assert BUILT_IN.cost("openai", "gpt-4o-mini", Usage(2000, 500)) == pytest.approx(
        (2000 * 0.15 + 500 * 0.60) / 1e6
    )
    assert BUILT_IN.cost("anthropic", "claude-3-haiku-20240307", Usage(0, 0)) == 0.0


def _table(text: str, name: str = "prices.yaml"):
    from gate.files.yaml_source import parse
    from gate.suite.pricing import price_table

    doc = parse(text, name)
    return price_table(doc.data, name, lambda at: doc.position(at)[0])


def test_a_prices_file_extends_and_overrides_the_built_in_table_and_says_where_each_price_came_from():
    from gate.suite.pricing import BUILT_IN_SOURCE

    table, problems = _table(
        "# negotiated\n"
        "gpt-4o: {input: 2.0, output: 8.0, cached_input: 1.0}\n"
        "my-azure-deployment: {input: 2.5, output: 10}\n"
        "llama3*: {input: 0, output: 0}\n"
        "openai/gpt-oss-20b: {input: 0.1, output: 0.5}\n"
    )
    assert problems == []
    override = table.lookup("openai", "gpt-4o")
    assert (override.input, override.output, override.cached_input, override.source) == (
        2.0,
        8.0,
        1.0,
        "prices.yaml:2",
    )
    assert table.lookup("openai", "gpt-4o-2024-08-06").source == BUILT_IN_SOURCE  # exact names only
    assert table.lookup("openai", "my-azure-deployment").source == "prices.yaml:3"
    assert table.lookup("openai", "llama3.1:8b").input == 0.0
    assert table.lookup("openai", "gpt-oss-20b").source == "prices.yaml:5"
    assert table.lookup("openai", "openai/gpt-oss-20b").source == "prices.yaml:5"  # a served model's name
    assert table.lookup("anthropic", "gpt-oss-20b") is None
    assert table.lookup("openai", "gpt-4o-mini").source == BUILT_IN_SOURCE
    # Cached input tokens at their own price.
    assert table.cost("openai", "gpt-4o", Usage(1_000_000, 0), 400_000) == pytest.approx(
        0.6 * 2.0 + 0.4 * 1.0
    )


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("m: {input: 1}\n", "needs 'output'", 1),
        ("a: {input: 1, output: 1}\nm: {input: 1, output: -2}\n", "m.output must be a number", 2),
        ("m: {input: 1, output: 1, cache: 2}\n", "unknown key 'cache'", 1),
        ("- m\n", "maps model names to prices", 1),
    ],
)
def test_a_bad_prices_file_is_located(text, message, line):
    _, problems = _table(text)
    assert any(message in p.message and p.line == line for p in problems), problems


def test_max_cost_names_an_unpriced_user_simulator_like_the_agent_and_the_judge():
    """Every model a suite asks is priced or refused: the simulated user's requests cost money too."""
    import dataclasses

    from gate.suite.model import Judge
    from gate.suite.pricing import BUILT_IN, unpriced_models
    from tests.builders import case, suite

    base = suite(case("a", "hi"), judge=None)
    assert not any("user simulator" in line for line in unpriced_models([base], BUILT_IN))
    simulated = dataclasses.replace(base, user_simulator=Judge(provider="openai", model="sim-without-price"))
    lines = unpriced_models([simulated], BUILT_IN)
    assert any("the user simulator model 'sim-without-price'" in line for line in lines), lines
