"""Estimated cost of model calls: list prices in USD per million tokens.

A small built-in table covers common models; a prices file (``--prices FILE``) extends and overrides
it (deployment names, local models, new models, negotiated prices, cached-input prices). Prices are
used for the estimate shown in reports and for ``--max-cost``; every price says where it came from.
Unknown models cost ``None`` (unknown), never a guess. Pure: the file is read by the run command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from gate.errors import Problem
from gate.results.run_record import Usage
from gate.results.settings import PriceRecord
from gate.suite.model import PROVIDERS, Suite
from gate.util.json_types import PathKey

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


BUILT_IN_SOURCE = "built-in table"
_PRICE_KEYS = ("input", "output", "cached_input")


@dataclass(frozen=True)
class Price:
    """USD per million tokens, and where the figures came from (``prices.yaml:3`` or the table)."""

    input: float
    output: float
    cached_input: float | None = None  # None: cached input tokens cost as much as the others
    source: str = BUILT_IN_SOURCE

    def cost(self, usage: Usage, cached_input_tokens: int = 0) -> float:
        cached = min(cached_input_tokens, usage.input_tokens)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        fresh = usage.input_tokens - cached
        return (fresh * self.input + cached * cached_rate + usage.output_tokens * self.output) / 1_000_000


@dataclass(frozen=True)
class PriceEntry:
    """A price the user gave: for ``model`` exactly, or every model starting with it (``prefix``),
    of ``provider`` only when the key named one (``openai/my-deployment``)."""

    provider: str | None
    model: str
    prefix: bool
    price: Price
    key: str = ""  # as written: "openai/gpt-oss-20b" may also be a served model's whole name

    def matches(self, provider: str, model: str) -> bool:
        if self.key and self._name_matches(model, self.key):
            return True
        if self.provider is not None and self.provider != provider:
            return False
        return self._name_matches(model, self.model)

    def _name_matches(self, model: str, name: str) -> bool:
        return model.startswith(name) if self.prefix else model == name


@dataclass(frozen=True)
class PriceTable:
    """The user's prices (a ``--prices`` file) over the built-in table: an exact name first, then
    the longest of the user's prefixes, then the built-in table's longest prefix."""

    entries: tuple[PriceEntry, ...] = ()

    def lookup(self, provider: str, model: str) -> Price | None:
        found = self._given(provider, model)
        if found is not None:
            return found
        return _built_in(provider, model)

    def _given(self, provider: str, model: str) -> Price | None:
        """The user's price for ``model``: an exact name first, then the longest prefix."""
        found = [e for e in self.entries if e.matches(provider, model)]
        exact = [e for e in found if not e.prefix]
        if exact:
            return (next((e for e in exact if e.provider), exact[0])).price
        if found:
            return max(found, key=lambda e: (len(e.model), e.provider is not None)).price
        return None

    def served(self, provider: str, asked: str, answered: str) -> Price | None:
        """The price of a reply the server says ``answered`` gave to a request for ``asked``: the
        asked model's when the server names no other; else the user's price for the answering model,
        then the user's for the asked one (a deployment or local model priced by the name the suite
        uses), then the built-in table's for the answering model (a dated snapshot finds its family;
        a ``vendor/`` prefix is looked through). Never the table's price of a model that did not answer:
        a local model served under a cloud model's name is unpriced, not priced as the cloud model."""
        if not answered or answered == asked:
            return self.lookup(provider, asked)
        found = self._given(provider, answered) or self._given(provider, asked)
        if found is not None:
            return found
        return _built_in(provider, answered) or _built_in(provider, answered.rsplit("/", 1)[-1])

    def cost(
        self, provider: str, model: str, usage: Usage, cached_input_tokens: int = 0, answered: str = ""
    ) -> float | None:
        """Estimated cost of ``usage`` on ``model`` (``cached_input_tokens`` of its input read from
        the provider's prompt cache; ``answered``: the model the server says answered, see
        ``served``); None when the model has no price."""
        found = self.served(provider, model, answered)
        return None if found is None else found.cost(usage, cached_input_tokens)


BUILT_IN = PriceTable()


def _built_in(provider: str, model: str) -> Price | None:
    rates = price(provider, model)
    return None if rates is None else Price(rates[0], rates[1])


PRICES_HINT = (
    "give its price in a prices file and pass --prices FILE (action input: prices), e.g. "
    "'{model}: {{input: 2.50, output: 10.00, cached_input: 1.25}}' in USD per million tokens"
)


