"""Matchers no call can satisfy (``gate.assembly.checks.impossible_matchers``), pure: against the tool's
own parameter schema at every depth, and all_of contradicting itself."""

from __future__ import annotations

import pytest
import yaml

from gate.assembly.checks import impossible_matchers
from gate.suite.matcher_tree import parse_matchers


def matcher_problems(tool, parameters, args, at):
    """The problems of matchers as a suite writes them, written at ``at``."""
    return impossible_matchers.matcher_problems(tool, parameters, parse_matchers(args, at))


PARAMS = {
    "type": "object",
    "properties": {
        "days": {"type": "integer", "minimum": 1},
        "units": {"enum": ["metric", "imperial"]},
        "city": {"$ref": "#/$defs/city"},
        "counts": {"type": "array", "items": {"type": "integer"}},
        "tags": {"type": "array", "items": {"type": "string"}},
        "filter": {"type": "object", "properties": {"days": {"type": "integer"}, "tag": {"type": "string"}}},
        "either": {"anyOf": [{"type": "string"}, {}]},
    },
    "$defs": {"city": {"type": "string", "minLength": 2}},
}


def paths(args):
    return [path for path, _, _ in matcher_problems("forecast", PARAMS, args, ("args",))]


def messages(args):
    return [message for _, message, _ in matcher_problems("forecast", PARAMS, args, ("args",))]


def test_top_level_literals_the_tool_schema_refuses():
    args = {"days": "3", "units": {"one_of": ["metric", "kelvin"]}, "city": "X", "other": 1}
    assert paths(args) == [("args", "days"), ("args", "units", "one_of", 1), ("args", "city")]
    assert "is not of type 'integer'" in messages(args)[0]
    # Values the schema accepts and matchers of the right kind are left alone.
    assert paths({"days": 3.0, "units": {"regex": "^m"}, "city": "Oslo"}) == []


def test_literal_matchers_inside_any_of_and_all_of_are_checked():
    args = {"days": {"any_of": ["3", {"range": {"min": 1}}]}, "units": {"all_of": [{"not": "x"}, "kelvin"]}}
    assert paths(args) == [("args", "days", "any_of", 0), ("args", "units", "all_of", 1)]


@pytest.mark.parametrize(
    ("args", "where"),
    [
        ({"days": {"equals": "30"}}, ("args", "days", "equals")),
        ({"days": {"optional": "30"}}, ("args", "days", "optional")),
        ({"days": {"optional": {"equals": "30"}}}, ("args", "days", "optional", "equals")),
        ({"counts": ["30"]}, ("args", "counts", 0)),
        ({"counts": {"unordered": [1, "30"]}}, ("args", "counts", "unordered", 1)),
        ({"counts": {"contains": "30"}}, ("args", "counts", "contains")),
        ({"filter": {"days": "30", "tag": "x"}}, ("args", "filter", "days")),
        ({"filter": {"object": {"days": "30"}, "extra_keys": True}}, ("args", "filter", "object", "days")),
        ({"units": {"any_of": [{"equals": "kelvin"}, "metric"]}}, ("args", "units", "any_of", 0, "equals")),
    ],
)
def test_nested_literals_are_checked_like_top_level_ones(args, where):
    assert paths(args) == [where]
    assert "can never match" in messages(args)[0]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ({"city": ["Paris"]}, 'the list ["Paris"] can never match: it matches only a list'),
        (
            {"city": {"name": "Paris"}},
            'the mapping {"name": "Paris"} can never match: it matches only an obj',
        ),
        ({"city": {"range": {"min": 1}}}, "the matcher {range: ...} can never match: it matches only a num"),
        ({"city": {"unordered": ["a"]}}, "the matcher {unordered: ...} can never match"),
        ({"days": {"regex": "^3$"}}, "only a string, but tool 'forecast' declares 'days' as a number"),
        ({"units": {"approx": {"value": 1, "tolerance": 0.5}}}, "declares 'units' as a string"),
        ({"filter": {"days": {"normalized": "3"}}}, "declares 'filter.days' as a number"),
        ({"either": {"all_of": [{"range": {"min": 1}}, {"regex": "^1"}]}}, "no common type"),
        ({"days": {"all_of": [{"range": {"min": 1}}, {"regex": "^1"}]}}, "declares 'days' as a number"),
    ],
)
def test_matchers_of_a_kind_the_schema_never_sends(args, says):
    found = messages(args)
    assert len(found) == 1 and says in found[0], found


