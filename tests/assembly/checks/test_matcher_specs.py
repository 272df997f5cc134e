"""validate refuses matcher specs no user can mean, without refusing real object literals."""

from __future__ import annotations

import pytest

from gate.assembly.checks.matcher_specs import arguments_problems
from gate.suite.matcher_tree import parse_matchers

PARAMS = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "pattern": {
            "type": "object",
            "properties": {
                "regexp": {"type": "string"},
                "regex": {"type": "string"},
                "flags": {"type": "string"},
            },
        },
        "query": {"type": "object"},
        "filter": {"$ref": "#/$defs/filter"},
        "tags": {
            "type": "array",
            "items": {"type": "object", "properties": {"optinal": {"type": "boolean"}}},
        },
    },
    "$defs": {"filter": {"type": "object", "properties": {"contains": {"type": "string"}}}},
}


def found(args, parameters=PARAMS):
    return [
        (path, message, hint)
        for path, message, hint in arguments_problems(parse_matchers(args, ("args",)), parameters)
    ]


def test_several_matcher_keys_are_refused_naming_the_keys_and_how_to_write_it():
    [(path, message, hint)] = found({"city": {"regex": "^P", "optional": True}})
    assert path == ("args", "city")
    assert "several matcher keys in one mapping (optional, regex)" in message
    assert "{optional: {regex: ...}}" in hint and "{equals: {...}}" in hint
    [(_, message, hint)] = found({"city": {"regex": "^P", "contains": "a"}})
    assert "{all_of: [{contains: ...}, {regex: ...}]}" in hint


def test_a_matcher_key_mixed_with_other_keys_is_refused():
    [(path, message, hint)] = found({"city": {"normalized": "C#", "ignore": ["punctuation"]}})
    assert path == ("args", "city")
    assert "the matcher key 'normalized' is mixed with 'ignore'" in message
    assert "{normalized: {value: ..., ignore: [...]}}" in hint


@pytest.mark.parametrize(
    ("key", "operand", "meant"),
    [
        ("regexp", "^P", "regex"),
        ("oneOf", ["a", "b"], "one_of"),
        ("any-of", [{"regex": "a"}], "any_of"),
        ("normalised", "Paris", "normalized"),
        ("optinal", "x", "optional"),
        ("equal", "x", "equals"),
    ],
)
def test_a_misspelled_matcher_key_says_which_one_was_meant(key, operand, meant):
    [(path, message, hint)] = found({"city": {key: operand}})
    assert path == ("args", "city")
    assert message == f"unknown matcher key {key!r}: did you mean {meant!r}?"
    assert f"{{equals: {{{key}: ...}}}}" in hint


@pytest.mark.parametrize(
    "args",
    [
        {"pattern": {"regexp": "^P"}},  # a declared property: a real object literal
        {"pattern": {"regex": "^P", "flags": "i"}},  # declared properties that are matcher names
        {"query": {"regexp": {"title": "a.*"}}},  # a search DSL: the operand is no regex
        {"query": {"range": {"min": 1}}},  # a real matcher (one key) stays a matcher
        {"tags": [{"optinal": True}]},  # declared in the items' schema
        {"city": {"container": "web"}},  # not similar enough to any matcher key
        {"city": {"any_of": [{"normalized": "NYC"}, "New York"]}},
        {"city": {"object": {"a": 1}, "extra_keys": True}},
        {"city": {"equals": {"regex": "x", "optional": True}}},  # an object literal, said so
    ],
)
def test_real_object_literals_and_matchers_are_left_alone(args):
    assert found(args) == []


def test_without_a_schema_a_mistaken_matcher_is_still_refused():
    assert [p for p, _, _ in found({"bookings": {"regexp": "^BK"}}, None)] == [("args", "bookings")]
    assert found({"bookings": [{"id": {"anything": True}, "flight": "UA100"}]}, None) == []


def test_one_of_holding_matchers_is_refused_at_the_matcher():
    [(path, message, hint)] = found({"city": {"one_of": ["Paris", {"normalized": "NYC"}]}})
    assert path == ("args", "city", "one_of", 1)
    assert message.startswith('one_of takes values, not matchers: {"normalized": "NYC"}')
    assert "any_of" in hint
    assert found({"city": {"one_of": ["Paris", {"name": "NYC"}]}}) == []  # object values are values


def test_mistakes_are_found_at_any_depth():
    args = {
        "city": {"any_of": [{"regexp": "^P"}, {"not": {"one_of": [{"regex": "x"}]}}]},
        "filter": {"object": {"contains": {"regex": "a", "optional": True}}},
        "tags": {"unordered": [{"optional": True, "equals": 1}]},
    }
    assert [p for p, _, _ in found(args)] == [
        ("args", "city", "any_of", 0),
        ("args", "city", "any_of", 1, "not", "one_of", 0),
        ("args", "filter", "object", "contains"),
        ("args", "tags", "unordered", 0),
    ]


def test_a_matcher_that_never_matches_an_object_on_an_object_with_that_property_is_refused():
    [(path, message, hint)] = found({"filter": {"contains": "Paris"}})
    assert path == ("args", "filter")
    assert "read as the matcher 'contains'" in message
    assert "{equals: {contains: ...}}" in hint


# --- through validate: exit 2, each at the mapping's file:line:column -------------------------------

