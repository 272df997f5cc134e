"""Candidates refused before any request: overfitting, and what reaches past its span."""

from __future__ import annotations

import json

from gate.fixes.screening import CaseFacts, case_facts, known_words, refusal
from gate.fixes.spans import definition_span, paragraph_span, value_of, write
from tests import builders as b
from tests import results_factory as r

SOURCE = json.dumps(
    [{"name": "get_forecast", "description": "Forecast data.", "input_schema": {"type": "object"}}], indent=2
)
SPAN = definition_span(SOURCE, "tools.json", "get_forecast", None, "Forecast data.", 0)
FACTS = [
    CaseFacts(
        "weather/tomorrow",
        ("Do I need sunglasses in Paris tomorrow? My order is A-1234.",),
        ("Paris", "metric", "42"),
    )
]
KNOWN = "get_forecast Forecast data. units metric imperial"


def refused(candidate: str, facts=FACTS, known: str = KNOWN) -> str:
    value = value_of(SPAN, candidate)
    return refusal(value, SPAN, write(SPAN, SOURCE, value), facts, known, ())


def test_a_rewording_in_general_terms_passes() -> None:
    assert (
        refused("Forecast for the coming days, starting tomorrow: use it for questions about later days.")
        == ""
    )


def test_a_value_the_case_expects_is_refused_unless_the_definitions_already_say_it() -> None:
    assert 'copies "Paris", a value case weather/tomorrow expects' in refused("Forecast, e.g. for paris.")
    assert refused("Forecast in metric units, from 42 stations.").startswith('it copies "42"')
    assert refused("Forecast; units are metric or imperial.") == ""  # the schema already lists metric


def test_a_requests_names_numbers_and_quotations_are_refused() -> None:
    facts = [CaseFacts("weather/tomorrow", ("Do I need sunglasses in Lisbon tomorrow? Order A-1234.",), ())]
    assert 'copies "Lisbon" from the request' in refused("Forecast, also for Lisbon.", facts)
    assert 'copies "A-1234"' in refused("Forecast for orders like A-1234.", facts)
    assert "quotes the request" in refused("Forecast: use it for do I need sunglasses questions.", facts)
    assert refused("Forecast: use it when the user asks about tomorrow.", facts) == ""  # a word, not a name


def test_what_reaches_past_its_span_is_refused() -> None:
    assert refused("Forecast data.") == "it is the current text"
    assert "rewrites the definition" in refused('{"name": "get_forecast", "description": "x"}')
    assert "rewrites the definition" in refused('Forecast. "parameters": {}')
    assert "control or bidirectional" in refused("Forecast \u202eadmin\u202c data.")
    assert "characters long" in refused("word " * 2000)


def test_code_that_its_literal_cannot_hold_is_refused() -> None:
    source = 'def f():\n    """Forecast data."""\n'
    span = definition_span(source, "server.py", "f", None, "Forecast data.", 2)
    value = value_of(span, 'Forecast """ data.')
    assert "cannot hold it as that string literal" in refusal(
        value, span, write(span, source, value), (), "", ()
    )


def test_a_paragraph_may_not_rewrite_its_neighbours_nor_add_placeholders() -> None:
    source = "You help with the weather of any city on earth.\n\nUse get_forecast for later days.\n"
    span = paragraph_span(source, "prompt.md", 3)
    others = ["You help with the weather of any city on earth."]
    for candidate, why in (
        (
            "You help with the weather of any city on earth. Use get_forecast for tomorrow.",
            "another paragraph",
        ),
        ("Use get_forecast for {{ when }}.", "placeholder"),
    ):
        value = value_of(span, candidate)
        assert why in refusal(value, span, write(span, source, value), (), "", others)


def test_case_facts_read_the_literals_of_the_expectation_not_its_patterns() -> None:
    case = b.case(
        "tomorrow",
        "Rain in Oslo?",
        b.expectation(
            b.ecall(
                "get_forecast", {"city": {"one_of": ["Oslo", "OSL"]}, "days": 3, "q": {"regex": "^ab+c$"}}
            )
        ),
    )
    facts = case_facts(b.suite(case), case, r.case("tomorrow", "failed"))
    assert facts.ref == "weather/tomorrow"
    assert set(facts.values) == {"Oslo", "OSL"}  # 3 is too short to count, a regex is no value
    assert "Rain in Oslo?" in facts.requests
    assert "get_forecast" in known_words(b.suite(case))
