"""Bounded reads and work: results and baseline files have a size bound checked before reading (also
for sparse files and devices), --trials is bounded, and tool arguments nested 100,000 deep are an
``invalid_arguments`` failure, never a RecursionError."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from gate import limits
from gate.cli import main as cli_main
from gate.results.run_record import parse_arguments
from tests.commands.test_run import SCRIPT, point
from tests.conftest import ROOT
from tests.files.test_outputs import repo, run  # noqa: F401 - the fixture

DEEP = 100_000


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as handle:
        handle.truncate(size)
    return path


def test_a_sparse_4_gib_results_file_is_refused_before_reading(tmp_path, capsys):
    huge = _sparse(tmp_path / "results.json", 4 * 1024**3)
    assert cli_main(["report", str(huge)]) == 2
    err = capsys.readouterr().err
    assert f"{huge}: not read: results file too large ({4 * 1024**3} bytes" in err
    assert "Traceback" not in err


def test_dev_zero_as_results_is_refused_in_bounded_memory():
    """In a subprocess under a 1 GiB address-space limit: /dev/zero has no size, so the read stops one
    byte past the bound."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1024**3, 1024**3))

    proc = subprocess.run(
        [sys.executable, "-m", "gate", "report", "/dev/zero"],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "/dev/zero: not read: results file too large (more than the limit" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_huge_baseline_is_refused_before_any_request(repo, model_server, monkeypatch, capsys):  # noqa: F811
    server = model_server(SCRIPT)
    point(monkeypatch, server)
    huge = _sparse(repo / "base.json", limits.MAX_RESULTS_BYTES + 1)
    assert run(repo, "--baseline", str(huge)) == 2
    assert "not read: results file too large" in capsys.readouterr().err
    assert server.request_count == 0


def test_trials_are_bounded_with_a_clear_error(repo, capsys):  # noqa: F811
    assert run(repo, "--trials", "100000000") == 2
    err = capsys.readouterr().err
    assert f"at most {limits.MAX_TRIALS} trials per case, got '100000000'" in err
    assert "Traceback" not in err


def test_the_trials_bound_is_the_suite_schemas():
    for copy in (ROOT / "schemas", ROOT / "gate" / "schemas"):
        text = (copy / "suite.schema.json").read_text()
        schema = json.loads(text)
        maxima = {d["trials"]["maximum"] for d in _objects_with(schema, "trials")}
        assert maxima == {limits.MAX_TRIALS}


def _objects_with(node, key):
    if isinstance(node, dict):
        props = node.get("properties", {})
        if isinstance(props, dict) and key in props and isinstance(props[key], dict):
            yield props
        for value in node.values():
            yield from _objects_with(value, key)
    elif isinstance(node, list):
        for value in node:
            yield from _objects_with(value, key)


def test_deeply_nested_arguments_are_invalid_arguments():
    deep = '{"a": ' + "[" * DEEP + "]" * DEEP + "}"
    assert parse_arguments(deep) == (None, f"arguments are nested deeper than {limits.MAX_NESTING} levels")
    just_over = '{"a": ' + "[" * limits.MAX_NESTING + "]" * limits.MAX_NESTING + "}"
    assert parse_arguments(just_over)[0] is None
    within = '{"a": ' + "[" * (limits.MAX_NESTING - 1) + "]" * (limits.MAX_NESTING - 1) + "}"
    assert parse_arguments(within)[1] is None


def test_a_model_sending_100000_deep_arguments_fails_the_case_with_invalid_arguments(
    repo,  # noqa: F811
    model_server,
    monkeypatch,
    capsys,
):
    script = {
        "rules": [
            {
                "when": {"turn": 1},
                "tool_calls": [
                    {"name": "get_weather", "raw_arguments": '{"city": ' + "[" * DEEP + "]" * DEEP + "}"}
                ],
            }
        ],
        "default": {"text": "18"},
    }
    point(monkeypatch, model_server(script))
    code = run(repo, "--json", str(repo / "r.json"), "--markdown", str(repo / "r.md"))
    captured = capsys.readouterr()
    assert code == 1, captured.err
    assert "Traceback" not in captured.err
    case = json.loads((repo / "r.json").read_text())["suites"][0]["cases"][0]
    reasons = {f["reason"] for f in case["trials"][0]["failures"]}
    assert "invalid_arguments" in reasons
    call = case["trials"][0]["record"]["calls"][0]
    assert call["arguments"] is None and "nested deeper than" in call["arguments_error"]


def test_a_fifo_nobody_writes_to_is_an_empty_results_file_not_a_hang(tmp_path, capsys):
    fifo = tmp_path / "results.fifo"
    os.mkfifo(fifo)
    assert cli_main(["report", str(fifo)]) == 2
    assert "results file is empty" in capsys.readouterr().err


def test_a_directory_as_results_is_an_input_error(tmp_path, capsys):
    assert cli_main(["report", str(tmp_path)]) == 2
    assert f"{tmp_path}: cannot read results file: Is a directory" in capsys.readouterr().err


def _report_peak_mb(tmp_path: Path, results: Path) -> tuple[int, str, float]:
    """``report RESULTS`` as a subprocess: its exit code, its output and its own peak memory (MB)."""
    from tests.hostile.test_bad_inputs import _PEAK_REPORTING

    peak = tmp_path / "peak"
    proc = subprocess.run(
        [sys.executable, "-c", _PEAK_REPORTING, "report", str(results), "--markdown", str(tmp_path / "r.md")],
        capture_output=True,
        text=True,
        env={**os.environ, "PEAK_FILE": str(peak), "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    return proc.returncode, proc.stderr, int(peak.read_text()) / 1024


def _results_with_messages(items: str, count: int) -> str:
    from gate.results_json.codec import to_json
    from tests.results_factory import case, run, suite

    data = json.loads(to_json(run(suite("s", cases=[case("a", status="failed")]))))
    data["suites"][0]["cases"][0]["trials"][0]["record"]["messages"] = "MESSAGES"
    return json.dumps(data).replace('"MESSAGES"', "[" + ",".join([items] * count) + "]")


def test_a_results_file_is_read_within_a_small_multiple_of_its_size(tmp_path):
    """DESIGN 9: a results file's memory stays within a small multiple of its size. A file dense in
    objects (8 MB of {}, which took 26 times its size) is refused before it is decoded; one the gate
    could have written, as dense as a transcript gets, is read within the factor."""
    baseline_mb = _report_peak_mb(tmp_path, _write(tmp_path / "tiny.json", _results_with_messages("{}", 0)))[
        2
    ]
    dense = _write(tmp_path / "dense.json", _results_with_messages("{}", 2_700_000))
    code, err, peak = _report_peak_mb(tmp_path, dense)
    size_mb = dense.stat().st_size / 2**20
    assert code == 2 and "Traceback" not in err and "more than 12 times its size" in err, err
    assert peak - baseline_mb < 2 * size_mb, (peak, baseline_mb, size_mb)
    talk = _write(tmp_path / "talk.json", _results_with_messages('{"role":"user","content":"a"}', 280_000))
    code, err, peak = _report_peak_mb(tmp_path, talk)
    size_mb = talk.stat().st_size / 2**20
    assert code in (0, 1) and "Traceback" not in err, err
    # The decoded document (refused above the factor), its text while it is decoded, the report's work.
    assert peak - baseline_mb < (limits.RESULTS_MEMORY_FACTOR + 2) * size_mb, (peak, baseline_mb, size_mb)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
