"""The command dispatcher: usage, unknown commands, and interrupts map onto the exit-code contract."""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path

import pytest

from gate import cli
from gate.cli import main


def test_no_command_is_a_usage_error(capsys):
    assert cli.main([]) == 2
    assert "usage: tool-eval-gate" in capsys.readouterr().out


def test_unknown_command_is_a_usage_error(capsys):
    assert cli.main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err


def test_version_and_help_exit_0(capsys):
    assert cli.main(["--version"]) == 0
    assert cli.main(["--help"]) == 0


def test_an_interrupt_outside_a_command_s_own_handling_is_exit_3(monkeypatch, capsys):
    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "gate.commands.validate", types.SimpleNamespace(main=interrupted))
    assert cli.main(["validate"]) == 3
    assert "interrupted" in capsys.readouterr().err


def _located_first(err: str, location: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith(f"{location}: ")]
    assert lines, err
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "location", "says"),
    [
        (["run", "--shard", "1/99999999999999999999999"], "--shard", "at most 10,000 shards"),
        (["run", "--shard", "3/2"], "--shard", "the index must be between 1 and the count"),
        (["run", "--trials", "0"], "--trials", "must be at least 1, got '0'"),
        (["report", "r.json", "--markdown-limit", "-1"], "--markdown-limit", "must be at least 1"),
        (["report", "r.json", "--markdown-limit", "10"], "--markdown-limit", "at least 1,024 characters"),
        (["report", "r.json", "--threshold", "nan"], "--threshold", "a rate is between 0 and 1"),
        (["run", "--max-error-rate", "10"], "--max-error-rate", "from 0 to 1 (0.1 is 10%"),
        (["run", "--max-error-rate", "-0.1"], "--max-error-rate", "from 0 to 1"),
        (["report", "r.json", "--max-error-rate", "nan"], "--max-error-rate", "from 0 to 1"),
        (["report", "r.json", "--max-error-rate", "tenth"], "--max-error-rate", "not a number: 'tenth'"),
        (["run", "--model", ""], "--model", "the model name is empty"),  # was "no --model"
        (["run", "--model", "anthropic:"], "--model", "names a provider and no model"),
        (["run", "--judge-model", "openai:"], "--judge-model", "names a provider and no model"),
        (["run", "--model", "gpt-4o\nx"], "--model", "control character"),
        (["run", "--fix-model", "anthropic:"], "--fix-model", "names a provider and no model"),
        (["init", "--model", "anthropic:"], "--model", "names a provider and no model"),
        # an infinite time limit (a request that never answers waited for forever) or cost cap
        (["run", "--timeout", "inf"], "--timeout", "must be a finite number"),
        (["run", "--timeout", "1e400"], "--timeout", "must be a finite number"),
        (["run", "--max-cost", "Infinity"], "--max-cost", "must be a finite number"),
        (["run", "--timeout", "nan"], "--timeout", "must be greater than 0"),
        # an empty value (a variable unset in CI) was the option left out: every case in every shard,
        # no baseline compared, every suite instead of the changed ones, no cache
        *(
            (["run", option, ""], option, "an empty value: give one, or leave the option out")
            for option in (
                "--shard",
                "--baseline",
                "--changed-since",
                "--rerun-failed",
                "--cache",
                "--prices",
                "--root",
                "--baseline-json",
            )
        ),
        (["report", "r.json", "--baseline", " "], "--baseline", "an empty value"),
        (["validate", "--root", ""], "--root", "an empty value"),
        (["init", "--tools", ""], "--tools", "an empty value"),
    ],
)
def test_option_errors_read_like_every_located_error(tmp_path, monkeypatch, capsys, argv, location, says):
    """An option error is invalid input (exit 2, no traceback), located at its option, first on its line."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.suite.yaml").write_text(
        "version: 1\nname: s\nagent: {provider: openai, model: gpt-4o-mini}\ncases: [{id: a, input: hi}]\n"
    )
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and says in _located_first(err, location)


def test_a_forged_shard_count_in_a_results_file_is_refused_not_counted_up_to(tmp_path, capsys):
    from gate.results_json.codec import to_json
    from tests.results_factory import case, run, suite

    text = to_json(run(suite("s", cases=[case("a")])))
    data = json.loads(text)
    data["shard"] = "1/99999999999999999999999"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    assert main(["report", str(path)]) == 2
    assert "at most 10,000" in capsys.readouterr().err


def _with_closed_stdout(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None, module: str = "gate"
) -> tuple[int, str]:
    """``python -m MODULE ARGV`` whose standard output is a pipe nobody reads any more (``| head -1``
    once head has exited): every write to it fails with EPIPE. The exit code and the standard error."""
    import subprocess

    from tests.conftest import ROOT

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", module, *argv],
            cwd=cwd,
            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


@pytest.mark.parametrize(
    ("module", "argv", "code"),
    [
        ("gate", ["--help"], 0),
        ("gate", ["--version"], 0),
        ("gate", ["validate", "--help"], 0),
        ("gate", ["run", "--help"], 0),
        ("gate", ["validate", "."], 0),
        ("gate", ["frobnicate"], 2),
        ("gate.github.entrypoint", ["--help"], 0),  # the action's image: docker run IMAGE --help
        ("gate.github.entrypoint", ["validate", "."], 0),
    ],
)
def test_a_reader_that_went_away_is_no_traceback(tmp_path, module, argv, code):
    """``tool-eval-gate --help | head -1``: the pipe is closed, nothing more can be shown; the command
    ends as it would have, without a BrokenPipeError traceback (DESIGN section 4)."""
    (tmp_path / "s.suite.yaml").write_text(
        "version: 1\nname: s\nagent: {provider: openai, model: gpt-4o-mini}\ncases: [{id: a, input: hi}]\n"
    )
    returncode, err = _with_closed_stdout(argv, tmp_path, module=module)
    assert returncode == code, err
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err


def test_a_run_whose_output_pipe_closes_still_writes_its_reports_and_gates(tmp_path, model_server):
    """``tool-eval-gate run ... | head`` in a CI step with pipefail: the verdict still decides the
    exit code, and the reports are written."""
    script = {
        "rules": [
            {
                "when": {"last_user": "in (?P<city>[A-Za-z]+)", "turn": 1},
                "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
            }
        ],
        "default": {"text": "Sunny."},
    }
    server = model_server(script)
    tools = [{"name": "get_weather", "description": "Weather.", "input_schema": {"type": "object"}}]
    (tmp_path / "tools.json").write_text(json.dumps(tools))
    (tmp_path / "s.suite.yaml").write_text(
        "version: 1\nname: s\nagent: {provider: openai, model: test-model, tools: [{file: tools.json}]}\n"
        "mocks: {tools: {get_weather: [{returns: {temp_c: 18}}]}}\n"
        "cases:\n"
        "  - {id: rome, input: Weather in Rome?, "
        "expect: {calls: [{tool: get_weather, args: {city: Rome}}]}}\n"
        "  - {id: oslo, input: Weather in Oslo?, "
        "expect: {calls: [{tool: get_weather, args: {city: Oslo}}]}}\n"
    )
    env = {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test-closed-pipe-0123456789"}
    argv = ["run", ".", "--json", "out/results.json", "--markdown", "out/report.md"]

    returncode, err = _with_closed_stdout(argv, tmp_path, env)

    assert returncode == 0, err  # both cases passed (it was 1: a BrokenPipeError traceback)
    assert "Traceback" not in err and "Exception ignored" not in err
    results = json.loads((tmp_path / "out/results.json").read_text())
    assert [c["status"] for c in results["suites"][0]["cases"]] == ["passed", "passed"]
    assert (tmp_path / "out/report.md").is_file()
