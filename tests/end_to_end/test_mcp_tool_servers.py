"""Suites that take their tools from an MCP server, end to end through ``run``: the real SDKs talk to
the scripted model server, the gate starts the scripted MCP server (``tests/support``) as the suite
says, and the trust rule, the listed tools' checks, ``calls: live`` and its per-trial isolation hold."""

from __future__ import annotations

import json
import shutil
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
    return json.dumps({"command": ["python3", "server.py", *flags]})


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
    mcp = json.dumps({"command": ["python3", "server.py", "--starts", str(starts)], "calls": "live"})
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
    mcp = json.dumps({"command": ["python3", "server.py", "--environ", str(seen)], "calls": "live"})
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
    live = json.dumps({"command": ["python3", "server.py"], "calls": "live"})
    write_suite(repo, suite_text(live, tool="fail").replace("args: {item: milk}", "args: {}"))
    run(repo, "--allow-commands", "--json", str(repo / "out.json"))
    (call,) = results(repo)["suites"][0]["cases"][0]["trials"][0]["record"]["calls"]
    assert call["is_error"] is True and call["result"] == "the tool failed on purpose"


def test_commands_are_refused_unless_allowed_and_validate_starts_nothing(repo, capsys):
    starts = repo / "starts.log"
    write_suite(repo, suite_text(json.dumps({"command": ["python3", "server.py", "--starts", str(starts)]})))
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


# An agent program whose tools come from MCP (the gate's mock server in test mode): standard library
# only, JSON-RPC and Chat Completions over urllib, as small as an adapter gets.
PROGRAM = """\
import json, os, sys, urllib.request

MCP = os.environ["TOOL_EVAL_GATE_MCP_URL"]
MODEL = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
AUTH = {"authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}
session = {}


def post(url, body, headers):
    headers = {"content-type": "application/json", **headers}
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.headers, json.load(response)


def mcp(method, params):
    headers = {"accept": "application/json, text/event-stream", **session}
    found, answer = post(MCP, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, headers)
    if found.get("mcp-session-id"):
        session["mcp-session-id"] = found["mcp-session-id"]
    if "error" in answer:
        sys.exit("MCP error: " + answer["error"]["message"])
    return answer["result"]


def function(tool):
    return {"name": tool["name"], "description": tool["description"], "parameters": tool["inputSchema"]}


client = {"name": "shop", "version": "1"}
mcp("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client})
tools = [{"type": "function", "function": function(t)} for t in mcp("tools/list", {})["tools"]]
messages = []
for line in sys.stdin:
    messages.append({"role": "user", "content": json.loads(line)["content"]})
    while True:
        _, reply = post(MODEL, {"model": "shop-model", "messages": messages, "tools": tools}, AUTH)
        message = reply["choices"][0]["message"]
        messages.append(message)
        if not message.get("tool_calls"):
            print(json.dumps({"content": message["content"]}), flush=True)
            break
        for call in message["tool_calls"]:
            name, arguments = call["function"]["name"], json.loads(call["function"]["arguments"])
            text = mcp("tools/call", {"name": name, "arguments": arguments})["content"][0]["text"]
            sys.stderr.write("the tool said: " + text + "\\n")
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
"""


def program_suite(mcp: str, *, trials: int = 1) -> str:
    """The shopping suite with the program as its agent (its tools from the MCP entry ``mcp``)."""
    text = suite_text(mcp, trials=trials)
    agent = "  command: [python3, agent.py]\n"
    return text.replace("  provider: openai\n  model: test-model\n", agent)


def test_a_program_s_mcp_calls_to_a_live_server_s_tools_reach_that_server(repo, capsys):
    """calls: live with an agent program: the gate's mock MCP server passes the program's calls to
    those tools on to the trial's own server process, and the answer reaches the program (hence the
    model and the output), the record (mock: live) and the verdict; the mocks (count 99) answer
    nothing here."""
    (repo / "agent.py").write_text(PROGRAM)
    starts, received = repo / "starts.log", repo / "calls.log"
    flags = ["--starts", str(starts), "--calls", str(received)]
    mcp = json.dumps({"command": ["python3", "server.py", *flags], "calls": "live"})
    write_suite(repo, program_suite(mcp, trials=2))
    code = run(repo, "--allow-commands", "--json", str(repo / "out.json"))
    assert code == 0, capsys.readouterr()
    # each trial's call reached a server process of that trial's own, and only that call
    calls = [json.loads(line) for line in received.read_text().splitlines()]
    assert [(c["name"], c["arguments"]) for c in calls] == [("add_item", {"item": "milk"})] * 2
    pids = starts.read_text().split()
    assert len(pids) == 3  # the listing's process, then one per trial
    assert sorted(str(c["pid"]) for c in calls) == sorted(pids[1:])
    case = results(repo)["suites"][0]["cases"][0]
    assert case["status"] == "passed"
    for trial in case["trials"]:  # a fresh server in each trial: its list holds 1 item, not 2
        (call,) = trial["record"]["calls"]
        assert call["mock"] == "live" and call["result"] == {"count": 1} and call["is_error"] is False
        assert trial["record"]["output"] == "Done: the list holds 1 item(s)."
        assert 'the tool said: {"count": 1}' in trial["record"]["log"]  # what the program's MCP call returned


def test_a_program_gets_a_server_s_listed_tools_and_without_calls_live_the_mocks_answer(repo, capsys):
    """The tools a server lists are the suite's tools for a program too (the mock MCP server lists
    them); without ``calls: live`` the mocks answer and the server only lists."""
    (repo / "agent.py").write_text(PROGRAM)
    received = repo / "calls.log"
    write_suite(
        repo, program_suite(command("--calls", str(received))).replace("holds 1 item", "holds 99 item")
    )
    assert run(repo, "--allow-commands", "--json", str(repo / "out.json")) == 0, capsys.readouterr()
    (call,) = results(repo)["suites"][0]["cases"][0]["trials"][0]["record"]["calls"]
    assert call["mock"] == "fallback" and call["result"] == {"count": 99}
    assert not received.exists()


def test_a_live_server_that_stops_during_a_program_s_trial_is_an_error_naming_it(repo, capsys):
    (repo / "agent.py").write_text(PROGRAM)
    mcp = json.dumps({"command": ["python3", "server.py", "--stop-on-call"], "calls": "live"})
    write_suite(repo, program_suite(mcp))
    code = run(repo, "--allow-commands", "--json", str(repo / "out.json"))
    captured = capsys.readouterr()
    assert code == 3, captured
    (trial,) = results(repo)["suites"][0]["cases"][0]["trials"]
    assert trial["status"] == "error"
    error = trial["record"]["error"]
    assert "server.py --stop-on-call" in error and "stopped while answering tools/call" in error
    assert "the backend went away" in error  # its standard error's tail