def price_table(
    data: Any, source: str, line_of: Callable[[PathKey], int]
) -> tuple[PriceTable, list[Problem]]:
    """The table of a prices file (``data`` as parsed; ``line_of`` locates a key path): a mapping
    of model name (``provider/model`` to name the provider, ``name*`` for every model starting
    with ``name``) to ``{input, output, cached_input?}`` in USD per million tokens."""
    problems: list[Problem] = []

    def fail(path: PathKey, message: str, hint: str = "") -> None:
        problems.append(Problem(source, line_of(path), 0, message, hint))

    base: PathKey = ()
    if isinstance(data, dict) and set(data) == {"prices"} and isinstance(data["prices"], dict):
        data, base = data["prices"], ("prices",)
    if not isinstance(data, dict) or not data:
        fail((), "a prices file maps model names to prices", "write 'gpt-4o: {input: 2.50, output: 10.00}'")
        return BUILT_IN, problems
    entries: list[PriceEntry] = []
    for key, value in data.items():
        at = (*base, key)
        if not isinstance(key, str) or not key.strip("*/ "):
            fail(at, f"{key!r} is not a model name")
            continue
        if not isinstance(value, dict):
            fail(at, f"the price of {key!r} must be a mapping", "write {input: 2.50, output: 10.00}")
            continue
        for extra in sorted(set(value) - set(_PRICE_KEYS), key=str):
            fail(
                (*at, extra),
                f"unknown key {extra!r} in the price of {key!r}",
                "keys: input, output, cached_input",
            )
        numbers: dict[str, float] = {}
        for name in _PRICE_KEYS:
            number = value.get(name)
            if number is None and name != "cached_input":
                fail(at, f"the price of {key!r} needs {name!r}", "USD per million tokens")
            elif number is not None:
                if isinstance(number, bool) or not isinstance(number, int | float) or not 0 <= number < 1e6:
                    fail((*at, name), f"{key}.{name} must be a number of USD per million tokens, >= 0")
                else:
                    numbers[name] = float(number)
        if "input" not in numbers or "output" not in numbers:
            continue
        provider, _, model = key.rpartition("/") if key.split("/", 1)[0] in PROVIDERS else ("", "", key)
        entries.append(
            PriceEntry(
                provider=provider or None,
                model=model.rstrip("*"),
                prefix=model.endswith("*"),
                key=key.rstrip("*") if provider else "",
                price=Price(
                    numbers["input"],
                    numbers["output"],
                    numbers.get("cached_input"),
                    f"{source}:{line_of(at)}",
                ),
            )
        )
    return PriceTable(tuple(entries)), problems


@lru_cache(maxsize=256)
def price(provider: str, model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens for the model, or None when unknown."""
    best: tuple[float, float] | None = None
    best_len = -1
    for (prov, prefix), value in PRICES.items():
        if prov == provider and model.startswith(prefix) and len(prefix) > best_len:
            best, best_len = value, len(prefix)
    return best


def suite_models(suite: Suite) -> list[tuple[str, str, str]]:
    """(role, provider, model) of every model a suite asks: the agent, the judge and the user
    simulator. An agent program's models are its own choice, known only from its requests."""
    models: list[tuple[str, str, str]] = []
    if suite.agent.program is None:
        models.append(("agent", suite.agent.provider, suite.agent.model))
    if suite.judge is not None:
        models.append(("judge", suite.judge.provider, suite.judge.model))
    if suite.user_simulator is not None:
        models.append(("user simulator", suite.user_simulator.provider, suite.user_simulator.model))
    return models


def unpriced_models(suites: Sequence[Suite], table: PriceTable) -> list[str]:
    """One line per model without a price (``--max-cost`` refuses to start then)."""
    lines: list[str] = []
    for suite in suites:
        for role, provider, model in suite_models(suite):
            if table.lookup(provider, model) is None:
                lines.append(
                    f"{suite.path}: --max-cost: the {role} model {model!r} ({provider}) has no known price, "
                    "so the budget could not cap it; " + PRICES_HINT.format(model=model)
                )
    return list(dict.fromkeys(lines))


def prices_used(suites: Sequence[Suite], table: PriceTable) -> dict[str, PriceRecord]:
    """``provider/model`` -> its price and where it came from (no price: unknown), for reports."""
    used: dict[str, PriceRecord] = {}
    for suite in suites:
        for _role, provider, model in suite_models(suite):
            used[f"{provider}/{model}"] = _price_entry(table.lookup(provider, model))
    return used


def _price_entry(found: Price | None) -> PriceRecord:
    if found is None:
        return PriceRecord("unknown: no price (give it with --prices)")
    return PriceRecord(found.source, found.input, found.output, found.cached_input)


def served_prices(
    used: Mapping[str, PriceRecord], served: Mapping[tuple[str, str], Set[str]], table: PriceTable
) -> dict[str, PriceRecord]:
    """``prices_used`` after the run, by the models that answered: ``served`` maps (provider, asked
    model) to the models the server named in its replies. An answering model of another name is
    listed with the price its replies got (``answered_for`` the asked one); an asked model that
    never answered under its own name is no longer listed."""
    out = dict(used)
    for (provider, asked), answered in sorted(served.items()):
        others = sorted(name for name in answered if name and name != asked)
        for name in others:
            out[f"{provider}/{name}"] = replace(
                _price_entry(table.served(provider, asked, name)), answered_for=asked
            )
        if others and all(name in others for name in answered):
            out.pop(f"{provider}/{asked}", None)
    return out
