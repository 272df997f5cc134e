"""The hand-written serialiser keeps the contract: ``to_json`` writes exactly what serialising the
dictionary ``dataclasses.asdict`` builds writes, in the file's form (each suite's system prompts
stored once)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from gate.files.results_file import load_results
from gate.results.outcomes import RunResults
from gate.results.run_record import OfferedTool, copy_value
from gate.results_json.codec import to_json
from tests.results_factory import call, case, plain_results, record, run, suite

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _message(m: dict, prompts: dict[str, int]) -> dict:
    if m["role"] == "system":
        return {"prompt": prompts.setdefault(m["content"], len(prompts)), "role": "system"}
    return m


def _offered(record: dict, tools: dict[str, tuple[int, dict]]) -> dict:
    if "offered" not in record:
        return record
    indexes = [
        [tools.setdefault(json.dumps(t, sort_keys=True), (len(tools), t))[0] for t in request]
        for request in record["offered"]
    ]
    return {**record, "offered": indexes}


def file_form(data: dict) -> dict:
    """The ``asdict`` dictionary as the file stores it: per suite, the distinct system prompts in
    ``system_prompts`` and each transcript's system message as ``{"role": "system", "prompt": i}``;
    the distinct tool definitions an agent program's requests offered in ``offered_tools`` and each
    record's ``offered`` as their indexes."""
    suites = []
    for suite_data in data["suites"]:
        prompts: dict[str, int] = {}
        tools: dict[str, tuple[int, dict]] = {}
        cases = [
            {
                **c,
                "trials": [
                    {
                        **t,
                        "record": {
                            **_offered(t["record"], tools),
                            "messages": [_message(m, prompts) for m in t["record"]["messages"]],
                        },
                    }
                    for t in c["trials"]
                ],
            }
            for c in suite_data["cases"]
        ]
        offered = {"offered_tools": [t for _, t in tools.values()]} if tools else {}
        suites.append({**suite_data, "cases": cases, "system_prompts": list(prompts), **offered})
    return {**data, "suites": suites}


def odd_results() -> RunResults:
    stateful = dataclasses.replace(call("t", {}), state={"bookings": [{"id": "B1"}]})
    rec = record("q", [call("t", {"a": [1, (2, 3)], "b": {"c": None}}, result=("x", {"y": 1.5})), stateful])
    lookup = OfferedTool("t", "Looks things up.", {"type": "object", "properties": {"a": {"type": "array"}}})
    other = OfferedTool("u", "", {"type": "object"})
    rec = dataclasses.replace(
        rec, state={"bookings": [{"id": "B1"}]}, offered=((lookup, other), (lookup,), (), (other, lookup))
    )
    return run(
        suite("s", [case("c", rec=rec, expected={"calls": ({"tool": "t"},)}, tags=["x", "y"])]),
        settings={"nested": {"list": [1, 2]}},
    )


def test_copy_value_keeps_container_types():
    value = {"a": [1, (2, {"b": 3})]}
    copied = copy_value(value)
    assert copied == value and copied is not value and copied["a"] is not value["a"]
    assert type(copied["a"][1]) is tuple and copied["a"][1][1] is not value["a"][1][1]


def test_to_json_equals_dumping_the_contract_dictionary():
    for results in (
        load_results(GOLDEN / "results.json"),
        load_results(GOLDEN / "baseline.json"),
        odd_results(),
    ):
        expected = (
            json.dumps(
                file_form(plain_results(results)),
                sort_keys=True,
                ensure_ascii=False,
                allow_nan=False,
            )
            + "\n"
        )
        assert to_json(results) == expected


def test_not_finite_numbers_become_null():
    results = run(suite("s", [case("c", rec=record(latency_ms=float("nan")))]))
    data = json.loads(to_json(results))
    assert data["suites"][0]["cases"][0]["trials"][0]["record"]["latency_ms"] is None


def test_gc_paused_restores_the_collector_state_even_on_errors():
    import gc

    import pytest

    from gate.results_json.codec import gc_paused

    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with gc_paused():
            assert not gc.isenabled()
            raise RuntimeError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()


def test_write_outputs_and_load_leave_the_collector_on(tmp_path):
    import gc

    from gate.files.outputs import write_outputs
    from gate.verdict.conclusion import conclude

    results = odd_results()
    write_outputs(
        conclude(results),
        json_path=tmp_path / "r.json",
        junit_path=tmp_path / "j.xml",
        markdown_path=tmp_path / "r.md",
    )
    assert gc.isenabled()
    assert to_json(load_results(tmp_path / "r.json")) == to_json(results)  # tuples come back as lists
    assert gc.isenabled()
