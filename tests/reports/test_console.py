"""A failing run says why on the console without any flag: failed cases worst first with file:line
and reason, where the reports are, and the cause of an error that stopped the run (the host for a
connection error, never a credential)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.commands.test_run import (
    ANTHROPIC_KEY,
    OPENAI_KEY,
    SCRIPT,
    TOOLS,
    gate_run,
    no_secrets,
    point,
    suite_text,
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: Any) -> Path:
    (tmp_path / "tools").mkdir()
    (tmp_path / "suites").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(json.dumps(TOOLS))
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("CI", "true")
    return tmp_path


def test_a_failing_run_lists_its_failed_cases_with_file_line_and_reason(
    repo, model_server, monkeypatch, capsys
):
    point(monkeypatch, model_server(SCRIPT))
    (repo / "suites" / "weather.suite.yaml").write_text(
        suite_text("openai", ["Paris", "Rome", "Oslo"], expect_forecast_for=("Rome",))
    )
    code = gate_run(repo, "--json", str(repo / "r.json"), "--junit", str(repo / "r.xml"))
    out = capsys.readouterr().out
    assert code == 1
    lines = out.splitlines()
    head = lines.index("failed cases (1, worst first):")
    failed = lines[head + 1]
    # The case 'rome' is the second case: its "- id:" line in the suite file.
    rome_line = suite_text("openai", ["Paris", "Rome", "Oslo"]).splitlines().index("  - id: rome") + 1
    assert failed.startswith(f"  FAIL  suites/weather.suite.yaml:{rome_line} rome: ")
    assert "get_forecast" in failed  # the reason names what was expected
    assert f"full reports: {repo / 'r.json'}, {repo / 'r.xml'}" in out
    assert "model requests: " in out


def test_a_clean_run_lists_nothing_and_a_replay_prints_no_request_count(
    repo, model_server, monkeypatch, capsys
):
    point(monkeypatch, model_server(SCRIPT))
    (repo / "suites" / "weather.suite.yaml").write_text(suite_text("openai", ["Paris"]))
    cache = repo / "cache"
    assert gate_run(repo, "--record", "--cache", str(cache)) == 0
    out = capsys.readouterr().out
    assert "failed cases" not in out and "full reports" not in out and "model requests: 2" in out
    assert gate_run(repo, "--replay", "--cache", str(cache)) == 0
    assert "model requests" not in capsys.readouterr().out  # nothing was sent


def test_an_unreachable_endpoint_names_the_host_never_the_key(repo, monkeypatch, capsys):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    (repo / "suites" / "weather.suite.yaml").write_text(suite_text("openai", ["Paris", "Rome"]))
    code = gate_run(repo, "--timeout", "5")
    captured = capsys.readouterr()
    assert code == 3
    lines = [line for line in captured.out.splitlines() if line.startswith("  ERROR ")]
    assert len(lines) == 2
    assert all(f"at 127.0.0.1:{port}" in line for line in lines), captured.out
    assert "full reports: none written" in captured.out
    no_secrets(captured.out, captured.err)
    assert OPENAI_KEY not in captured.out


def test_a_failed_case_line_says_the_details_its_message_leaves_out() -> None:
    from gate.reports.console import failure_lines
    from gate.verdict.conclusion import conclude
    from tests.results_factory import case, failure, run, suite

    wrong = failure(
        "value_error",
        "not the value asked",
        tool="get_weather",
        argument="city",
        expected="Paris",
        actual="Rome",
    )
    lines = failure_lines(conclude(run(suite("s", [case("c", "failed", failures=[wrong])]))), [])
    line = next(line for line in lines if " c: " in line)
    assert line.endswith(
        'value error: not the value asked (tool get_weather, argument city, expected "Paris", actual "Rome")'
    )


def test_with_a_base_side_the_regressions_come_first_then_new_failures_then_old_ones() -> None:
    from gate.reports.console import failure_lines
    from gate.verdict.conclusion import conclude
    from tests.results_factory import case, failure, run, suite

    wrong = [failure("wrong_tool", "called the wrong tool")]
    head = run(
        suite(
            "s",
            [
                case("old", "failed", failures=wrong),
                case("added", "failed", failures=wrong),
                case("broken", "failed", failures=wrong),
            ],
        )
    )
    base = run(suite("s", [case("old", "failed", failures=wrong), case("broken", "passed")]))
    conclusion = conclude(head, base)
    lines = failure_lines(conclusion, [])
    assert lines[0] == "failed cases (3: 1 regressed, 1 new, 1 failed on the base too; regressions first):"
    assert [line.split()[2].rstrip(":") for line in lines[1:4]] == ["broken", "added", "old"]
    assert "broken (regressed): " in lines[1] and "(regressed)" not in lines[2] + lines[3]
    # Without a base side: the worst first, as before.
    alone = failure_lines(conclude(head), [])
    assert alone[0] == "failed cases (3, worst first):"
    assert [line.split()[2].rstrip(":") for line in alone[1:4]] == ["old", "added", "broken"]
