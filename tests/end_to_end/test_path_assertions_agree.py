"""A path assertion reads the same for the same answers whichever agent gave them (issue 34, item 4):
the model agent and an agent program on the same scripted model, the program writing log lines to its
standard error as programs do. ``messages[-1].content`` was the program's log line (its standard
error stored as the transcript's last message), so an assertion that passed for the model agent
failed for the program; the log is now the record's own, apart from what was said."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support.model_server import ScriptedModelServer

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather now in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]

AGENT = '''\
"""The weather desk as a program: the openai SDK's chat loop, its tools from the mock MCP server,
and the log lines a team's program writes to its standard error."""
import json, os, sys, urllib.request
import openai

client = openai.OpenAI(max_retries=0)
MCP = os.environ["TOOL_EVAL_GATE_MCP_URL"]
HEADERS = {"content-type": "application/json", "accept": "application/json"}
TOOLS = json.load(open("tools/weather.json"))


def mcp(method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    return json.load(urllib.request.urlopen(urllib.request.Request(MCP, body, HEADERS)))["result"]


print("INFO desk: ready", file=sys.stderr, flush=True)
for line in sys.stdin:
    messages = [{"role": "user", "content": json.loads(line)["content"]}]
    while True:
        reply = client.chat.completions.create(model="test-model", messages=messages, tools=TOOLS)
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        for call in message.tool_calls:
            print(f"INFO desk: calling {call.function.name}", file=sys.stderr, flush=True)
            arguments = json.loads(call.function.arguments)
            result = mcp("tools/call", {"name": call.function.name, "arguments": arguments})
            text = result["content"][0]["text"]
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    print(json.dumps({"content": message.content}), flush=True)
    print("INFO desk: answered", file=sys.stderr, flush=True)
'''

CASES = """\
mocks:
  tools:
    get_weather: [{returns: {temp_c: 18}}]
cases:
  - id: paris
    input: What is the weather in Paris?
    expect:
      calls: [{tool: get_weather, args: {city: Paris}}]
      assert:
        - path: messages[-1].content
          match: {regex: "^It is 18 degrees in Paris"}
        - path: messages[-1].role
          equals: assistant
"""

MODEL_SUITE = (
    """\
version: 1
name: desk-model
agent:
  provider: openai
  model: test-model
  tools: [{file: tools/weather.json}]
"""
    + CASES
)

PROGRAM_SUITE = (
    """\
version: 1
name: desk-program
agent:
  command: [python3, desk.py]
  tools: [{file: tools/weather.json}]
"""
    + CASES
)

SCRIPT = {
    "rules": [
        {"when": {"after_tool": "get_weather"}, "text": "It is {result.temp_c} degrees in Paris."},
        {
            "when": {"last_user": "Paris"},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        },
    ]
}


def test_a_path_assertion_reads_what_was_said_whichever_agent_said_it(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = tmp_path / "repo"
    (root / "tools").mkdir(parents=True)
    (root / "tools" / "weather.json").write_text(json.dumps(TOOLS))
    (root / "desk.py").write_text(AGENT)
    (root / "model.suite.yaml").write_text(MODEL_SUITE)
    (root / "program.suite.yaml").write_text(PROGRAM_SUITE)
    server = model_server(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
    env.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-scripted-key-123456")
    done = subprocess.run(
        [sys.executable, "-m", "gate", "run", "--root", str(root), "--allow-commands", "--quiet"]
        + ["--json", str(root / "out.json")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "out.json").read_text())
    records = {s["name"]: s["cases"][0]["trials"][0]["record"] for s in results["suites"]}
    said = {name: record["messages"][-1] for name, record in records.items()}
    assert said["desk-model"]["content"] == said["desk-program"]["content"] == "It is 18 degrees in Paris."
    # The program's log is its record's own, apart from what was said.
    assert "INFO desk: answered" in records["desk-program"]["log"]
    assert all("INFO desk" not in json.dumps(m) for m in records["desk-program"]["messages"])
