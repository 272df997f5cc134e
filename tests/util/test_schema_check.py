"""The fast success-path validator decides exactly as jsonschema does (the spec it must match).

``gate.util.schema_check`` answers "valid or not" without error objects; jsonschema runs only to explain
a failure. If the two ever disagreed, an invalid suite would pass ``validate`` silently (or a valid
one would be reported with no message), so the agreement is tested on mutated real suites, on
random schemas against the meta-schema, and on a table of the keyword edge cases.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.files.suite_schema import suite_schema
from gate.files.yaml_source import parse
from gate.util import schema_check
from gate.util.schema_check import (
    SUPPORTED,
    UNSUPPORTED,
    Unsupported,
    checker,
    compile_schema,
    equal,
    is_valid,
    is_valid_schema,
)

ROOT = Path(__file__).resolve().parents[2]
BASE_SUITES = [
    ROOT / "examples" / "weather" / "weather.suite.yaml",
    ROOT / "examples" / "banking" / "banking.suite.yaml",
    ROOT / "tests" / "corpus" / "valid" / "inline-formats.suite.yaml",
    ROOT / "tests" / "corpus" / "valid" / "minimal.suite.yaml",
]
SUITES = [parse(p.read_text(encoding="utf-8"), p.name).data for p in BASE_SUITES if p.exists()]
SUITE_VALIDATOR = jsonschema.Draft202012Validator(suite_schema())
META_VALIDATOR = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _schema_words(node: Any, found: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            _schema_words(value, found)
    elif isinstance(node, list):
        for value in node:
            if isinstance(value, str):
                found.add(value)
            _schema_words(value, found)
    return found


# keys and enum words of the suite schema: mutations that land on real branches
WORDS = sorted(w for w in _schema_words(suite_schema(), set()) if not w.startswith(("$", "^", "#")))

leaves = (
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, 2, -1, 101, 1.0, 0.5, 1.5, 2.5])
    | st.sampled_from(["", "x", "paris", "get_weather", "bad id", "1", "openai", "any", "all", "at_least"])
    | st.sampled_from(WORDS)
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(WORDS + ["bogus", "x-note"]), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, (*prefix, index))
    return out


def _mutate(document: Any, data: st.DataObject) -> Any:
    document = copy.deepcopy(document)
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(document) if p]
        target = data.draw(st.sampled_from(paths))
        parent = document
        for key in target[:-1]:
            parent = parent[key]
        last = target[-1]
        action = data.draw(st.sampled_from(["replace", "delete", "add", "wrap"]))
        if action == "replace":
            parent[last] = data.draw(values)
        elif action == "delete":
            del parent[last]
        elif action == "wrap":  # x -> {matcher or file key: x}
            parent[last] = {
                data.draw(st.sampled_from(["one_of", "optional", "not", "equals", "file"])): parent[last]
            }
        elif isinstance(parent[last], dict):
            parent[last][data.draw(st.sampled_from([*WORDS, "bogus"]))] = data.draw(values)
        elif isinstance(parent[last], list):
            parent[last].append(data.draw(values))
    return document


def test_the_base_suites_are_valid_both_ways():
    assert len(SUITES) >= 3
    check = compile_schema(suite_schema())
    for suite in SUITES:
        assert SUITE_VALIDATOR.is_valid(suite)
        assert check(suite) is True


@SETTINGS
@given(st.data())
def test_agrees_with_jsonschema_on_mutated_suites(data):
    document = _mutate(data.draw(st.sampled_from(SUITES)), data)
    assert is_valid(suite_schema(), document) == SUITE_VALIDATOR.is_valid(document)


@SETTINGS
@given(st.data())
def test_agrees_with_jsonschema_on_definitions(data):
    name = data.draw(st.sampled_from(["mocksInline", "matcher", "expect", "case", "toolItem", "times"]))
    validator = jsonschema.Draft202012Validator({"$defs": suite_schema()["$defs"], "$ref": f"#/$defs/{name}"})
    document = data.draw(values)
    assert is_valid(suite_schema(), document, name) == validator.is_valid(document)


schema_keywords = sorted(schema_check.META_SCHEMA["properties"]) + ["const", "default", "foo"]
schema_leaves = (
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, 3, -1, 1.5, 0.0, -0.5])
    | st.sampled_from(["", "object", "string", "integer", "strng", "^a", "#", "a#b", "_a", "1a", "x"])
)
schemas = st.recursive(
    schema_leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(schema_keywords), inner, max_size=4)
    ),
    max_leaves=12,
)


names = st.sampled_from(["a", "b", "city", "x-y"])
type_names = st.sampled_from(["object", "string", "integer", "number", "array", "boolean", "null"])


def _keywords(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Mostly well-formed keyword values (so that many schemas are valid), now and then junk."""

    def mostly(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.integers(0, 19).flatmap(lambda roll: schema_leaves if roll == 0 else good)

    count = st.integers(0, 3)
    return st.fixed_dictionaries(
        {},
        optional={
            "type": mostly(type_names | st.lists(type_names, min_size=1, max_size=3)),
            "properties": mostly(st.dictionaries(names, inner, max_size=3)),
            "required": mostly(st.lists(names, max_size=3)),
            "additionalProperties": mostly(inner),
            "items": mostly(inner),
            "anyOf": mostly(st.lists(inner, max_size=3)),
            "enum": mostly(st.lists(schema_leaves, max_size=3)),
            "minimum": mostly(st.sampled_from([0, 1.5, -2])),
            "minLength": mostly(count),
            "maxItems": mostly(count),
            "uniqueItems": mostly(st.booleans()),
            "pattern": mostly(st.sampled_from(["^a", "[0-9]+"])),
            "$ref": mostly(st.sampled_from(["#", "#/$defs/a", "other.json"])),
            "$id": mostly(st.sampled_from(["https://x/s.json", "s.json#", "s#a"])),
            "$defs": mostly(st.dictionaries(names, inner, max_size=2)),
            "description": mostly(st.just("d")),
            "dependentRequired": mostly(st.dictionaries(names, st.lists(names, max_size=2), max_size=2)),
        },
    )


plausible_schemas = st.recursive(st.booleans() | st.just({}), _keywords, max_leaves=10)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(schema_keywords), schemas, max_size=5) | schemas | plausible_schemas)
def test_meta_schema_check_agrees_with_jsonschema(schema):
    assert is_valid_schema(schema) == META_VALIDATOR.is_valid(schema)


