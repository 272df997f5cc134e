"""The published suite schema: shipped copy identical, a valid 2020-12 schema, documented, strict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / "schemas" / "suite.schema.json"
SHIPPED = ROOT / "gate" / "schemas" / "suite.schema.json"


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(PUBLISHED.read_text(encoding="utf-8"))


def test_shipped_schema_is_byte_identical_to_published():
    assert SHIPPED.read_bytes() == PUBLISHED.read_bytes()


def test_is_a_valid_draft_2020_12_schema_with_id_and_title(schema):
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("suite.schema.json")
    assert schema["title"]


def _property_maps(node, where="#"):
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            yield where, node["properties"]
        for key, value in node.items():
            yield from _property_maps(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _property_maps(value, f"{where}/{index}")


def test_every_property_has_a_description(schema):
    defs = schema["$defs"]
    missing = []
    for where, properties in _property_maps(schema):
        if "/if" in where:  # discriminator conditions are not documentation
            continue
        for name, sub in properties.items():
            described = "description" in sub
            ref = sub.get("$ref", "")
            if not described and ref.startswith("#/$defs/"):
                described = "description" in defs[ref.removeprefix("#/$defs/")]
            if not described:
                missing.append(f"{where}/{name}")
    assert missing == []


def test_no_endpoint_or_key_can_be_chosen_by_a_suite(schema):
    text = json.dumps(schema)
    for forbidden in ('"base_url"', '"api_key"', '"api_base"', '"endpoint"'):
        assert forbidden not in text


def _valid(schema, doc):
    return not list(Draft202012Validator(schema).iter_errors(doc))


MINIMAL = {
    "version": 1,
    "name": "s",
    "agent": {"provider": "openai", "model": "m"},
    "cases": [{"id": "c", "input": "hi"}],
}


def test_minimal_suite_is_valid_and_typos_are_rejected(schema):
    assert _valid(schema, MINIMAL)
    assert not _valid(schema, {**MINIMAL, "treshold": 0.8})
    assert not _valid(schema, {**MINIMAL, "agent": {**MINIMAL["agent"], "base_url": "http://evil"}})
    case = {"id": "c", "input": "hi", "expect": {"calls": [{"tool": "t", "arg": {}}]}}
    assert not _valid(schema, {**MINIMAL, "cases": [case]})


def test_x_extension_keys_hold_anchors(schema):
    assert _valid(schema, {**MINIMAL, "x-shared": {"anything": [1, 2]}})


@pytest.mark.parametrize(
    "matcher, ok",
    [
        ("Paris", True),
        (5, True),
        ({"one_of": ["a", "b"]}, True),
        ({"one_of": []}, False),
        ({"range": {"min": 1, "max": 7}}, True),
        ({"range": {"lo": 1}}, False),
        ({"approx": {"value": 1, "tolerance": 0.1}}, True),
        ({"approx": {"value": 1}}, False),
        ({"optional": {"regex": "^a"}}, True),
        ({"optional": {"range": {"bad": 1}}}, False),
        ({"not": {"unordered": [{"contains": "x"}, 3]}}, True),
        ({"object": {"k": {"normalized": "x"}}, "extra_keys": True}, True),
        ({"absent": False}, False),
        ({"judge": ""}, False),
        ({"city": "Paris", "zip": {"regex": "^75"}}, True),  # a plain mapping, matched key by key
        ({"city": {"regex": 5}}, False),  # nested matchers are validated recursively
        ([1, {"one_of": [2, 3]}], True),
    ],
)
def test_argument_matchers_are_validated_recursively(schema, matcher, ok):
    case = {"id": "c", "input": "hi", "expect": {"calls": [{"tool": "t", "args": {"a": matcher}}]}}
    assert _valid(schema, {**MINIMAL, "cases": [case]}) is ok


def test_every_example_suite_is_valid_under_the_raw_schema(schema):
    suites = sorted((ROOT / "examples").rglob("*.suite.yaml"))
    assert len(suites) >= 2
    for path in suites:
        errors = list(
            Draft202012Validator(schema).iter_errors(yaml.safe_load(path.read_text(encoding="utf-8")))
        )
        assert errors == [], path


def test_schema_matcher_keys_are_the_ones_the_matchers_understand():
    from gate.suite.matcher_tree import MATCHER_KEYS

    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "suite.schema.json").read_text())
    keys = set(schema["$defs"]["matcherOp"]["properties"]) - {"extra_keys"}
    assert keys == set(MATCHER_KEYS)


def test_schema_offers_exactly_the_looser_comparisons_normalized_understands():
    from gate.util.text_normalization import LOOSER_COMPARISONS

    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "suite.schema.json").read_text())
    forms = schema["$defs"]["matcherOp"]["properties"]["normalized"]["anyOf"]
    [options] = [f for f in forms if f["type"] == "object"]
    listed, chars = options["properties"]["ignore"]["anyOf"]
    named, chars_item = listed["items"]["anyOf"]
    assert named["enum"] == list(LOOSER_COMPARISONS)
    assert chars == chars_item == {"$ref": "#/$defs/ignoredChars"}
    assert schema["$defs"]["ignoredChars"]["required"] == ["chars"]


def test_schema_takes_any_of_and_all_of_over_matchers_and_normalized_options(schema):
    check = Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/matcher"})
    good = {"any_of": [{"normalized": "NYC"}, {"all_of": [{"regex": "^N"}, {"not": "No"}]}]}
    assert list(check.iter_errors(good)) == []
    assert list(check.iter_errors({"normalized": {"value": "C#", "ignore": ["punctuation"]}})) == []
    assert list(check.iter_errors({"normalized": {"value": "555 1234", "ignore": {"chars": " -"}}})) == []
    assert (
        list(check.iter_errors({"normalized": {"value": "x", "ignore": [{"chars": "-"}, "accents"]}})) == []
    )
    assert list(check.iter_errors({"normalized": {"value": "x", "ignore": {"chars": ""}}}))
    assert list(check.iter_errors({"normalized": {"value": "x", "ignore": {"chars": "-", "also": 1}}}))
    assert list(check.iter_errors({"any_of": []}))
    assert list(check.iter_errors({"all_of": [{"regex": 5}]}))
    assert list(check.iter_errors({"normalized": {"value": "C#", "ignore": ["case"]}}))
    assert list(check.iter_errors({"normalized": {"value": "C#", "ignor": ["punctuation"]}}))
