"""A results file (or a baseline, or --rerun-failed's) is untrusted input: every number it holds is a
JSON number of a size fit for its purpose, each suite and case appears once, and a file with a
million mistakes is refused as fast and as small as one with one, each problem located."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gate.cli import main
from gate.errors import InputError
from gate.files.results_file import load_results
from gate.results_json.codec import to_json
from tests.results_factory import case, run, suite

SUITE = """\
version: 1
name: weather
agent: {provider: openai, model: gpt-4o-mini, tools: [{name: t, description: d, parameters: {type: object}}]}
cases: [{id: a, input: hi}]
"""


def _written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "results.json"
    path.write_text(text, encoding="utf-8")
    return path


def _valid() -> str:
    return to_json(run(suite("weather", cases=[case("a"), case("b", status="failed")])))


def _refused(path: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_results(path)
    return [p.render() for p in info.value.problems]


@pytest.mark.parametrize(
    ("number", "says"),
    [
        ("NaN", "NaN is not a number (JSON has no NaN or Infinity)"),
        ("Infinity", "Infinity is not a number"),
        ("-Infinity", "-Infinity is not a number"),
        ("1e999", "1e999 is too large for a number"),
        ("9" * 5000, "an integer of 5,000 digits (at most 4,300)"),
    ],
)
def test_numbers_json_has_not_or_too_large_to_read_are_refused_at_their_place(tmp_path, number, says):
    text = _valid().replace('"threshold": 0.9', f'"threshold": {number}', 1)
    assert text != _valid()
    at = text.index(number)
    line, column = text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1
    [problem] = _refused(_written(tmp_path, text))
    assert problem.startswith(f"{tmp_path / 'results.json'}:{line}:{column}: not a results file: {says}")


def test_a_number_too_large_for_its_purpose_is_refused_at_its_path(tmp_path):
    data = json.loads(_valid())
    data["suites"][0]["cases"][0]["trials"][0]["record"]["turns"] = 10**400
    [problem] = _refused(_written(tmp_path, json.dumps(data)))
    assert ".cases[0].trials[0].record.turns: " in problem and "is greater than the maximum" in problem


def test_a_case_or_a_suite_twice_in_one_file_is_refused_not_counted_twice(tmp_path):
    data = json.loads(_valid())
    cases = data["suites"][0]["cases"]
    cases.append(dict(cases[0]))
    [problem] = _refused(_written(tmp_path, json.dumps(data)))
    assert problem.endswith(
        "$.suites[0].cases[2].case_id: duplicate case id 'a' (first $.suites[0].cases[0])"
    )
    data = json.loads(_valid())
    data["suites"].append(data["suites"][0])
    [problem] = _refused(_written(tmp_path, json.dumps(data)))
    assert problem.endswith("$.suites[1].name: duplicate suite 'weather' (first $.suites[0])")


def test_a_million_schema_errors_are_refused_quickly_showing_the_first(tmp_path):
    data = json.loads(_valid())
    data["suites"][0]["cases"][0]["trials"][0]["record"]["messages"] = "MESSAGES"
    text = json.dumps(data).replace('"MESSAGES"', "[" + ",".join(["0"] * 1_000_000) + "]")
    start = time.process_time()
    problems = _refused(_written(tmp_path, text))
    assert time.process_time() - start < 10  # collecting every error took minutes and gigabytes
    assert len(problems) == 21 and problems[-1].endswith("... and more problems (the first 20 are shown)")
    assert "0 is not of type 'object'" in problems[0]


@pytest.mark.parametrize("command", ["report", "baseline", "rerun"])
def test_every_command_reading_results_refuses_them_cleanly(tmp_path, capsys, command):
    bad = _written(tmp_path, _valid().replace('"threshold": 0.9', '"threshold": ' + "9" * 5000, 1))
    (tmp_path / "w.suite.yaml").write_text(SUITE, encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text(_valid(), encoding="utf-8")
    argv = {
        "report": ["report", str(bad)],
        "baseline": ["report", str(good), "--baseline", str(bad)],
        "rerun": ["run", str(tmp_path), "--rerun-failed", str(bad)],
    }[command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "an integer of 5,000 digits" in err
