"""Deterministic --shard INDEX/COUNT split: every case in exactly one shard, balanced, independent of
file order."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.errors import InputError
from gate.results.messages import UserMessage
from gate.selection.sharding import parse_shard, shard_suites
from gate.suite.model import (
    Agent,
    Case,
    Defaults,
    Expectation,
    Mocks,
    ModelParams,
    Scoring,
    Source,
    Suite,
)


def make_case(case_id: str, trials: int = 1, skip: str | None = None) -> Case:
    return Case(
        id=case_id,
        conversation=(UserMessage("q"),),
        vars={},
        tags=(),
        expect=Expectation(),
        trials=trials,
        reducer="all",
        at_least=1,
        mean_pass_score=0.5,
        max_tool_calls=16,
        max_turns=8,
        scoring=Scoring(),
        mocks=Mocks(),
        source=Source("x", 1),
        skip=skip,
    )


def make_suite(path: str, cases: list[Case]) -> Suite:
    return Suite(
        name=path,
        path=path,
        description="",
        tags=(),
        agent=Agent(provider="openai", model="m", params=ModelParams(), system_prompt=None, tools=()),
        judge=None,
        mocks=Mocks(),
        defaults=Defaults(),
        threshold=0.9,
        cases=tuple(cases),
    )


def keys(suites: tuple[Suite, ...]) -> list[tuple[str, str]]:
    return [(s.path, c.id) for s in suites for c in s.cases]


@pytest.mark.parametrize(
    "text,expected", [("1/1", (1, 1)), ("2/4", (2, 4)), (" 3 / 3 ", (3, 3)), ("10/12", (10, 12))]
)
def test_parse_shard(text: str, expected: tuple[int, int]) -> None:
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["", "1", "0/3", "4/3", "1/0", "-1/3", "a/b", "1/2/3", "1.5/3"])
def test_parse_shard_rejects_invalid(text: str) -> None:
    with pytest.raises(InputError) as info:
        parse_shard(text)
    assert info.value.exit_code == 2
    assert "--shard" in str(info.value)


suite_specs = st.lists(
    st.tuples(
        st.sampled_from(["evals/a.yaml", "evals/b.yaml", "evals/c.yaml", "x/d.yaml", "e.yaml"]),
        st.lists(st.tuples(st.text("abcdef0123", min_size=1, max_size=6), st.integers(1, 5)), max_size=12),
    ),
    max_size=5,
    unique_by=lambda spec: spec[0],
)


def build(spec: list[tuple[str, list[tuple[str, int]]]]) -> list[Suite]:
    suites = []
    for path, cases in spec:
        unique = {cid: trials for cid, trials in cases}
        suites.append(make_suite(path, [make_case(cid, trials) for cid, trials in unique.items()]))
    return suites


@settings(max_examples=150, deadline=None)
@given(spec=suite_specs, count=st.integers(1, 7), data=st.data())
def test_every_case_in_exactly_one_shard_and_order_independent(spec, count: int, data) -> None:
    suites = build(spec)
    all_keys = Counter(keys(tuple(suites)))
    shards = [shard_suites(suites, i, count) for i in range(1, count + 1)]
    union = Counter(k for shard in shards for k in keys(shard))
    assert union == all_keys

    # Suites without a case in a shard are dropped; the others keep their cases in file order.
    for shard in shards:
        for suite in shard:
            assert suite.cases
            original = next(s for s in suites if s.path == suite.path)
            ids = [c.id for c in original.cases]
            assert [c.id for c in suite.cases] == sorted((c.id for c in suite.cases), key=ids.index)

    # Balanced by weight (trials): loads differ by at most the heaviest case.
    loads = [sum(c.trials for s in shard for c in s.cases) for shard in shards]
    heaviest = max((c.trials for s in suites for c in s.cases), default=0)
    assert max(loads) - min(loads) <= heaviest

    # The same split whatever order the files (and cases) were found in.
    shuffled = data.draw(st.permutations(suites))
    shuffled = [make_suite(s.path, list(data.draw(st.permutations(s.cases)))) for s in shuffled]
    for i in range(1, count + 1):
        assert set(keys(shard_suites(shuffled, i, count))) == set(keys(shards[i - 1]))


def test_equal_cases_spread_evenly() -> None:
    suites = [make_suite(f"evals/s{n}.yaml", [make_case(f"c{i}") for i in range(10)]) for n in range(4)]
    sizes = [len(keys(shard_suites(suites, i, 3))) for i in range(1, 4)]
    assert sorted(sizes) == [13, 13, 14]


def test_more_shards_than_cases_leaves_some_empty() -> None:
    suites = [make_suite("evals/a.yaml", [make_case("only")])]
    shards = [shard_suites(suites, i, 3) for i in range(1, 4)]
    assert sorted(len(s) for s in shards) == [0, 0, 1]


def test_shard_suites_rejects_out_of_range_index() -> None:
    with pytest.raises(InputError):
        shard_suites([], 0, 2)
