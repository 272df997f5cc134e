"""The hand-written serialisers keep the contract: ``to_dict`` equals what ``dataclasses.asdict``
builds, and ``to_json`` writes exactly what serialising that dictionary writes."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import asdict
from pathlib import Path

from gate.report_json import file_form, load_results, to_json
from gate.results import RunResults
from gate.run_record import RunRecord, copy_value
from tests.results_factory import call, case, record, run, suite

GOLDEN = Path(__file__).resolve().parent / "golden"


def _without_null_state(data: dict) -> dict:
    """Stateless mocks store no ``state`` (records and calls of stateful ones do)."""
    if data.get("state") is None:
        data.pop("state", None)
    return data


def asdict_record(rec: RunRecord) -> dict:
    data = _without_null_state(asdict(rec))
    data["messages"] = list(rec.messages)
    data["calls"] = [_without_null_state(asdict(c)) for c in rec.calls]
    return data


def asdict_results(results: RunResults) -> dict:
    data = asdict(results)
    for s_i, s in enumerate(results.suites):
        for c_i, c in enumerate(s.cases):
            if c.non_gating is None:  # only non-gating cases store the field
                data["suites"][s_i]["cases"][c_i].pop("non_gating")
            for t_i, t in enumerate(c.trials):
                data["suites"][s_i]["cases"][c_i]["trials"][t_i]["record"] = asdict_record(t.record)
    return data


def odd_results() -> RunResults:
    stateful = dataclasses.replace(call("t", {}), state={"bookings": [{"id": "B1"}]})
    rec = record("q", [call("t", {"a": [1, (2, 3)], "b": {"c": None}}, result=("x", {"y": 1.5})), stateful])
    rec = dataclasses.replace(rec, state={"bookings": [{"id": "B1"}]})
    return run(
        suite("s", [case("c", rec=rec, expected={"calls": ({"tool": "t"},)}, tags=["x", "y"])]),
        settings={"nested": {"list": [1, 2]}},
    )


def test_to_dict_is_what_asdict_builds():
    for results in (
        load_results(GOLDEN / "results.json"),
        load_results(GOLDEN / "baseline.json"),
        odd_results(),
    ):
        mine, reference = results.to_dict(), asdict_results(results)
        assert mine == reference
        assert repr(mine) == repr(reference)  # same key order, same list/tuple types


def test_to_dict_copies_values():
    results = odd_results()
    data = results.to_dict()
    data["settings"]["nested"]["list"].append(3)
    data["suites"][0]["cases"][0]["trials"][0]["record"]["calls"][0]["arguments"]["a"].append(4)
    assert results.settings == {"nested": {"list": [1, 2]}}
    assert results.suites[0].cases[0].trials[0].record.calls[0].arguments == {
        "a": [1, (2, 3)],
        "b": {"c": None},
    }


def test_copy_value_keeps_container_types():
    value = {"a": [1, (2, {"b": 3})]}
    copied = copy_value(value)
    assert copied == value and copied is not value and copied["a"] is not value["a"]
    assert type(copied["a"][1]) is tuple and copied["a"][1][1] is not value["a"][1][1]


def test_to_json_equals_dumping_the_contract_dictionary():
    for results in (load_results(GOLDEN / "results.json"), odd_results()):
        expected = (
            json.dumps(file_form(results.to_dict()), sort_keys=True, ensure_ascii=False, allow_nan=False)
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

    from gate.report_json import gc_paused

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

    from gate.outputs import write_outputs

    results = odd_results()
    write_outputs(
        results, json_path=tmp_path / "r.json", junit_path=tmp_path / "j.xml", markdown_path=tmp_path / "r.md"
    )
    assert gc.isenabled()
    assert to_json(load_results(tmp_path / "r.json")) == to_json(results)  # tuples come back as lists
    assert gc.isenabled()
