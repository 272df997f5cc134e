"""``run`` with a suite whose agent is the team's own program, end to end through the CLI: the trust rule,
the scripted model behind the recording proxy, the cache (a re-run sends nothing), provider failures
kept apart from the agent's, the request budget, and ``--baseline auto`` running the base tree's
program."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.model_server import ScriptedModelServer

AGENT = '''\
"""A small agent on the openai SDK: streamed Chat Completions, its tools from the gate's mock MCP server."""
import json, os, sys, urllib.request
import openai

VERSION = "v1"
client = openai.OpenAI(max_retries=0)
MCP = os.environ["TOOL_EVAL_GATE_MCP_URL"]

HEADERS = {"content-type": "application/json", "accept": "application/json"}

def mcp(method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    return json.load(urllib.request.urlopen(urllib.request.Request(MCP, body, HEADERS)))["result"]

def function(tool):
    return {"name": tool["name"], "description": tool["description"], "parameters": tool["inputSchema"]}

LOCAL_TIME = {
    "name": "local_time",
    "description": "The local time in a city, as HH:MM.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
tools = [{"type": "function", "function": function(t)} for t in mcp("tools/list", {})["tools"]]
tools.append({"type": "function", "function": LOCAL_TIME})  # a tool of its own code
messages = [{"role": "system", "content": "You are the weather desk."}]
for line in sys.stdin:
    message = json.loads(line)
    messages += message.get("history", []) + [{"role": "user", "content": message["content"]}]
    while True:
        model = os.environ.get("DESK_MODEL", "gpt-4o-mini")
        with client.chat.completions.stream(model=model, messages=messages, tools=tools) as stream:
            reply = stream.get_final_completion().choices[0].message
        messages.append(reply.model_dump(exclude_none=True))
        if not reply.tool_calls:
            print(json.dumps({"content": f"{VERSION}: {reply.content}"}), flush=True)
            break
        for call in reply.tool_calls:
            arguments = json.loads(call.function.arguments)
            result = mcp("tools/call", {"name": call.function.name, "arguments": arguments})
            text = result["content"][0]["text"]
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
'''

SUITE = """\
version: 1
name: weather-desk
agent:
  command: [python3, agent/desk.py]
  watch: ["agent/**"]
  tools:
    - type: function
      function:
        name: get_weather
        description: The weather now in a city.
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
mocks:
  tools:
    get_weather:
      - returns: {city: Paris, temp_c: 18}
defaults: {max_turns: 3}
cases:
  - id: paris
    input: What is the weather in Paris?
    expect:
      calls: [{tool: get_weather, args: {city: Paris}}]
      output: {contains: "v2: It is 18"}
"""

SCRIPT = {
    "rules": [
        {"when": {"after_tool": "get_weather"}, "text": "It is {result.temp_c} degrees in {result.city}."},
        {
            "when": {"last_user": "weather in (?P<city>[A-Z][a-z]+)"},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
    ]
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def make_repo(tmp_path: Path, version: str = "v2") -> Path:
    root = tmp_path / "repo"
    (root / "agent").mkdir(parents=True)
    (root / "agent" / "desk.py").write_text(AGENT.replace('VERSION = "v1"', f'VERSION = "{version}"'))
    (root / "desk.suite.yaml").write_text(SUITE)
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "base")
    return root


def gate(
    root: Path, server: ScriptedModelServer | None, *args: str, **extra: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
    env.update(extra)
    if server is not None:
        env.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-scripted-key-123456")
    return subprocess.run(
        [sys.executable, "-m", "gate", "run", "--root", str(root), "--quiet", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def results(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def test_a_program_suite_is_refused_without_allow_commands_and_never_on_pull_request_target(
    tmp_path: Path,
) -> None:
    root = make_repo(tmp_path)
    refused = gate(root, None, "desk.suite.yaml")
    assert refused.returncode == 2
    assert (
        "desk.suite.yaml:4:12: suite 'weather-desk' runs its agent program (python3 agent/desk.py)"
        in refused.stderr
    )
    assert "--allow-commands" in refused.stderr
    env_target = dict(os.environ, GITHUB_EVENT_NAME="pull_request_target")
    target = subprocess.run(
        [sys.executable, "-m", "gate", "run", "--root", str(root), "--allow-commands", "desk.suite.yaml"],
        cwd=root,
        env=env_target,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert target.returncode == 2 and "never runs commands on pull_request_target" in target.stderr


def test_the_program_runs_behind_the_proxy_and_a_rerun_sends_nothing(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = make_repo(tmp_path)
    server = model_server(SCRIPT)
    first = gate(
        root, server, "desk.suite.yaml", "--allow-commands", "--cache", "cache", "--json", "out.json"
    )
    assert first.returncode == 0, first.stdout + first.stderr
    assert server.request_count == 2 and "model requests: 2" in first.stdout
    body = server.requests[1]["body"]
    assert body["messages"][0] == {"role": "system", "content": "You are the weather desk."}
    assert "stream" not in body  # the proxy streams to the program; upstream it asks for the whole reply
    record = results(root / "out.json")["suites"][0]["cases"][0]["trials"][0]["record"]
    assert record["output"] == "v2: It is 18 degrees in Paris."
    assert [(c["name"], c["arguments"], c["mock"]) for c in record["calls"]] == [
        ("get_weather", {"city": "Paris"}, "fallback")
    ]
    # The tool the program offers from its own code is reported at the line that defines it.
    tools = {t["name"]: t for t in results(root / "out.json")["suites"][0]["tools"]}
    line = AGENT.splitlines().index('    "description": "The local time in a city, as HH:MM.",') + 1
    assert (tools["local_time"]["file"], tools["local_time"]["description_line"]) == ("agent/desk.py", line)
    assert tools["get_weather"]["file"] == "desk.suite.yaml"  # the suite's own definition
    # The suite names no model: its results say the one the program asked for.
    assert results(root / "out.json")["suites"][0]["model"] == "gpt-4o-mini"
    again = gate(root, server, "desk.suite.yaml", "--allow-commands", "--cache", "cache")
    assert again.returncode == 0 and server.request_count == 2  # answered by the cache: 0 requests
    assert "cache (use): 2 hits, 0 misses" in again.stdout


def test_a_provider_failure_is_an_error_not_the_agent_s_failure(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = make_repo(tmp_path)
    server = model_server(
        SCRIPT, faults=[{"first": 100, "kind": "status", "status": 400, "message": "bad tool schema"}]
    )
    done = gate(root, server, "desk.suite.yaml", "--allow-commands", "--json", "out.json")
    case = results(root / "out.json")["suites"][0]["cases"][0]
    assert case["status"] == "error", done.stdout + done.stderr
    [failure] = case["trials"][0]["failures"]
    assert failure["reason"] == "provider_error" and "bad tool schema" in failure["message"]


def test_a_program_that_cannot_start_is_could_not_evaluate_not_the_agent_failing(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = make_repo(tmp_path)
    # The script is the command itself, executable, but its interpreter does not exist: it never
    # starts. (validate cannot know: the interpreter is looked for when it starts. A script without
    # its execute bit is refused by validate: tests/assembly/test_command_rule.py.)
    start = root / "agent" / "start.sh"
    start.write_text("#!/nonexistent/interpreter\n")
    start.chmod(0o755)
    suite = SUITE.replace("command: [python3, agent/desk.py]", "command: [agent/start.sh]")
    (root / "desk.suite.yaml").write_text(suite)
    server = model_server(SCRIPT)
    done = gate(root, server, "desk.suite.yaml", "--allow-commands", "--json", "out.json")
    assert done.returncode == 3, done.stdout + done.stderr  # could not evaluate, not "the agent failed"
    why = (
        "the agent program could not be started: 'agent/start.sh': the interpreter its #! line names "
        "was not found"
    )
    assert f"ERROR desk.suite.yaml:18 paris: {why}" in done.stdout
    assert "no case could be evaluated" in done.stdout
    case = results(root / "out.json")["suites"][0]["cases"][0]
    [failure] = case["trials"][0]["failures"]
    assert case["status"] == "error" and failure["message"].startswith(why)
    assert server.request_count == 0


def test_a_program_that_ends_before_its_first_request_is_an_error_with_the_end_of_its_standard_error(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    """A missing dependency in CI: the program's import fails. It never ran as an agent: the trials
    are errors (exit 3 beyond the error budget), not the agent's failures, and the console shows how
    it ended with the last lines of its standard error, masked (here the trial's token it printed)."""
    root = make_repo(tmp_path)
    (root / "agent" / "desk.py").write_text(
        "import os, sys\n"
        "sys.stderr.write('starting with key ' + os.environ['OPENAI_API_KEY'] + '\\n')\n"
        "import langgraph_not_installed\n" + AGENT
    )
    server = model_server(SCRIPT)
    done = gate(root, server, "desk.suite.yaml", "--allow-commands", "--trials", "2", "--json", "out.json")
    assert done.returncode == 3, done.stdout + done.stderr  # could not evaluate, not "the agent failed"
    why = (
        "the agent program ended before its first model request (exited with code 1 without answering "
        "message 1): ModuleNotFoundError: No module named 'langgraph_not_installed'"
    )
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  ERROR desk.suite.yaml:18 paris "))
    assert lines[at].endswith(f"]: {why}"), done.stdout
    shown = lines[at + 1 : at + 7]
    assert shown[0] == "      the end of its standard error:"
    assert shown[1].startswith("      starting with key ") and shown[1].endswith("***")  # masked
    assert shown[2] == "      Traceback (most recent call last):"
    assert "      ModuleNotFoundError: No module named 'langgraph_not_installed'" in lines[at + 1 :]
    case = results(root / "out.json")["suites"][0]["cases"][0]
    assert case["status"] == "error"
    assert [f["reason"] for t in case["trials"] for f in t["failures"]] == ["provider_error"] * 2
    assert server.request_count == 0


def test_the_request_budget_covers_program_trials(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = make_repo(tmp_path)
    server = model_server(SCRIPT)
    done = gate(
        root, server, "desk.suite.yaml", "--allow-commands", "--max-requests", "1", "--json", "out.json"
    )
    # Alone in the run, the case starts with what is left, and the budget stops it after one request:
    # the program's next request is refused, and the trial is an error, never the agent's failure.
    assert done.returncode == 3 and server.request_count == 1
    case = results(root / "out.json")["suites"][0]["cases"][0]
    [failure] = case["trials"][0]["failures"]
    assert case["status"] == "error" and failure["reason"] == "provider_error"
    assert "request budget ran out" in failure["message"]


def test_under_max_cost_a_program_s_model_needs_a_price(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = make_repo(tmp_path)
    server = model_server(SCRIPT)
    gate(
        root,
        server,
        "desk.suite.yaml",
        "--allow-commands",
        "--max-cost",
        "1",
        "--json",
        "out.json",
        DESK_MODEL="acme-7b",
    )
    [failure] = results(root / "out.json")["suites"][0]["cases"][0]["trials"][0]["failures"]
    assert (
        failure["reason"] == "provider_error"
        and "model 'acme-7b' (openai) has no known price" in failure["message"]
    )
    assert server.request_count == 0


def test_baseline_auto_runs_the_merge_base_s_program_from_the_base_tree(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = make_repo(tmp_path, version="v1")
    git(root, "checkout", "-qb", "change")
    (root / "agent" / "desk.py").write_text(AGENT.replace('VERSION = "v1"', 'VERSION = "v2"'))
    server = model_server(SCRIPT)
    done = gate(
        root,
        server,
        "--allow-commands",
        "--changed-since",
        "main",
        "--baseline",
        "auto",
        "--json",
        "head.json",
        "--baseline-json",
        "base.json",
        "--markdown",
        "report.md",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    head = results(root / "head.json")
    assert head["suites"][0]["triggered_by"] == {
        "agent/desk.py": "agent program"
    }  # the file its command runs
    base_record = results(root / "base.json")["suites"][0]["cases"][0]["trials"][0]["record"]
    head_record = head["suites"][0]["cases"][0]["trials"][0]["record"]
    assert base_record["output"].startswith("v1: ") and head_record["output"].startswith("v2: ")
    assert server.request_count == 2  # the base side's identical requests came from the cache
    report = (root / "report.md").read_text()
    assert "| 🟢 fixed | `weather-desk/paris` | failed | passed |" in report
    assert "after the change to agent/desk.py:5" in report  # the changed line of the program's code
