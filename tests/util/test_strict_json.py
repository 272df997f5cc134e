"""JSON read with the numbers a document may hold, and a text's structure bounded before it is read."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.util import strict_json

_TEXT = st.text(st.sampled_from(['"', "\\", "[", "]", "{", "}", "a", " ", "\n", "é"]), max_size=6)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=20,
)


def _shape(value: Any, depth: int = 1) -> tuple[int, int]:
    """(objects and lists, nesting) of a decoded value."""
    if isinstance(value, dict):
        inner = [_shape(v, depth + 1) for v in value.values()]
    elif isinstance(value, list):
        inner = [_shape(v, depth + 1) for v in value]
    else:
        return 0, depth - 1
    return 1 + sum(c for c, _ in inner), max([depth, *(d for _, d in inner)])


@settings(max_examples=400, deadline=None)
@given(
    value=_VALUES, containers=st.integers(0, 12), depth=st.integers(1, 6), indent=st.sampled_from([None, 1])
)
def test_the_structure_is_counted_as_decoding_counts_it(value, containers, depth, indent):
    """Brackets, quotes and backslashes inside strings are text; the bound agrees with the decoded
    value's own count and depth, without decoding it."""
    raw = json.dumps(value, indent=indent, ensure_ascii=False).encode()
    count, nesting = _shape(value)
    problem = strict_json.structure_problem(raw, containers=containers, depth=depth)
    if count > containers:
        assert problem == f"{count:,} objects and lists (at most {containers:,})"
    elif nesting > depth:
        assert problem == f"nested deeper than {depth} levels"
    else:
        assert problem is None


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ('{"a": NaN}', "NaN is not a number"),
        ('{"a": -1e400}', "-1e400 is too large"),
        ('{"a": ' + "9" * 4301 + "}", "an integer of 4,301 digits"),
        ('{"a": 1e308, "b": -0.0, "c": ' + "9" * 4300 + "}", None),
    ],
)
def test_numbers_no_document_may_hold_are_refused_at_their_place(text, refused):
    if refused is None:
        assert strict_json.loads(text)["b"] == 0
        return
    with pytest.raises(strict_json.RefusedNumber, match=refused):
        strict_json.loads(text)
    assert strict_json.refused_at(text) == (1, 7)
