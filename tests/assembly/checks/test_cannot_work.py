"""The pure checks for what validates but can never work (``gate.assembly.checks.cannot_work``),
without the loader."""

from __future__ import annotations

from gate.assembly.checks.cannot_work import (
    placeholder_problems,
    schema_problems,
    unknown_when_parameters,
    whole_number_problems,
)
from gate.suite.matcher_tree import parse_matchers

PARAMS = {
    "type": "object",
    "properties": {
        "days": {"type": "integer", "minimum": 1},
        "units": {"enum": ["metric", "imperial"]},
        "city": {"$ref": "#/$defs/city"},
    },
    "$defs": {"city": {"type": "string", "minLength": 2}},
}


def messages(found):
    return [(path, message) for path, message, _ in found]


def test_a_legitimately_recursive_schema_is_no_cycle():
    tree = {
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}, "next": {"$ref": "#/$defs/n"}},
        "$defs": {"n": {"anyOf": [{"type": "null"}, {"$ref": "#"}]}},
    }
    assert schema_problems(tree) == []


def test_in_place_reference_cycles_are_found():
    assert messages(schema_problems({"$ref": "#"}, ("p",))) == [
        (("p", "$ref"), "the references # loop back without reaching a value")
    ]
    chain = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"not": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"}
    ((path, message, _),) = schema_problems(chain)
    assert "loop back without reaching a value" in message and path[-1] == "$ref"


def test_dangling_references_and_patterns_that_do_not_compile():
    schema = {
        "properties": {"a": {"$ref": "#/$defs/missing"}, "b": {"type": "string", "pattern": "(?<x"}},
        "patternProperties": {"[": {}},
        "$defs": {"ok": {"$ref": "#/properties/b"}},
    }
    found = messages(schema_problems(schema, ("tool",)))
    assert (("tool", "properties", "a", "$ref"), "the reference '#/$defs/missing' points at nothing") in found
    assert any(path == ("tool", "properties", "b", "pattern") for path, _ in found)
    assert any(path == ("tool", "patternProperties", "[") for path, _ in found)
    assert len(found) == 3


def test_placeholders_anywhere_in_expected_arguments():
    found = messages(
        placeholder_problems(
            parse_matchers({"a": "{{ x }}", "b": {"not": ["ok", "{{y}}"]}, "c": "{ z }"}, ("args",))
        )
    )
    assert [path for path, _ in found] == [("args", "a"), ("args", "b", "not", 1)]


def test_mock_conditions_on_missing_parameters():
    found = unknown_when_parameters("forecast", PARAMS, parse_matchers({"days": 1, "town": "x"}), ("when",))
    assert messages(found) == [
        (("when", "town"), "the mock condition is on 'town', which tool 'forecast' does not have")
    ]
    assert unknown_when_parameters("free", {"type": "object"}, parse_matchers({"anything": 1}), ()) == []


def test_counts_written_as_floats():
    found = whole_number_problems(
        {"trials": 2.0, "times": {"min": 1, "max": 3.0}, "at_least": 1},
        ("trials", "times", "at_least"),
        ("c",),
    )
    assert [(p, m, h) for p, m, h in found] == [
        (("c", "trials"), "trials must be a whole number, got 2.0", "write 2"),
        (("c", "times", "max"), "times.max must be a whole number, got 3.0", "write 3"),
    ]