def test_kinds_the_schema_leaves_open_are_not_refused():
    # A branch without a type lets anything through; contains on text is a substring.
    assert paths({"either": {"range": {"min": 1}}, "city": {"contains": "ar"}}) == []
    assert paths({"counts": {"contains": 3}, "days": {"any_of": [{"absent": True}, 3]}}) == []
    assert paths({"filter": {"object": {"tag": {"regex": "x"}}, "extra_keys": True}}) == []


@pytest.mark.parametrize(
    "matcher",
    [
        {"all_of": [{"absent": True}, {"regex": "^a"}]},
        {"all_of": [{"absent": True}, "Paris"]},
        {"all_of": [{"any_of": [{"absent": True}]}, {"anything": True}]},
        {"all_of": ["Paris", "London"]},
        {"all_of": [{"equals": 1}, {"regex": "1"}]},
    ],
)
def test_all_of_that_contradicts_itself_is_refused_with_or_without_a_schema(matcher):
    for tool, parameters in (("forecast", {"type": "object"}), ("", None)):
        found = matcher_problems(tool, parameters, {"x": matcher}, ("state_when",))
        assert [path for path, _, _ in found] == [("state_when", "x", "all_of")], found
        assert "nothing can satisfy it" in found[0][1]


def test_all_of_that_can_hold_is_left_alone():
    for matcher in (
        {"all_of": [{"optional": {"regex": "^a"}}, {"not": "abc"}]},
        {"all_of": ["Paris", {"equals": "Paris"}]},
        {"all_of": [{"any_of": [{"absent": True}, "x"]}, {"optional": "x"}]},
    ):
        assert matcher_problems("", None, {"x": matcher}, ()) == [], matcher


def hints(args):
    return [hint for _, _, hint in matcher_problems("forecast", PARAMS, args, ("args",))]


def hinted_fix(hint):
    """The matcher a hint says to write (its first ``{...}``), read as the suite's YAML reads it."""
    start = hint.index("{")
    depth = 0
    for end, char in enumerate(hint[start:], start):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            return yaml.safe_load(hint[start : end + 1])
    raise AssertionError(hint)


def test_one_of_of_elements_on_a_list_argument_says_to_look_for_them_in_the_list():
    # one_of compares the whole list with each value: the user means a list that holds one of them.
    args = {"tags": {"one_of": ["urgent", "home"]}}
    assert paths(args) == [("args", "tags", "one_of")]  # one problem, not one per value
    assert "one_of compares the whole list 'tags' with each value" in messages(args)[0]
    [hint] = hints(args)
    assert "without quotes" not in hint
    fix = hinted_fix(hint)
    assert fix == {"any_of": [{"contains": "urgent"}, {"contains": "home"}]}
    assert paths({"tags": fix}) == []  # what the hint says to write validates
    assert "all_of in place of any_of" in hint
    # Whole lists among the values are what one_of takes: each value is then checked as before.
    assert paths({"tags": {"one_of": [["urgent"], ["home", "work"]]}}) == []
    assert paths({"counts": {"one_of": [[1], "2"]}}) == [("args", "counts", "one_of", 1)]


def test_contains_with_several_elements_on_a_list_says_all_of_contains_each():
    # contains looks for one element (one equal to the list written): the user means each of them.
    args = {"tags": {"contains": ["urgent", "home"]}}
    assert paths(args) == [("args", "tags", "contains")]
    assert "contains looks for one element, here one equal to the list" in messages(args)[0]
    [hint] = hints(args)
    assert "one_of" not in hint
    fix = hinted_fix(hint)
    assert fix == {"all_of": [{"contains": "urgent"}, {"contains": "home"}]}
    assert paths({"tags": fix}) == []
    assert "any_of in place of all_of" in hint
    # A list of lists may well hold a list: left alone.
    nested = {"type": "object", "properties": {"pairs": {"type": "array", "items": {"type": "array"}}}}
    assert matcher_problems("t", nested, {"pairs": {"contains": ["a", "b"]}}, ()) == []


@pytest.mark.parametrize(
    ("args", "fix"),
    [
        ({"days": "3"}, "write it without quotes"),
        ({"days": {"one_of": ["3", 4]}}, "write it without quotes"),
        ({"days": "three"}, "write a value the tool accepts"),  # unquoted, three is still text
        ({"days": "1.5"}, "write a value the tool accepts"),  # 1.5 is no integer either
        ({"tags": "urgent"}, 'the argument is a list: write {contains: "urgent"} for a list that holds it'),
        ({"units": "kelvin"}, "write a value the tool accepts"),
    ],
)
def test_a_refused_literal_gets_the_fix_that_makes_it_acceptable(args, fix):
    [hint] = hints(args)
    assert hint.startswith(fix), hint