SUITE = """\
version: 1
name: specs
judge: {provider: openai, model: gpt-4o-mini}
agent:
  provider: openai
  model: gpt-4o-mini
  tools:
    - name: search
      description: Search.
      parameters:
        type: object
        properties:
          city: {type: string}
          pattern: {type: object, properties: {regexp: {type: string}}}
state: {trips: []}
mocks:
  tools:
    search:
      - when: {city: {regexp: "^P"}}
        returns: {hits: 1}
      - when: {city: {judge: a big city}}
        returns: {hits: 2}
cases:
  - id: a
    input: Find Paris
    expect:
      calls:
        - tool: search
          args:
            city: {regex: "^P", optional: true}
            pattern: {regexp: "^P"}
        - tool: search
          args:
            city:
              one_of: [Paris, {normalized: NYC}]
      final_state:
        trips: {contains: {judge: a trip to Paris}}
      assert:
        - path: calls[0].args.city
          match: {normalised: paris}
        - path: calls[*].args.city
          one_of: [Paris, {regex: "^P"}]
"""


def test_validate_refuses_each_at_its_line_with_exit_2(tmp_path, capsys):
    from gate.commands.validate import main
    from gate.errors import EXIT_INVALID_INPUT

    (tmp_path / "specs.suite.yaml").write_text(SUITE, encoding="utf-8")
    assert main(["--root", str(tmp_path), str(tmp_path)]) == EXIT_INVALID_INPUT
    lines = capsys.readouterr().err.splitlines()
    assert lines[:-1] == [
        "specs.suite.yaml:19:22: mocks.tools.search[0].when.city: unknown matcher key 'regexp': did you "
        "mean 'regex'? (fix: write {regex: ...}; for an object with a key 'regexp' write {equals: "
        "{regexp: ...}})",
        "specs.suite.yaml:21:22: mocks.tools.search[1].when.city: a judge matcher cannot decide a mock "
        "rule: it is never asked there (fix: match with regex, one_of or any_of here; judge criteria are "
        "asked for expected call arguments, output checks and path assertions)",
        "specs.suite.yaml:30:19: cases[0].expect.calls[0].args.city: several matcher keys in one mapping "
        "(optional, regex): a matcher has exactly one key (fix: nest them, e.g. {optional: {regex: ...}};"
        " for an object whose keys happen to be matcher names write {equals: {...}})",
        "specs.suite.yaml:35:31: cases[0].expect.calls[1].args.city.one_of[1]: one_of takes values, not "
        'matchers: {"normalized": "NYC"} would be compared as an object (fix: one_of takes values; any_of'
        " takes matchers: write {any_of: [...]} (values may stay in it))",
        "specs.suite.yaml:37:27: cases[0].expect.final_state.trips.contains: a judge matcher cannot "
        "decide the final state: it is never asked there (fix: match with regex, one_of or any_of here; "
        "judge criteria are asked for expected call arguments, output checks and path assertions)",
        "specs.suite.yaml:40:18: cases[0].expect.assert[0].match: unknown matcher key 'normalised': did "
        "you mean 'normalized'? (fix: write {normalized: ...}; for an object with a key 'normalised' "
        "write {equals: {normalised: ...}})",
        "specs.suite.yaml:42:27: cases[0].expect.assert[1].one_of[1]: one_of takes values, not matchers: "
        '{"regex": "^P"} would be compared as an object (fix: one_of takes values; any_of takes matchers:'
        " write match: {any_of: [...]} (values may stay in it))",
    ]
    assert lines[-1] == "7 problems in 1 file"


def test_on_an_object_argument_a_one_key_mapping_is_that_objects_own_key():
    """Where the schema says the value is an object, {regexp: "^P"} is an object literal (a search
    query's own key), not a misspelt regex; on a string argument it can only be a mistake."""
    assert found({"query": {"regexp": "^P"}}) == []
    assert found({"query": {"optinal": True}}) == []
    assert [p for p, _, _ in found({"city": {"regexp": "^P"}})] == [("args", "city")]


@pytest.mark.parametrize("key", ["option", "ordered", "schema_id", "equal_to"])
def test_without_a_schema_a_states_own_words_are_not_taken_for_matchers(key):
    """final_state / state_when have no schema: a key merely like a matcher's name (option, ordered)
    is the state's own, while a one-letter slip of a matcher key is still refused."""
    operands = {"option": "dark", "ordered": ["a"], "schema_id": {"v": 2}, "equal_to": 3}
    assert found({"settings": {key: operands[key]}}, None) == []


@pytest.mark.parametrize(
    ("key", "operand", "meant"),
    [("optinal", True, "optional"), ("regexp", "^BK", "regex"), ("normalised", "x", "normalized")],
)
def test_without_a_schema_a_slip_of_a_matcher_key_is_still_refused(key, operand, meant):
    [(_, message, _)] = found({"bookings": {key: operand}}, None)
    assert message == f"unknown matcher key {key!r}: did you mean {meant!r}?"


def test_normalized_chars_beside_punctuation_or_naming_letters_is_refused_at_its_ignore():
    chars_and_punctuation = {"normalized": {"value": "a-b", "ignore": ["punctuation", {"chars": "-"}]}}
    [(path, message, hint)] = found({"city": chars_and_punctuation})
    assert path == ("args", "city", "normalized", "ignore")
    assert "both punctuation and chars" in message and "keep one" in hint
    [(path, message, hint)] = found({"city": {"normalized": {"value": "x", "ignore": {"chars": " -x1"}}}})
    assert path == ("args", "city", "normalized", "ignore")
    assert 'chars names letters or digits ("1x")' in message
    [(_, message, _)] = found({"city": {"normalized": {"value": "x", "ignore": {"chars": "Ａ"}}}})  # NFKC "a"
    assert "a letter or digit" in message
    fine = [{"chars": " -_/"}, [{"chars": "-"}, "whitespace", "accents"], ["punctuation", "whitespace"]]
    assert all(found({"city": {"normalized": {"value": "x", "ignore": i}}}) == [] for i in fine)
