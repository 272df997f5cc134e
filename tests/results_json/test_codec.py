from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.errors import InputError
from gate.files.results_file import load_results
from gate.results.outcomes import RESULTS_VERSION, RunResults, SourceRef
from gate.results.run_record import OfferedTool
from gate.results_json.codec import to_json
from gate.results_json.read_back import results_from_dict
from tests.results_factory import call, case, failure, record, run, suite, tool, trials_case

ROOT = Path(__file__).resolve().parents[2]


def rich_results() -> RunResults:
    rec = record(
        "weather in Paris?",
        [call("get_weather", {"city": "Paris"}, result={"temp_c": 18})],
        output="It is 18 °C \x00 <b>",
        cost_usd=None,
    )
    cases = [
        case(
            "ok",
            rec=rec,
            expected={"calls": [{"tool": "get_weather", "args": {"city": "Paris"}}]},
            tags=["a"],
        ),
        case(
            "bad",
            "failed",
            line=20,
            failures=[
                failure(
                    "value_error", tool="get_weather", argument="city", expected="Paris", actual=["Lyon", 1]
                )
            ],
        ),
        case("err", "error", line=30),
        case("skip", "skipped", line=40, skip_reason="flaky upstream"),
        trials_case("flaky", "pfp", line=50, status="passed"),
    ]
    return run(
        suite(
            "weather",
            cases,
            tools=[tool("get_weather", parameter_lines={"city": 7})],
            prompt=SourceRef("prompts/w.md", 1),
        ),
        settings={"threshold": 0.8},
    )


def test_json_roundtrips_losslessly_and_is_stable():
    results = rich_results()
    text = to_json(results)
    assert results_from_dict(json.loads(text)) == results
    assert to_json(results_from_dict(json.loads(text))) == text
    assert text.endswith("\n") and json.loads(text)["version"] == RESULTS_VERSION == 3


def program_results() -> RunResults:
    """Two trials of an agent program whose requests offered three distinct definitions."""
    weather = OfferedTool("get_weather", "The weather now.", {"type": "object", "properties": {}})
    reworded = OfferedTool("get_weather", "The weather now, in a city.", {"type": "object", "properties": {}})
    forecast = OfferedTool("get_forecast", "", {"type": "object"})
    first = dataclasses.replace(record("q", []), offered=((weather, forecast), (weather, forecast)))
    second = dataclasses.replace(record("q", []), offered=((reworded,), ()))
    return run(suite("desk", [case("a", rec=first), case("b", rec=second)]))


def test_an_agent_program_s_offered_tools_are_stored_once_per_suite_and_read_back_per_request():
    results = program_results()
    text = to_json(results)
    data = json.loads(text)
    stored = data["suites"][0]
    assert [t["description"] for t in stored["offered_tools"]] == [
        "The weather now.",
        "",
        "The weather now, in a city.",
    ]
    assert [c["trials"][0]["record"]["offered"] for c in stored["cases"]] == [[[0, 1], [0, 1]], [[2], []]]
    assert results_from_dict(data) == results
    jsonschema.validate(data, json.loads((ROOT / "schemas" / "results.schema.json").read_text()))
    data["suites"][0]["cases"][1]["trials"][0]["record"]["offered"] = [[3]]
    with pytest.raises(ValueError, match="a request offered tool 3; the suite has 3"):
        results_from_dict(data)


def test_json_validates_against_both_schema_copies_which_are_identical():
    schema_a = (ROOT / "schemas" / "results.schema.json").read_text()
    schema_b = (ROOT / "gate" / "schemas" / "results.schema.json").read_text()
    assert schema_a == schema_b
    schema = json.loads(schema_a)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(to_json(rich_results())), schema, cls=jsonschema.Draft202012Validator)


def test_load_results(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(to_json(rich_results()), encoding="utf-8")
    assert load_results(path) == rich_results()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"\xff\xfe\x00binary", "not UTF-8"),
        (b'{\n  "version": 1,\n  oops', "not valid JSON"),
        (b"[1, 2]", "not a tool-eval-gate results file"),
        (b'{"name": "package", "version": "1.0"}', "not a tool-eval-gate results file"),
        (b'{"version": 99, "suites": []}', "newer tool-eval-gate"),
    ],
)
def test_load_results_rejects_foreign_files_clearly(tmp_path, content, message):
    path = tmp_path / "foreign.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        load_results(path)
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_load_results_names_what_is_wrong(tmp_path):
    data = json.loads(to_json(rich_results()))
    data["suites"][0]["cases"][1]["status"] = "exploded"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as info:
        load_results(path)
    assert "$.suites[0].cases[1].status" in str(info.value)
    with pytest.raises(InputError, match="not found"):
        load_results(tmp_path / "missing.json")


def test_invalid_json_error_has_line_and_column(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{\n "version": 1,\n "suites": [,]\n}')
    with pytest.raises(InputError) as info:
        load_results(path)
    assert f"{path}:3:" in str(info.value)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-2, 2)
    | st.sampled_from(["", "x", "passed", "1/2"]),
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(st.sampled_from(["a", "name", "line"]), inner, max_size=2)
    ),
    max_leaves=4,
)


@given(st.data())
@settings(max_examples=150, deadline=None)
def test_fast_validator_agrees_with_jsonschema(data):
    from gate.results_json.codec import fast_valid, results_schema

    document = json.loads(to_json(rich_results()))
    paths = [p for p in _paths(document) if p]
    target = data.draw(st.sampled_from(paths))
    mutation = data.draw(st.sampled_from(["replace", "delete", "add"]))
    parent = document
    for key in target[:-1]:
        parent = parent[key]
    last = target[-1]
    if mutation == "replace":
        parent[last] = data.draw(json_values)
    elif mutation == "delete":
        del parent[last]
    elif isinstance(parent[last], dict):
        parent[last][data.draw(st.sampled_from(["bogus", "name", "line", "status"]))] = data.draw(json_values)
    schema = results_schema()
    expected = not list(jsonschema.Draft202012Validator(schema).iter_errors(document))
    assert fast_valid(schema, document) == expected
