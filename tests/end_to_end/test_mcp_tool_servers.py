"""Suites that take their tools from an MCP server, end to end through ``run``: the real SDKs talk to
the scripted model server, the gate starts the scripted MCP server (``tests/support``) as the suite
says, and the trust rule, the listed tools' checks, ``calls: live`` and its per-trial isolation hold."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from gate.cli import main as cli_main
from tests.conftest import ROOT

OPENAI_KEY = "sk-test-dummy-openai-key-123456"
SERVER = ROOT / "tests" / "support" / "mcp_stdio_server.py"

SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "(?i)add (?P<item>[a-z]+)", "turn": 1},
            "tool_calls": [{"name": "add_item", "arguments": {"item": "{item}"}}],
        },
        {"when": {"after_tool": "add_item"}, "text": "Done: the list holds {result.count} item(s)."},
    ],
    "default": {"text": "I do not know."},
}


def suite_text(mcp: str, *, tool: str = "add_item", trials: int = 1, extra_case: str = "") -> str:
    return f"""version: 1
name: shopping
agent:
  provider: openai
  model: test-model
  tools:
    - mcp: {mcp}
defaults: {{trials: {trials}}}
mocks:
  tools:
    add_item:
      - returns: {{count: 99}}
cases:
  - id: milk
    input: Please add milk to my list.
    expect:
      calls:
        - tool: {tool}
          args: {{item: milk}}
      output: {{contains: "holds 1 item"}}
{extra_case}"""


def command(*flags: str) -> str:
    return json.dumps({"command": [sys.executable, "server.py", *flags]})


@pytest.fixture
def repo(tmp_path, monkeypatch, model_server):
    shutil.copy(SERVER, tmp_path / "server.py")
    (tmp_path / "suites").mkdir()
    server = model_server(SCRIPT)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    return tmp_path


def write_suite(repo: Path, text: str) -> Path:
    path = repo / "suites" / "shopping.suite.yaml"
    path.write_text(text)
    return path


def run(repo: Path, *args: str) -> int:
    return cli_main(["run", "--root", str(repo), "--quiet", *args])


def results(repo: Path) -> dict:
    return json.loads((repo / "out.json").read_text())


def test_live_calls_reach_a_fresh_server_in_every_trial(repo, capsys):
    starts = repo / "starts.log"
    mcp = json.dumps({"command": [sys.executable, "server.py", "--starts", str(starts)], "calls": "live"})
    write_suite(repo, suite_text(mcp, trials=3))
    assert run(repo, "--allow-commands", "--json", str(repo / "out.json")) == 0, capsys.readouterr()
    trials = results(repo)["suites"][0]["cases"][0]["trials"]
    assert len(trials) == 3
    for trial in trials:  # every trial starts from an empty list: no state leaks between trials
        (call,) = trial["record"]["calls"]
        assert call["mock"] == "live" and call["result"] == {"count": 1} and call["is_error"] is False
        assert trial["record"]["output"] == "Done: the list holds 1 item(s)."
    # one process lists the tools, then one per trial
    assert len(starts.read_text().split()) == 4


def test_a_started_server_gets_no_secret_of_the_job(repo, monkeypatch, capsys):
    """An MCP server is the pull request's code when commands are allowed: like an agent program it
    gets none of the job's secret-named variables, whatever their names (DESIGN section 9), nor the
    gate's own settings; the rest of the environment it does get. Listing and live calls alike."""
    secrets = {
        "AZURE_OPENAI_API_KEY": "azure-key-0123456789abcdef",
        "AWS_SECRET_ACCESS_KEY": "aws-secret-0123456789abcdef",
        "SENTRY_DSN": "https://0123456789abcdef@sentry.example/1",
        "SLACK_WEBHOOK_URL": "https://hooks.slack.example/services/T0/B0/x",
        "DEPLOY_PASSWORD": "correct-horse-battery",
        "NPM_TOKEN": "npm_0123456789abcdef0123",
        "INPUT_OPENAI_BASE_URL": "https://proxy.example/v1",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SHOP_REGION", "eu-west")
    seen = repo / "environ.log"
    mcp = json.dumps({"command": [sys.executable, "server.py", "--environ", str(seen)], "calls": "live"})
    write_suite(repo, suite_text(mcp))
    assert run(repo, "--allow-commands") == 0, capsys.readouterr()
    names = seen.read_text().split()
    assert names.count("SHOP_REGION") == 2  # listed once, then called live in the one trial
    assert not set(secrets) & set(names) and "OPENAI_API_KEY" not in names and "OPENAI_BASE_URL" not in names


def test_without_calls_live_the_mocks_answer(repo, capsys):
    write_suite(repo, suite_text(command()).replace("holds 1 item", "holds 99 item"))
    assert run(repo, "--allow-commands", "--json", str(repo / "out.json")) == 0, capsys.readouterr()
    (call,) = results(repo)["suites"][0]["cases"][0]["trials"][0]["record"]["calls"]
    assert call["mock"] == "fallback" and call["result"] == {"count": 99}


def test_a_live_error_result_lands_in_the_record(repo, model_server, monkeypatch, capsys):
    script = {"rules": [{"when": {"turn": 1}, "tool_calls": [{"name": "fail", "arguments": {}}]}]}
    monkeypatch.setenv(
        "OPENAI_BASE_URL", model_server({**script, "default": {"text": "It failed."}}).openai_base_url
    )
    live = json.dumps({"command": [sys.executable, "server.py"], "calls": "live"})
    write_suite(repo, suite_text(live, tool="fail").replace("args: {item: milk}", "args: {}"))
    run(repo, "--allow-commands", "--json", str(repo / "out.json"))
    (call,) = results(repo)["suites"][0]["cases"][0]["trials"][0]["record"]["calls"]
    assert call["is_error"] is True and call["result"] == "the tool failed on purpose"


def test_commands_are_refused_unless_allowed_and_validate_starts_nothing(repo, capsys):
    starts = repo / "starts.log"
    write_suite(
        repo, suite_text(json.dumps({"command": [sys.executable, "server.py", "--starts", str(starts)]}))
    )
    assert run(repo) == 2
    err = capsys.readouterr().err
    assert "suites/shopping.suite.yaml:7" in err and "--allow-commands" in err
    assert cli_main(["validate", "--root", str(repo), str(repo / "suites")]) == 0
    out = capsys.readouterr().out
    assert "note: the tools of this entry come from the MCP server" in out
    assert not starts.exists()


def test_commands_are_refused_on_pull_request_target(repo, monkeypatch, capsys):
    write_suite(repo, suite_text(command()))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request_target")
    assert run(repo, "--allow-commands") == 2
    assert "pull_request_target" in capsys.readouterr().err


def test_expectations_are_checked_against_the_listed_tools(repo, capsys):
    write_suite(repo, suite_text(command(), tool="add_items"))
    assert cli_main(["validate", "--root", str(repo), str(repo / "suites")]) == 0  # offline: may be defined
    capsys.readouterr()
    assert run(repo, "--allow-commands") == 2
    err = capsys.readouterr().err
    assert "unknown tool 'add_items'" in err and "did you mean 'add_item'?" in err


def test_an_invalid_listed_tool_is_invalid_input_naming_the_server(repo, capsys):
    write_suite(repo, suite_text(command("--invalid-tool")))
    assert run(repo, "--allow-commands") == 2
    err = capsys.readouterr().err
    assert "suites/shopping.suite.yaml:7:" in err
    assert "server.py --invalid-tool lists an invalid tool: invalid tool name 'bad name!'" in err


def test_a_server_that_crashes_stops_the_run_with_its_stderr(repo, capsys):
    write_suite(repo, suite_text(command("--crash")))
    assert run(repo, "--allow-commands") == 3
    err = capsys.readouterr().err
    assert "did not complete the MCP initialisation" in err and "cannot reach the database" in err
    assert "Traceback (most recent call last):\n  File" not in err  # the server's, not the gate's


def test_a_url_must_be_on_loopback(repo, capsys):
    write_suite(repo, suite_text(json.dumps({"url": "https://mcp.example.com/mcp"})))
    assert cli_main(["validate", "--root", str(repo), str(repo / "suites")]) == 2
    assert "is not on loopback" in capsys.readouterr().err
