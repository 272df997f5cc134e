"""The model was shown what the PR ships (issue 33 items 13 and 14, issue 34 item 7), end to end through
the CLI: an agent program on the openai SDK behind the recording proxy, the scripted model answering by
the descriptions it is offered, a pull request on a git repository run with ``--baseline auto``.

- A program that loads "the MCP tools" from the gate's mock MCP server next to its own tools, and keeps
  the last definition of each name (as LangGraph's ``create_react_agent`` does), shows its model the
  suite's copy of an in-code tool: a PR that degrades the code's docstring is judged on the old text.
  The run is not verified (exit 3), never a pass, and says which tool and where each text is.
- The same agent keeping its code's definitions (only the calls go to the mock server) is judged on
  what the PR ships: the regression is caught, and the advice, the review's line and the results'
  definitions are the code's, at the docstring's line.
- A call to a tool the request did not offer is a hallucinated tool, even when the suite lists it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.model_server import ScriptedModelServer

GOOD = "Where a customer's parcel is now. Use it when the customer asks where their package is."
DEGRADED = "Shipment lookup."

PROGRAM = '''\
"""The support desk on the openai SDK: its own tool in code, the order tools from the order service's
MCP server (in test mode, the gate's mock MCP server)."""
import inspect, json, os, sys, urllib.request
import openai

client = openai.OpenAI(max_retries=0)
MCP = os.environ["TOOL_EVAL_GATE_MCP_URL"]


def mcp(method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    headers = {"content-type": "application/json", "accept": "application/json"}
    return json.load(urllib.request.urlopen(urllib.request.Request(MCP, body, headers)))["result"]


def track_shipment(order_id: str) -> str:
    """GOOD"""
    result = mcp("tools/call", {"name": "track_shipment", "arguments": {"order_id": order_id}})
    return result["content"][0]["text"]


OWN = {
    "track_shipment": {
        "name": "track_shipment",
        "description": inspect.getdoc(track_shipment),
        "parameters": {
            "type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]
        },
    }
}


def offered():
    listed = {
        t["name"]: {"name": t["name"], "description": t["description"], "parameters": t["inputSchema"]}
        for t in mcp("tools/list", {})["tools"]
    }
    TOOLS
    return [{"type": "function", "function": f} for f in tools.values()]


tools = offered()
messages = [{"role": "system", "content": "You are the support desk."}]
for line in sys.stdin:
    message = json.loads(line)
    messages.append({"role": "user", "content": message["content"]})
    while True:
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
        reply = reply.choices[0].message
        messages.append(reply.model_dump(exclude_none=True))
        if not reply.tool_calls:
            print(json.dumps({"content": reply.content}), flush=True)
            break
        for call in reply.tool_calls:
            asked = {"name": call.function.name, "arguments": json.loads(call.function.arguments)}
            text = mcp("tools/call", asked)["content"][0]["text"]
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
'''
# LangGraph's create_react_agent binds list(ToolNode(tools).tools_by_name.values()): one tool a name, the
# last given. An agent that gives its own tools, then "the MCP tools", keeps the mock server's copies.
LAST_WINS = "tools = {**OWN, **listed}"
# What the docs show: the mock server serves the tools the MCP server serves; the code's own keep theirs.
CODE_S_OWN = "tools = {**{n: t for n, t in listed.items() if n not in OWN}, **OWN}"

TOOL_FILE = [
    {
        "type": "function",
        "function": {
            "name": "track_shipment",
            "description": GOOD,
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}},
                "required": ["order_id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "cancel_order",
            "description": "Cancel an order that has not shipped yet.",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}},
                "required": ["order_id"],
            },
        },
    },
]

SUITE = """\
version: 1
name: support-desk
agent:
  command: [python3, agent/support_agent.py]
  watch: ["agent/**"]
  tools: [{file: tools/support.json}]
mocks:
  tools:
    track_shipment:
      - returns: {status: in transit, eta: tomorrow}
defaults: {max_turns: 3}
cases:
  - id: where-is-it
    input: Where is my package? The order is A-1001.
    expect:
      calls: [{tool: track_shipment, args: {order_id: A-1001}}]
  - id: where-is-the-other
    input: Where is my package? The order is A-2002.
    expect:
      calls: [{tool: track_shipment, args: {order_id: A-2002}}]
"""

# The model calls track_shipment only when its description says it is for "where their package is".
SCRIPT = {
    "rules": [
        {"when": {"after_tool": "track_shipment"}, "text": "Your parcel is {result.status}."},
        {
            "when": {
                "last_user": "Where is my package\\? The order is (?P<order>A-\\d+)",
                "described": "track_shipment: .*where their package is",
            },
            "tool_calls": [{"name": "track_shipment", "arguments": {"order_id": "{order}"}}],
        },
    ],
    "default": {"text": "I cannot look that up."},
}


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=root, check=True, capture_output=True
    )


def program(tools: str, description: str = GOOD) -> str:
    return PROGRAM.replace('"""GOOD"""', f'"""{description}"""').replace("    TOOLS", f"    {tools}")


def make_repo(tmp_path: Path, tools: str) -> Path:
    """The repository at the base: the code's docstring and the suite's export agree."""
    root = tmp_path / "repo"
    (root / "agent").mkdir(parents=True)
    (root / "tools").mkdir()
    (root / "agent" / "support_agent.py").write_text(program(tools))
    (root / "tools" / "support.json").write_text(json.dumps(TOOL_FILE, indent=2) + "\n")
    (root / "support.suite.yaml").write_text(SUITE)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "change")
    return root


def change_docstring(root: Path, tools: str, description: str) -> None:
    (root / "agent" / "support_agent.py").write_text(program(tools, description))
    git(root, "commit", "-qam", "reword track_shipment")


def gate(root: Path, server: ScriptedModelServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
    env.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-scripted-key-123456")
    return subprocess.run(
        [sys.executable, "-m", "gate", "run", "--root", str(root), "--allow-commands", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def pr_run(root: Path, server: ScriptedModelServer) -> subprocess.CompletedProcess[str]:
    return gate(
        root,
        server,
        "--changed-since",
        "main",
        "--baseline",
        "auto",
        "--json",
        "out/results.json",
        "--markdown",
        "out/report.md",
    )


def results(root: Path) -> dict[str, Any]:
    return json.loads((root / "out" / "results.json").read_text())


def docstring_line(root: Path) -> int:
    """The line of track_shipment's docstring in the program."""
    lines = (root / "agent" / "support_agent.py").read_text().splitlines()
    return lines.index("def track_shipment(order_id: str) -> str:") + 2


def test_a_degraded_docstring_the_model_never_saw_is_not_verified_never_a_pass(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = make_repo(tmp_path, LAST_WINS)
    change_docstring(root, LAST_WINS, DEGRADED)
    done = pr_run(root, model_server(SCRIPT))
    assert done.returncode == 3, done.stdout + done.stderr  # before: 0, "PASSED" on the suite's old text
    line = docstring_line(root)
    said = done.stdout + done.stderr
    assert "PASSED" not in said
    assert (
        "not verified: suite 'support-desk': the model was shown a description of track_shipment "
        "(\"Where a customer's parcel is now. Use it when the customer asks where their pac…\", the suite's "
        "copy at tools/support.json:6, which the mock MCP server lists) that is not the one the program's "
        f'code gives it at agent/support_agent.py:{line} ("Shipment lookup.")'
    ) in " ".join(said.split())
    assert "take from TOOL_EVAL_GATE_MCP_URL only the tools your MCP servers serve" in " ".join(said.split())
    document = results(root)
    assert document["complete"] is True and document["unverified"].startswith("not verified: suite")
    assert "tool-eval-gate NOT VERIFIED" in said
    # What each request offered is recorded: the suite's copy, which the program kept.
    suite = document["suites"][0]
    shown = {t["name"]: t["description"] for t in suite["offered_tools"]}
    assert shown == {"track_shipment": GOOD, "cancel_order": "Cancel an order that has not shipped yet."}
    report = (root / "out" / "report.md").read_text()
    assert (
        "not verified: suite 'support-desk': the model was shown a description of track\\_shipment" in report
    )


def test_the_same_program_at_the_base_commit_holds_the_code_s_text_and_passes(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    """No false alarm: where the suite's copy is the code's text, the run is judged as usual."""
    root = make_repo(tmp_path, LAST_WINS)
    done = gate(root, model_server(SCRIPT), "--json", "out/results.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert results(root)["complete"] is True


def test_a_change_appended_to_the_docstring_that_the_model_never_saw_is_not_verified(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    """The old text is still inside the new docstring, so the head alone cannot tell; the base side
    shows the model saw the same definition before and after the change."""
    root = make_repo(tmp_path, LAST_WINS)
    change_docstring(root, LAST_WINS, GOOD + " Never use it for refunds.")
    done = pr_run(root, model_server(SCRIPT))
    assert done.returncode == 3, done.stdout + done.stderr
    assert (
        "not verified: suite 'support-desk': this change rewrites the description of track_shipment at "
        f"agent/support_agent.py:{docstring_line(root)}, but the model was shown the same definition on "
        "both sides"
    ) in " ".join((done.stdout + done.stderr).split())


def test_an_agent_that_keeps_its_code_s_definitions_is_judged_on_what_the_pr_ships(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = make_repo(tmp_path, CODE_S_OWN)
    change_docstring(root, CODE_S_OWN, DEGRADED)
    done = pr_run(root, model_server(SCRIPT))
    assert done.returncode == 1, done.stdout + done.stderr  # the regression, caught
    line = docstring_line(root)
    report = (root / "out" / "report.md").read_text()
    # What this PR did names the changed line (it did before too).
    assert f"after the change to agent/support\\_agent.py:{line}" in report
    suite = results(root)["suites"][0]
    # The definitions in the results are those the program's requests offered, in the program's source.
    [track] = [t for t in suite["tools"] if t["name"] == "track_shipment"]
    assert (track["description"], track["file"], track["description_line"]) == (
        DEGRADED,
        "agent/support_agent.py",
        line,
    )
    [cancel] = [t for t in suite["tools"] if t["name"] == "cancel_order"]
    assert cancel["file"] == "tools/support.json"  # served by the (mock) MCP server: the suite's own
    # The first recommendation points at the docstring the model was shown (before: the suite's export).
    recommendations = report[report.index("**Recommendations**") :].split("\n\n")[1]
    assert recommendations.startswith(f"1. `agent/support_agent.py:{line}`: `track_shipment` was not called")
    assert GOOD not in report


WEATHER_TOOLS = [
    {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    for name, description in (
        ("get_weather", "The weather now in a city."),
        ("get_forecast", "The forecast for the coming days in a city."),
    )
]
WEATHER_SUITE = """\
version: 1
name: weather-desk
agent:
  command: [python3, agent/desk.py]
  tools: [{file: tools/weather.json}]
mocks:
  tools:
    get_forecast:
      - returns: {city: Paris, tomorrow: rain}
defaults: {max_turns: 3}
cases:
  - id: tomorrow
    input: Will it rain in Paris tomorrow?
    expect:
      calls: [{tool: get_forecast, args: {city: Paris}}]
"""
# The model calls get_forecast whatever it was offered.
WEATHER_SCRIPT = {
    "rules": [
        {"when": {"after_tool": "get_forecast"}, "text": "Tomorrow: {result.tomorrow}."},
        {
            "when": {"last_user": "rain in (?P<city>[A-Z][a-z]+)"},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "{city}"}}],
        },
    ]
}


def test_a_call_to_a_tool_the_request_did_not_offer_is_hallucinated_though_the_suite_lists_it(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = tmp_path / "repo"
    (root / "agent").mkdir(parents=True)
    (root / "tools").mkdir()
    desk = PROGRAM.replace(
        "    TOOLS", '    tools = {n: t for n, t in listed.items() if n != "get_forecast"}'
    )
    (root / "agent" / "desk.py").write_text(desk)
    (root / "tools" / "weather.json").write_text(json.dumps(WEATHER_TOOLS))
    (root / "weather.suite.yaml").write_text(WEATHER_SUITE)
    done = gate(root, model_server(WEATHER_SCRIPT), "--json", "out/results.json")
    assert done.returncode == 1, done.stdout + done.stderr  # before: 0, the call passed
    [trial] = results(root)["suites"][0]["cases"][0]["trials"]
    [failure] = [f for f in trial["failures"] if f["reason"] == "hallucinated_tool"]
    assert failure["message"] == (
        "call 1: get_forecast is not a tool its request offered (offered: get_weather)"
    )
    assert "hallucinated tool" in done.stdout


LANGGRAPH = '''\
"""The support desk on LangGraph: its own tools in code, the order service's from its MCP server."""
import asyncio, json, os, sys

from langchain_core.tools import BaseTool, tool
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import create_react_agent


class orders:  # the order service's client (answers fixed here)
    @staticmethod
    def track(order_id: str) -> str:
        return json.dumps({"status": "in transit", "order": order_id})


SNIPPET


async def main() -> None:
    graph = create_react_agent(ChatOpenAI(model="gpt-4o-mini", temperature=0), await support_tools())
    for line in sys.stdin:
        message = json.loads(line)
        state = await graph.ainvoke({"messages": [{"role": "user", "content": message["content"]}]})
        print(json.dumps({"content": state["messages"][-1].content}), flush=True)


asyncio.run(main())
'''
# docs/agent-programs.md's pattern, taken from the page itself: the test runs what the docs show.
DOCS = Path(__file__).resolve().parents[2] / "docs" / "agent-programs.md"
DOCUMENTED = DOCS.read_text().split("```python\n@tool\ndef track_shipment")[1].split("```")[0]
DOCUMENTED = "@tool\ndef track_shipment" + DOCUMENTED
# What a team writes from "point its client at TOOL_EVAL_GATE_MCP_URL": every tool the server lists.
LITERALLY = DOCUMENTED.replace(
    "served = [t for t in await client.get_tools() if t.name not in {m.name for m in mine}]",
    "served = await client.get_tools()",
)
LANGGRAPH_SCRIPT = {
    "rules": [
        {"when": {"after_tool": "track_shipment"}, "text": "Your parcel is in transit."},
        *SCRIPT["rules"][1:],
    ],
    "default": SCRIPT["default"],
}


def langgraph_pr(tmp_path: Path, snippet: str) -> Path:
    """A repository whose base holds the LangGraph agent, and a change degrading its docstring."""
    root = tmp_path / "repo"
    (root / "agent").mkdir(parents=True)
    (root / "tools").mkdir()
    (root / "agent" / "support_agent.py").write_text(LANGGRAPH.replace("SNIPPET", snippet.strip()))
    (root / "tools" / "support.json").write_text(json.dumps(TOOL_FILE, indent=2) + "\n")
    (root / "support.suite.yaml").write_text(SUITE)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "change")
    degraded = LANGGRAPH.replace("SNIPPET", snippet.strip().replace(GOOD, DEGRADED))
    (root / "agent" / "support_agent.py").write_text(degraded)
    git(root, "commit", "-qam", "reword track_shipment")
    return root


def test_a_langgraph_agent_that_loads_every_mcp_tool_is_not_verified_the_documented_one_is_judged(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    assert GOOD in DOCUMENTED  # the docs' docstring is the one the scripted model calls the tool for
    literal = langgraph_pr(tmp_path / "literal", LITERALLY)
    done = pr_run(literal, model_server(LANGGRAPH_SCRIPT))
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 3, said  # before: 0, PASSED on the suite's copy
    assert "not verified: suite 'support-desk': the model was shown a description of track_shipment" in said
    assert "the suite's copy at tools/support.json:6, which the mock MCP server lists" in said
    documented = langgraph_pr(tmp_path / "documented", DOCUMENTED)
    done = pr_run(documented, model_server(LANGGRAPH_SCRIPT))
    assert done.returncode == 1, done.stdout + done.stderr  # the regression, caught
    [track] = [t for t in results(documented)["suites"][0]["tools"] if t["name"] == "track_shipment"]
    assert (track["description"], track["file"]) == (DEGRADED, "agent/support_agent.py")