def test_meta_schema_names_every_keyword_of_the_published_meta_schema():
    from jsonschema_specifications import REGISTRY

    base = "https://json-schema.org/draft/2020-12/"
    published = set(REGISTRY.contents(base + "schema")["properties"])
    for vocabulary in (
        "core",
        "applicator",
        "unevaluated",
        "validation",
        "meta-data",
        "format-annotation",
        "content",
    ):
        published |= set(REGISTRY.contents(f"{base}meta/{vocabulary}")["properties"])
    published -= {"const", "default"}  # any value is valid: nothing to check
    assert set(schema_check.META_SCHEMA["properties"]) == published


@pytest.mark.parametrize(
    "schema, valid",
    [
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, True),
        ({"type": "objekt"}, False),
        ({"type": ["string", "null"]}, True),
        ({"type": []}, False),
        ({"type": "object", "required": ["a", "a"]}, False),
        ({"type": "object", "required": "a"}, False),
        ({"minimum": "1"}, False),
        ({"minLength": -1}, False),
        ({"minLength": 1.0}, True),
        ({"properties": {"a": 5}}, False),
        ({"items": True, "additionalProperties": False}, True),
        ({"anyOf": []}, False),
        ({"$id": "https://x/y#"}, True),
        ({"$id": "https://x/y#z"}, False),
        ({"$anchor": "1a"}, False),
        ({"dependencies": {"a": ["b"], "c": {"type": "string"}}}, True),
        ({"dependencies": {"a": [1]}}, False),
        ({"x-anything": {"goes": [1]}, "format": "email"}, True),
        ({"title": None}, False),
        ({"description": 3}, False),
        ({"$comment": ["no"]}, False),
        (True, True),
        (None, False),
        ([], False),
    ],
)
def test_meta_schema_examples(schema, valid):
    assert is_valid_schema(schema) is valid
    assert META_VALIDATOR.is_valid(schema) is valid


