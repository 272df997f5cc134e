"""The command dispatcher: usage, unknown commands, and interrupts map onto the exit-code contract."""

from __future__ import annotations

import json
import sys
import types

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
    from gate.reports.json_codec import to_json
    from tests.results_factory import case, run, suite

    text = to_json(run(suite("s", cases=[case("a")])))
    data = json.loads(text)
    data["shard"] = "1/99999999999999999999999"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    assert main(["report", str(path)]) == 2
    assert "at most 10,000" in capsys.readouterr().err
