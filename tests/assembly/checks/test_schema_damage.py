"""What schema errors damage in a suite document: the parts the semantic checks skip (pure)."""

from __future__ import annotations

import copy

from jsonschema import Draft202012Validator

from gate.assembly.checks.schema_damage import damage_of, unit_of
from gate.files.suite_schema import suite_schema

VALIDATOR = Draft202012Validator(suite_schema())


def _suite(**changes):
    data = {
        "version": 1,
        "name": "s",
        "agent": {
            "provider": "openai",
            "model": "m",
            "tools": [{"name": "t", "parameters": {"type": "object"}}],
        },
        "cases": [
            {"id": "a", "input": "hi", "expect": {"calls": [{"tool": "t", "args": {"x": 1, "y": 2}}]}},
            {"id": "b", "input": "hi"},
        ],
    }
    data.update(changes)
    return data


def _damage(data):
    return damage_of(VALIDATOR.iter_errors(data))


def test_a_valid_document_has_no_damage():
    damage = _damage(_suite())
    assert not damage and damage.prune(_suite()) == _suite()


def test_an_unknown_key_damages_that_key_and_the_keys_its_mapping_lacks():
    data = _suite(agent={"provider": "openai", "model": "m", "tols": []})
    damage = _damage(data)
    assert damage.points == {("agent", "tols")} and damage.loose == {("agent",)}
    assert damage.hit(("agent", "tools"), data)  # may be the misspelt key
    assert not damage.hit(("agent", "model"), data)  # written, and valid
    assert not damage.hit(("cases", 0, "expect"), data)
    assert "tols" not in damage.prune(data)["agent"]


def test_an_error_inside_one_argument_damages_that_argument_only():
    data = _suite()
    data["cases"][0]["expect"]["calls"][0]["args"]["x"] = {"range": {"low": 1}}
    damage = _damage(data)
    assert damage.points == {("cases", 0, "expect", "calls", 0, "args", "x")}
    pruned = damage.prune(data)
    assert pruned["cases"][0]["expect"]["calls"][0] == {"tool": "t", "args": {"y": 2}}
    assert data["cases"][0]["expect"]["calls"][0]["args"]["x"] == {"range": {"low": 1}}  # not changed
    assert not damage.hit(("cases", 0, "expect", "calls", 0, "tool"), data)


def test_a_damaged_list_item_becomes_none_and_the_others_keep_their_index():
    data = _suite()
    data["cases"][0] = "not a case"
    original = copy.deepcopy(data)
    pruned = _damage(data).prune(data)
    assert pruned["cases"][0] is None and pruned["cases"][1] == data["cases"][1]
    assert data == original


def test_a_missing_required_key_inside_a_unit_damages_the_unit():
    data = _suite(judge={"provider": "openai"})
    damage = _damage(data)
    assert damage.points == {("judge",)}
    assert "judge" not in damage.prune(data)
    # outside a unit, the missing key itself: the case stays, without an id
    data = _suite()
    del data["cases"][1]["id"]
    assert _damage(data).points == {("cases", 1, "id")}


def test_both_input_and_conversation_damage_the_second_one():
    data = _suite()
    data["cases"][1]["conversation"] = [{"role": "user", "content": "hi"}]
    damage = _damage(data)
    assert damage.points == {("cases", 1, "conversation")}
    assert damage.prune(data)["cases"][1] == {"id": "b", "input": "hi"}


def test_units_are_the_parts_the_builder_reads_whole():
    assert unit_of(("agent", "tools", 2, "function", "name")) == ("agent", "tools", 2)
    assert unit_of(("cases", 1, "expect", "calls", 0, "args", "city", "one_of", 3)) == (
        "cases",
        1,
        "expect",
        "calls",
        0,
        "args",
        "city",
    )
    assert unit_of(("mocks", "tools", "t", 0, "when", "x")) == ("mocks", "tools", "t", 0)
    assert unit_of(("cases", 0, "expect", "calls", 0, "tool")) == ("cases", 0, "expect", "calls", 0, "tool")
