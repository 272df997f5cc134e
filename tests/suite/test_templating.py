"""Prompt templates, directly: ``{{ name }}`` placeholders and nothing else."""

from __future__ import annotations

import pytest

from gate.suite.templating import missing, render, variables


def test_placeholders_in_order_of_first_appearance_without_repeats() -> None:
    template = "Hi {{ user }}, {{company}} here. {{ user }}, {{  day_2 }}?"
    assert variables(template) == ["user", "company", "day_2"]
    assert variables("no {{ 1bad }} {{ with-dash }} {{}} placeholders") == []


def test_missing_names_the_variables_without_a_value() -> None:
    assert missing("{{ a }} {{ b }} {{ a }}", {"b": 1}) == ["a"]
    assert missing("{{ a }}", {"a": ""}) == []  # an empty value is a value


def test_render_substitutes_only_and_refuses_a_variable_without_a_value() -> None:
    assert render("{{ n }} x {{ unit }} {{{{ raw }}}}", {"n": 3, "unit": "days", "raw": "r"}) == (
        "3 x days {{r}}"
    )
    assert render("{{ code }}", {"code": "{{ other }}"}) == "{{ other }}"  # values are not templates
    with pytest.raises(KeyError, match="missing"):
        render("{{ here }} {{ missing }}", {"here": 1})
