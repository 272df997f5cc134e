"""Merging the shards of one run: the verdict of the whole run, whatever the order of the parts; parts
that disagree are an error naming both files."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gate.errors import InputError
from gate.results_json.shard_merge import merge
from tests.results_factory import case, failure, run, simple, suite, tool


def shards():
    a = run(
        suite("s", [case("c1", line=10), case("c3", "failed", line=30, failures=[failure("missing_call")])]),
        simple(2, name="z"),
        shard="1/2",
    )
    b = run(
        suite("s", [case("c2", line=20)]),
        simple(1, 1, name="a"),
        shard="2/2",
        complete=False,
        incomplete_reason="interrupted",
    )
    return a, b


def test_merge_shards_case_by_case_in_file_order():
    a, b = shards()
    merged = merge([b, a])
    assert [s.name for s in merged.suites] == ["a", "s", "z"]  # sorted by path
    assert [c.case_id for c in merged.suites[1].cases] == ["c1", "c2", "c3"]
    assert merged.shard == ""
    assert not merged.complete and "interrupted" in merged.incomplete_reason
    assert merge([a, b]) == merged  # order of the parts does not matter
    complete = merge([a, replace(b, complete=True, incomplete_reason="")])
    assert complete.complete


def test_a_shard_a_replay_could_not_wholly_answer_leaves_the_merge_not_verified_and_it_reads_back():
    from gate.results_json.codec import to_json
    from gate.results_json.read_back import results_document, results_from_dict

    a, b = shards()
    merged = merge([a, replace(b, unverified="not verified: a replay could not answer 1 request(s)")])
    assert merged.unverified == "shard 2/2: not verified: a replay could not answer 1 request(s)"
    assert merge([a, b]).unverified == ""
    assert results_from_dict(results_document(to_json(merged), "merged.json")).unverified == merged.unverified


def test_merge_rejects_duplicates_and_notices_missing_shards():
    a, b = shards()
    with pytest.raises(InputError, match="c1"):
        merge([a, replace(a, shard="2/2")])
    with pytest.raises(InputError, match="more than once"):
        merge([a, replace(b, suites=(), shard="1/2")])
    missing = merge([a])
    assert not missing.complete and "2/2" in missing.incomplete_reason
    with pytest.raises(InputError, match="different shard splits"):
        merge([a, replace(b, shard="2/3")])


def _settings(**values):
    from gate.results.settings import RunSettings

    return RunSettings.from_dict(values)


def test_what_the_shards_spent_is_summed_and_their_base_sides_merged():
    a, b = shards()
    b = replace(b, complete=True, incomplete_reason="")
    recorded = {"errors": "count", "fail_on": "regression_or_threshold"}
    base_a = {"merge_base": "m" * 40, "changed_lines": {"t.json": [3]}, "requests": 2, "cache": {"hits": 1}}
    base_b = {
        "merge_base": "m" * 40,
        "changed_lines": {"t.json": [5, 3]},
        "requests": 3,
        "cache": {"hits": 2},
    }
    a = replace(
        a,
        settings=_settings(**recorded, requests=4, cache={"hits": 1, "misses": 4}, baseline=base_a),
        base=run(suite("s", [case("c1", line=10)]), shard="1/2"),
    )
    b = replace(
        b,
        settings=_settings(**recorded, requests=6, cache={"hits": 0, "misses": 6}, baseline=base_b),
        base=run(suite("s", [case("c2", line=20), case("gone", line=40)]), shard="2/2"),
    )
    merged = merge([b, a], ["b.json", "a.json"])
    assert merged == merge([a, b], ["a.json", "b.json"])
    settings = merged.settings
    assert (
        settings.requests,
        settings.cache and settings.cache.hits,
        settings.cache and settings.cache.misses,
    ) == (
        10,
        1,
        10,
    )
    assert settings.baseline is not None and settings.baseline.requests == 5
    assert settings.baseline.changed_lines == {"t.json": (3, 5)}
    assert merged.base is not None and [c.case_id for c in merged.base.suites[0].cases] == [
        "c1",
        "c2",
        "gone",
    ]


def test_shards_asked_for_different_things_are_refused_naming_both_files():
    a, b = shards()
    with pytest.raises(InputError) as info:
        merge(
            [
                replace(a, settings=_settings(fail_on="threshold")),
                replace(b, settings=_settings(fail_on="any_failure")),
            ],
            ["one.json", "two.json"],
        )
    assert "one.json and two.json disagree about fail_on" in str(info.value)
    with pytest.raises(InputError, match=r"disagree about the error budget \(--max-error-rate\)"):
        merge(
            [
                replace(a, settings=_settings(max_error_rate=0.1)),
                replace(b, settings=_settings(max_error_rate=0)),
            ],
            ["one.json", "two.json"],
        )
    other = replace(b, suites=tuple(replace(s, threshold=0.5) if s.name == "s" else s for s in b.suites))
    with pytest.raises(InputError, match="disagree about the threshold of suite 's'"):
        merge([a, other], ["one.json", "two.json"])


def test_an_agent_program_s_tools_are_joined_from_its_shards_and_a_model_agent_s_must_agree():
    """A program's tools are those its requests offered in each shard's cases (a shard whose cases were
    offered fewer tools is no disagreement); a model agent's come from its suite and must agree."""
    lookup, forecast = tool("lookup", description="Look up."), tool("get_forecast", description="Days.")
    reworded = tool("lookup", description="Look it up.")

    def parts(provider: str, second: tuple) -> list:
        return [
            run(suite("s", [case("c1", line=10)], tools=[lookup], provider=provider), shard="1/2"),
            run(suite("s", [case("c2", line=20)], tools=second, provider=provider), shard="2/2"),
        ]

    merged = merge(parts("", (reworded, forecast)))
    assert [(t.name, t.description) for t in merged.suites[0].tools] == [
        ("lookup", "Look up."),
        ("get_forecast", "Days."),
    ]
    assert merge(list(reversed(parts("", (reworded, forecast))))) == merged
    with pytest.raises(InputError, match="disagree about the tool definitions of suite 's'"):
        merge(parts("openai", (lookup, forecast)), ["one.json", "two.json"])


