"""jsonschema errors worded for the person who wrote the file, located at the offending node (pure)."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from gate.assembly.checks.schema_messages import did_you_mean, problems_of, render_path, type_word
from gate.files.yaml_source import parse

SCHEMA = {
    "type": "object",
    "properties": {
        "mode": {"enum": ["all", "weighted"]},
        "trials": {"type": "integer", "minimum": 1},
        "id": {"type": "string"},
    },
    "required": ["mode"],
    "additionalProperties": False,
}


def _rendered(text: str) -> list[str]:
    doc = parse(text, "f.yaml")
    errors = Draft202012Validator(SCHEMA).iter_errors(doc.data)
    return sorted(p.render() for p in problems_of(errors, doc, {}))


def test_each_kind_of_error_is_worded_and_located():
    assert _rendered("mode: weigted\ntrails: 2\n") == [
        "f.yaml:1:7: mode: 'weigted' is not one of: all, weighted (fix: did you mean 'weighted'?)",
        "f.yaml:2:1: unknown key 'trails' (fix: did you mean 'trials'?)",
    ]
    assert _rendered("trials: 0\n") == [
        "f.yaml:1:1: missing required key 'mode' (fix: add 'mode')",
        "f.yaml:1:9: trials: must be at least 1, got 0",
    ]


def test_a_misspelt_key_is_said_once_as_the_unknown_key_not_also_as_the_missing_one():
    assert _rendered("mdoe: all\n") == ["f.yaml:1:1: unknown key 'mdoe' (fix: did you mean 'mode'?)"]
    # an unknown key that misspells nothing leaves the missing key reported
    assert _rendered("colour: all\n") == [
        "f.yaml:1:1: missing required key 'mode' (fix: add 'mode')",
        "f.yaml:1:1: unknown key 'colour' (fix: allowed: mode, trials, id)",
    ]
    one_key_of = {
        "type": "object",
        "properties": {"input": {}, "conversation": {}, "id": {}},
        "oneOf": [{"required": ["input"]}, {"required": ["conversation"]}],
        "additionalProperties": False,
    }
    for text, expected in [
        ("inputt: hi\n", ["f.yaml:1:1: unknown key 'inputt' (fix: did you mean 'input'?)"]),
        (
            "idd: a\n",
            [
                "f.yaml:1:1: needs one of: input, conversation (fix: add 'input')",
                "f.yaml:1:1: unknown key 'idd' (fix: did you mean 'id'?)",
            ],
        ),
    ]:
        doc = parse(text, "f.yaml")
        errors = Draft202012Validator(one_key_of).iter_errors(doc.data)
        assert sorted(p.render() for p in problems_of(errors, doc, {})) == expected


def test_a_yaml_surprise_gets_a_hint_to_quote_it():
    assert _rendered("mode: all\nid: yes\n") == [
        "f.yaml:2:5: id: expected a string, got a boolean "
        '(fix: quote it: YAML reads yes as a boolean; write "yes" for the text)'
    ]


def test_helpers():
    assert render_path(("cases", 2, "expect", "calls", 0)) == "cases[2].expect.calls[0]"
    assert type_word(None) == "null" and type_word(True) == "a boolean" and type_word(3) == "the integer 3"
    assert did_you_mean("tols", ["tools", "model"]) == "did you mean 'tools'?"
    assert did_you_mean("zzz", ["a", "b"]) == "allowed: a, b"