@pytest.mark.parametrize(
    "schema, instance, valid",
    [
        ({"const": 1}, 1.0, True),
        ({"const": 1}, True, False),
        ({"enum": [False, 0]}, 0.0, True),
        ({"enum": [[1, {"a": True}]]}, [1.0, {"a": True}], True),
        ({"enum": [[1, {"a": True}]]}, [1, {"a": 1}], False),
        ({"type": "integer"}, 2.0, True),
        ({"type": "integer"}, True, False),
        ({"type": "number"}, False, False),
        ({"minimum": 3}, "2", True),
        ({"exclusiveMaximum": 3}, 3, False),
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 1, False),
        ({"oneOf": [{"type": "integer"}, {"type": "string"}]}, 1, True),
        ({"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": False}, {"a": 1}, False),
        ({"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": False}, {}, False),
        ({"then": False}, 1, True),
        (
            {
                "properties": {"a": {"type": "string"}},
                "patternProperties": {"^x-": {"type": "integer"}},
                "additionalProperties": False,
            },
            {"a": "s", "x-b": 1},
            True,
        ),
        (
            {"patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False},
            {"x-b": "s"},
            False,
        ),
        ({"propertyNames": {"pattern": "^[a-z]+$"}}, {"ab": 1, "B": 2}, False),
        ({"minProperties": 1, "maxProperties": 1}, {}, False),
        ({"uniqueItems": True}, [1, True], True),
        ({"uniqueItems": True}, [1, 1.0], False),
        ({"uniqueItems": True}, [{"a": [1]}, {"a": [1.0]}], False),
        ({"items": {"type": "string"}, "minItems": 2}, ["a"], False),
        ({"pattern": "b"}, "abc", True),
        ({"minLength": 2}, "é", False),
        ({"$ref": "#/$defs/s", "$defs": {"s": {"type": "string"}}, "minLength": 2}, "a", False),
        (
            {
                "$defs": {
                    "n": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/n"}}]}
                },
                "$ref": "#/$defs/n",
            },
            [1, [2, [3, "x"]]],
            False,
        ),
    ],
)
def test_keyword_semantics_match_jsonschema(schema, instance, valid):
    assert is_valid(schema, instance) is valid
    assert jsonschema.Draft202012Validator(schema).is_valid(instance) is valid


def test_every_keyword_jsonschema_asserts_is_either_supported_or_refused():
    asserted = set(jsonschema.Draft202012Validator.VALIDATORS) - {"format"}  # no format checker
    assert asserted <= SUPPORTED | UNSUPPORTED


@pytest.mark.parametrize(
    "schema",
    [
        {"contains": {"type": "string"}},
        {"items": {"prefixItems": [True]}},
        {"$ref": "https://example.com/other.json"},
        {"$ref": "#/properties/a"},
        {"$ref": "#/$defs/missing"},
        {"properties": {"a": {"$id": "https://x/a"}}},
        {"type": "whatever"},
        {"pattern": "("},
        {"multipleOf": 2},
    ],
)
def test_schemas_outside_the_subset_are_left_to_jsonschema(schema):
    with pytest.raises(Unsupported):
        compile_schema(schema)
    assert checker(schema) is None
    assert is_valid(schema, "anything") is False  # "not proven valid": the caller asks jsonschema


def test_equal_follows_json_not_python():
    assert equal(1, 1.0) and not equal(True, 1) and not equal(False, 0) and equal(None, None)
    assert equal({"a": [1, 2.0]}, {"a": [1.0, 2]}) and not equal({"a": 1}, {"a": 1, "b": 2})
    assert not equal("1", 1) and not equal([1], [1, 1])


def test_deep_data_is_not_proven_valid_instead_of_crashing():
    schema = {"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}, "$ref": "#/$defs/n"}
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    assert is_valid(schema, deep) is False
    assert is_valid(schema, [[[]]]) is True
