"""The results stay small: a system prompt is stored once per suite, not once per trial, and the file
reads back to exactly the same results (and renders identically). Version 1 files are still read."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from gate.cli import main as cli_main
from gate.errors import InputError
from gate.files.results_file import load_results
from gate.results.messages import SystemMessage
from gate.results.outcomes import RunResults
from gate.results_json.codec import parse_results, to_json
from gate.verdict.conclusion import conclude
from tests.results_factory import case, plain_results, record, run, suite

GOLDEN = Path(__file__).parents[1] / "golden"
PROMPT = ("Answer precisely; always call lookup first and never guess the value. " * 1500)[:100_000]


def with_system(rec, prompt: str):
    return replace(rec, messages=(SystemMessage(prompt), *rec.messages))


def big_run(cases: int = 1000) -> RunResults:
    items = [
        case(f"c{i:04d}", rec=with_system(record(f"question {i}", output=f"answer {i}"), PROMPT))
        for i in range(cases)
    ]
    other = [case("x", rec=with_system(record("q"), "a different prompt for one case"))]
    return run(suite("big", items), suite("other", other))


def test_a_100_kb_prompt_over_1000_cases_stays_under_5_mb():
    results = big_run()
    text = to_json(results)
    assert len(text.encode("utf-8")) < 5_000_000
    data = json.loads(text)
    assert data["suites"][0]["system_prompts"] == [PROMPT]
    assert data["suites"][1]["system_prompts"] == ["a different prompt for one case"]
    assert data["suites"][0]["cases"][7]["trials"][0]["record"]["messages"][0] == {
        "prompt": 0,
        "role": "system",
    }
    # It reads back to the very same results, and the text is stored once in memory too.
    loaded = parse_results(data)
    assert loaded == results
    first = loaded.suites[0].cases[0].trials[0].record.messages[0].content
    assert all(c.trials[0].record.messages[0].content is first for c in loaded.suites[0].cases)
    assert to_json(loaded) == text


def test_report_re_renders_a_compact_file_identically(tmp_path):
    path = tmp_path / "r.json"
    results = big_run(50)
    path.write_text(to_json(results, verdict=conclude(results).verdict), encoding="utf-8")  # as run writes it
    outputs = []
    for name in ("a", "b"):
        args = [
            "report",
            str(path),
            "--json",
            str(tmp_path / f"{name}.json"),
            "--markdown",
            str(tmp_path / f"{name}.md"),
        ]
        assert cli_main([*args, "--junit", str(tmp_path / f"{name}.xml")]) == 0
        outputs.append([(tmp_path / f"{name}.{ext}").read_bytes() for ext in ("json", "md", "xml")])
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == path.read_bytes()


def test_version_1_files_with_the_prompt_in_every_trial_are_still_read(tmp_path):
    results = big_run(3)
    data = plain_results(results)  # the prompt inside every transcript, as version 1 wrote it
    data["version"] = 1
    v1 = tmp_path / "v1.json"
    v1.write_text(json.dumps(data, default=list), encoding="utf-8")
    assert load_results(v1) == results
    assert to_json(load_results(v1)) == to_json(results)
    golden_v1 = load_results(GOLDEN / "results_v1.json")
    assert to_json(golden_v1) == (GOLDEN / "results.json").read_text(encoding="utf-8")


def test_a_system_message_pointing_at_no_prompt_is_an_input_error():
    data = json.loads(to_json(big_run(2)))
    data["suites"][0]["cases"][1]["trials"][0]["record"]["messages"][0] = {"role": "system", "prompt": 5}
    with pytest.raises(InputError, match="refers to prompt 5; the suite has 1"):
        parse_results(data, "r.json")
