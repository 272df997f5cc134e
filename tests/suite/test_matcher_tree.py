"""Matchers read once into a typed tree: every node keeps where it is written, what cannot be read is
refused at its place, and the tree renders back to exactly what the suite wrote."""

from __future__ import annotations

import json

import pytest

from gate import limits
from gate.suite import matcher_tree as mt
from gate.suite.matcher_tree import MatcherError, has_judge, parse_matcher, parse_matchers, walk

AT = ("cases", 0, "expect", "calls", 0, "args", "city")


def test_each_node_keeps_the_path_it_is_written_at():
    tree = parse_matcher(
        {"any_of": [{"optional": {"regex": "^P"}}, {"object": {"name": ["a", {"not": "b"}]}}]}, AT
    )
    assert [(type(n).__name__, n.at[len(AT) :]) for n in walk(tree)] == [
        ("AnyOf", ()),
        ("Optional", ("any_of", 0)),
        ("Regex", ("any_of", 0, "optional")),
        ("ObjectMatch", ("any_of", 1)),
        ("ListPattern", ("any_of", 1, "object", "name")),
        ("Value", ("any_of", 1, "object", "name", 0)),
        ("Not", ("any_of", 1, "object", "name", 1)),
        ("Value", ("any_of", 1, "object", "name", 1, "not")),
    ]


@pytest.mark.parametrize(
    ("written", "where", "says"),
    [
        ({"any_of": [{"range": {"min": "1"}}]}, ("any_of", 0, "range", "min"), "range.min must be a number"),
        ({"contains": {"regex": 5}}, ("contains", "regex"), "regex takes a text, got a number"),
        ({"one_of": []}, ("one_of",), "one_of takes at least one item"),
        ({"absent": False}, ("absent",), "absent takes true"),
        ({"approx": {"value": 1}}, ("approx",), "approx takes value and tolerance or rel_tolerance"),
        ({"object": {}, "extra_keys": "yes"}, ("extra_keys",), "extra_keys takes true or false"),
        ({"normalized": {"value": "C", "ignore": ["accents", "accents"]}}, ("normalized", "ignore"), "twice"),
    ],
)
def test_what_cannot_be_read_is_refused_where_it_is_written(written, where, says):
    with pytest.raises(MatcherError) as refused:
        parse_matcher(written, AT)
    assert refused.value.at == (*AT, *where) and says in refused.value.message


def test_nesting_is_bounded():
    deep: object = "x"
    for _ in range(limits.MAX_NESTING):
        deep = {"not": deep}
    with pytest.raises(MatcherError, match="nested deeper than 64 levels"):
        parse_matcher(deep)
    literal: object = 1
    for _ in range(limits.MAX_NESTING + 1):
        literal = [literal]
    with pytest.raises(MatcherError, match="nested deeper than 64 levels"):
        parse_matcher({"equals": literal})


@pytest.mark.parametrize(
    "written",
    [
        {"extra_keys": True, "object": {"b": 1, "a": {"regex": "x"}}},
        {"range": {"max": 7, "min": 1.5}},
        {"approx": {"rel_tolerance": 0.1, "value": 10}},
        {"normalized": {"ignore": {"chars": " -"}, "value": "555 1234"}},
        {"normalized": {"value": "C#", "ignore": ["punctuation", {"chars": "_"}]}},
        {"optional": True},
        {"optional": False},
        {"one_of": [1, {"a": [2]}, None]},
        {"equals": {"regex": "not a matcher"}},
        {"schema": {"type": "object", "properties": {"z": {}, "a": {}}}},
        {"contains": {"name": {"normalized": "x"}}},
        {"filter": [1, {"unordered": [2, {"judge": "an odd number"}]}], "extra_keys": True},
    ],
)
def test_a_tree_renders_back_to_what_the_suite_wrote(written):
    assert json.dumps(parse_matcher(written).json()) == json.dumps(written)


def test_a_judge_is_found_at_any_depth_but_not_inside_a_literal():
    assert has_judge(parse_matcher({"object": {"a": [{"any_of": [1, {"judge": "odd"}]}]}}))
    assert not has_judge(parse_matcher({"equals": {"judge": "odd"}}))
    assert not has_judge(parse_matcher({"one_of": [{"judge": "odd"}]}))
    assert mt.any_judged(parse_matchers({"a": 1, "b": {"not": {"judge": "odd"}}}))


def test_the_kinds_are_the_matcher_keys_and_the_plain_forms():
    kinds = {mt.key_of(parse_matcher(w)) for w in ({"anything": True}, {"absent": True}, 5, [1], {"a": 1})}
    assert kinds == {"anything", "absent", None}
    assert mt.key_of(parse_matcher({"object": {}, "extra_keys": True})) == "object"
