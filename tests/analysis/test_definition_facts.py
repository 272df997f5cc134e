"""What a tool definition already says about a parameter: the facts the advice relies on."""

from __future__ import annotations

from gate.analysis.definition_facts import closed_object, overlap, parameter_facts

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": 'City name, e.g. "Paris".'},
        "days": {"type": "integer", "minimum": 1, "exclusiveMaximum": 8, "default": 3},
        "units": {"$ref": "#/$defs/units"},
        "stops": {"type": "array", "items": {"type": "object", "properties": {"code": {"enum": ["A", "B"]}}}},
        "place": {"type": "object", "properties": {"zip": {"type": "string"}}, "required": ["zip"]},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    },
    "required": ["city"],
    "additionalProperties": False,
    "$defs": {"units": {"type": "string", "enum": ["metric", "imperial"]}},
}


def test_required_type_and_example_of_a_top_level_parameter():
    city = parameter_facts(SCHEMA, "city")
    assert (city.known, city.declared, city.required, city.types) == (True, True, True, ("string",))
    assert city.has_example  # "e.g." in its description
    days = parameter_facts(SCHEMA, "days")
    assert (days.required, days.minimum, days.maximum, days.examples, days.has_range) == (
        False,
        1,
        8,
        (3,),
        True,
    )


def test_local_refs_are_followed_and_nested_paths_walked():
    assert parameter_facts(SCHEMA, "units").enum == ("metric", "imperial")
    assert parameter_facts(SCHEMA, "stops[0].code").enum == ("A", "B")
    nested = parameter_facts(SCHEMA, "place.zip")
    assert nested.declared and nested.required


def test_what_cannot_be_read_is_opaque_and_what_is_absent_is_undeclared():
    assert parameter_facts(SCHEMA, "either").opaque
    missing = parameter_facts(SCHEMA, "country")
    assert missing.known and not missing.declared and not missing.opaque
    unknown = parameter_facts(None, "city")
    assert not unknown.known and not unknown.declared


def test_closed_object_and_overlap():
    assert closed_object(SCHEMA) is True and closed_object({"type": "object"}) is False
    assert closed_object(None) is None
    share = overlap("Weather now in a city.", "Weather forecast for a city.")
    assert (share.shared, share.total) == (2, 4)
    # Words with letters outside a-z are words too (they were cut apart at each accent).
    share = overlap("Suche Flüge nach München.", "Buche Flüge nach München.")
    assert (share.shared, share.total) == (3, 5)
    assert overlap("Réserve un vol", "Annule un vol").shared == 2  # "un", "vol"; not "r", "serve"
