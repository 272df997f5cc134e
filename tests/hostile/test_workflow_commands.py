"""Nothing the gate prints becomes a workflow command (DESIGN 9): the Actions runner reads
``::name::`` at the start of a log line (after white space; lines end at CR or LF) and ``##[name]``
anywhere in one. Text from models, suites, file names and results files reaches the console in every
command; only the gate's own commands (annotations, masks, groups) may be commands."""

from __future__ import annotations

import io
import re

import pytest

from gate.cli import main
from gate.github import actions_env
from gate.results_json.codec import to_json
from gate.util.redact import RedactingStream, Redactor
from tests.results_factory import case, failure, record, run, suite

_LINE = re.compile(r"[\r\n]")
FORGED = "x\n::error file=README.md,line=1::forged\r::warning::forged ##[stop-commands]STOP ##[error]x"


def commands_in(output: str) -> list[str]:
    """The log lines of ``output`` the runner would read as workflow commands."""
    return [line for line in _LINE.split(output) if line.lstrip().startswith("::") or "##[" in line]


def test_a_suite_file_whose_name_holds_a_command_stays_text(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    name = "a\n::error file=README.md,line=1::forged\n##[stop-commands]X.suite.yaml"
    (tmp_path / name).write_text("version: 1\nname: [broken\n", encoding="utf-8")
    for command in (["validate", "."], ["run", "."]):
        assert main(command) == 2
        captured = capsys.readouterr()
        output = captured.out + captured.err
        assert "forged" in output and commands_in(output) == [], output


def test_a_forged_results_file_prints_no_command_in_report(tmp_path, capsys):
    bad = failure("wrong_tool", message=FORGED, tool=FORGED, expected_tool="get_weather")
    forged = case(f"c{FORGED}", status="failed", failures=[bad], rec=record(output=FORGED))
    path = tmp_path / "results.json"
    path.write_text(to_json(run(suite(f"s{FORGED}", [forged], path=f"p{FORGED}"))), encoding="utf-8")
    assert main(["report", str(path)]) == 1
    captured = capsys.readouterr()
    output = captured.out + captured.err
    assert "forged" in output and commands_in(output) == [], output


def test_the_gates_own_commands_pass_and_everything_else_is_neutralised():
    raw = io.StringIO()
    stream = RedactingStream(raw, Redactor())
    print("model said:", FORGED, file=stream)
    stream.write("partial ::not-a-line-start")
    actions_env.write_commands([actions_env.annotation("error", FORGED, title="tool-eval-gate")], stream)
    print("::warning::from a model", file=stream)
    stream.flush()
    lines = _LINE.split(raw.getvalue())
    own = [line for line in lines if line.startswith("::error title=tool-eval-gate::")]
    assert len(own) == 1 and "%0A" in own[0]  # the gate's annotation: one line, its data escaped
    assert [line for line in commands_in(raw.getvalue()) if line not in own] == []
    assert any(line.endswith("partial ::not-a-line-start") for line in lines)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("::error::x", "\u200b::error::x"),
        ("  ::warning::y", "  \u200b::warning::y"),
        ("a\r::set-output name=x::y", "a\r\u200b::set-output name=x::y"),
        ('got "##[error]boom"', 'got "##\u200b[error]boom"'),
        ("a::b and c :: d", "a::b and c :: d"),
    ],
)
def test_neutralise_commands(text, expected):
    from gate.util.escape import neutralise_commands

    assert neutralise_commands(text) == expected
    assert commands_in(neutralise_commands(text)) == []


def test_the_actions_group_title_is_escaped():
    title = actions_env.escape_data("run a\n::error::x.suite.yaml")
    assert "\n" not in title and commands_in(f"::group::{title}") == [f"::group::{title}"]