@pytest.mark.parametrize(
    ("one", "two", "what"),
    [
        ({"trials": 3}, {"trials": 5}, "--trials"),  # merged into one verdict before
        ({"trials": 3}, {}, "--trials"),
        ({"trials_policy": "curtailed"}, {"trials_policy": "full"}, "--trials-policy"),
        ({"cases": ["c1"]}, {"cases": ["c2"]}, "--case"),
        ({"tags": ["smoke"]}, {}, "--tag"),
    ],
)
def test_shards_of_runs_asked_for_different_trials_or_cases_are_refused(one, two, what):
    a, b = shards()
    with pytest.raises(InputError, match=f"one.json and two.json disagree about {what}:"):
        merge(
            [replace(a, settings=_settings(**one)), replace(b, settings=_settings(**two))],
            ["one.json", "two.json"],
        )


@pytest.mark.parametrize("shard", ["0/2", "3/2", "2/0", "x/2", "1/2/3", "-1/2"])
def test_a_part_whose_shard_is_not_one_of_a_split_is_refused_naming_its_file(shard):
    """Shards 0/2 and 3/2 merged as "incomplete" (missing 1/2 and 2/2) instead of refused."""
    a, _ = shards()
    with pytest.raises(InputError) as info:
        merge([replace(a, shard=shard), replace(a, suites=(), shard="1/2")], ["bad.json", "good.json"])
    [problem] = info.value.problems
    assert problem.path == "bad.json" and "is not one of a split" in problem.message


@pytest.mark.parametrize(
    ("present", "count", "reason"),
    [
        ([1], 10_000, "missing shard(s) 2-10000/10000"),
        ([2, 4], 5, "missing shard(s) 1/5, 3/5, 5/5"),
        (list(range(1, 10_001, 2)), 10_000, "missing shard(s) 2/10000, 4/10000"),
    ],
)
def test_the_missing_shards_are_said_in_a_line_whatever_their_number(present, count, reason):
    """One shard of 10,000 given alone said 116 kB of missing shards."""
    a, _ = shards()
    parts = [replace(a, suites=() if i > present[0] else a.suites, shard=f"{i}/{count}") for i in present]
    merged = merge(parts)
    assert not merged.complete and merged.incomplete_reason.startswith(reason)
    assert len(merged.incomplete_reason) < 300
