"""Every adapter docs/agent-programs.md shows is a file of examples/ run here through the gate, on its
real framework (LangGraph with LangChain's MCP adapters, the OpenAI Agents SDK, PydanticAI, plain
code on the openai SDK, JavaScript on the openai npm package), against the scripted model, on every
shape a case can have: a single message, a conversation, a conversation that starts mid-task (an
earlier tool call and its result), and a simulated user. Each program takes the hotels tool from the
gate's mock MCP server (the frameworks' own MCP clients, on the SDK line they share with the gate).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.model_server import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[2]

ADAPTERS = {
    "langgraph": ["python3", "agents/python/langgraph_adapter.py"],
    "openai-agents": ["python3", "agents/python/gate_adapter.py"],
    "pydantic-ai": ["python3", "agents/python/pydantic_ai_adapter.py"],
    "openai-sdk": ["python3", "agents/python/openai_sdk_adapter.py"],
    "javascript": ["node", "agents/js/gate_adapter.mjs"],
}

LISBON = "Lisbon from 2026-05-14 for 3 nights"
KYOTO = "Kyoto from 2026-10-02 for 2 nights"
SCRIPT = {
    "rules": [
        # The simulated user (its "user" messages are the agent's answers).
        {"when": {"model": "^simulated-user$", "last_user": "Casa do Rio"}, "text": f"And in {KYOTO}?"},
        {"when": {"model": "^simulated-user$"}, "text": "###STOP###"},
        # The concierge.
        {
            "when": {"after_tool": "search_hotels"},
            "text": "{result.hotel} has a room for your dates at {result.price} {result.currency} a night.",
        },
        {
            "when": {
                "last_user": "(?P<city>Lisbon|Kyoto) from (?P<date>[0-9-]+) for (?P<nights>[0-9]+) nights"
            },
            "tool_calls": [
                {
                    "name": "search_hotels",
                    "arguments": {"city": "{city}", "check_in": "{date}", "nights": "{nights|int}"},
                }
            ],
        },
    ],
    "default": {"text": "In which city, from when and for how many nights?"},
}

SUITE = """\
version: 1
name: concierge-NAME
agent:
  command: COMMAND
  timeout_s: 120
  reuse: REUSE
  tools:
    - name: search_hotels
      description: Search the partner's hotels with a room free in a city for the given stay.
      inputSchema:
        type: object
        properties:
          city: {type: string}
          check_in: {type: string}
          nights: {type: integer}
        required: [city, check_in, nights]
user_simulator: {provider: openai, model: simulated-user}
mocks:
  tools:
    search_hotels:
      - when: {city: {normalized: lisbon}}
        returns: {hotel: Casa do Rio, price: 140, currency: EUR}
      - when: {city: {normalized: kyoto}}
        returns: {hotel: Gion Garden Inn, price: 21000, currency: JPY}
defaults: {max_turns: 6}
cases:
  - id: single-message
    input: Find me a hotel in Lisbon from 2026-05-14 for 3 nights.
    expect:
      calls: [{tool: search_hotels, args: {city: Lisbon, check_in: "2026-05-14", nights: 3}}]
      output: {contains: Casa do Rio}
  - id: conversation
    conversation:
      - {role: user, content: "I need a hotel, please."}
      - {role: assistant, content: "In which city, from when and for how many nights?"}
      - {role: user, content: "Kyoto from 2026-10-02 for 2 nights."}
    expect:
      calls: [{tool: search_hotels, args: {city: Kyoto, check_in: "2026-10-02", nights: 2}}]
      output: {contains: Gion Garden Inn}
  - id: mid-task
    conversation:
      - {role: user, content: "Is there a hotel in Lisbon from 2026-05-14 for 3 nights?"}
      - role: assistant
        tool_calls:
          - id: call_lisbon
            name: search_hotels
            arguments: {city: Lisbon, check_in: "2026-05-14", nights: 3}
      - {role: tool, tool_call_id: call_lisbon, content: {hotel: Casa do Rio, price: 140, currency: EUR}}
      - {role: assistant, content: "Casa do Rio has a room for your dates at 140 EUR a night."}
      - {role: user, content: "And in Kyoto from 2026-10-02 for 2 nights?"}
    expect:
      calls: [{tool: search_hotels, args: {city: Kyoto, check_in: "2026-10-02", nights: 2}}]
      output: {contains: Gion Garden Inn}
  - id: simulated-user
    input: Find me a hotel in Lisbon from 2026-05-14 for 3 nights.
    user:
      goal: A hotel in Lisbon for 3 nights from 2026-05-14, then one in Kyoto for 2 nights from 2026-10-02.
      max_turns: 2
    expect:
      calls:
        - {tool: search_hotels, args: {city: Lisbon, check_in: "2026-05-14", nights: 3}}
        - {tool: search_hotels, args: {city: Kyoto, check_in: "2026-10-02", nights: 2}}
      order: in_order
      output: {contains: Gion Garden Inn}
"""


def _repository(tmp_path: Path, name: str, reuse: bool) -> Path:
    """A repository holding the example programs (as a team's would) and a suite for one adapter."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    python = ROOT / "examples" / "python-agent"
    shutil.copytree(
        python, repo / "agents" / "python", ignore=shutil.ignore_patterns("*.yaml", "tools", "__pycache__")
    )
    js = repo / "agents" / "js"
    js.mkdir()
    for file in ("agent.mjs", "gate_adapter.mjs", "package.json"):
        shutil.copy(ROOT / "examples" / "js-agent" / file, js / file)
    (js / "node_modules").symlink_to(ROOT / "examples" / "js-agent" / "node_modules")  # README's npm ci
    command = json.dumps(ADAPTERS[name])
    suite = SUITE.replace("NAME", name).replace("COMMAND", command).replace("REUSE", json.dumps(reuse))
    (repo / "concierge.suite.yaml").write_text(suite)
    return repo


def _text(content: Any) -> str:
    """A message's content as text, whether a string or a list of text parts."""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


def _given_call_and_result(body: dict[str, Any]) -> tuple[str, Any, str]:
    """The earlier call ``call_lisbon`` and its result as a request carried them, in its API's form."""
    if "messages" in body:  # Chat Completions
        messages = body["messages"]
        call = next(c for m in messages for c in m.get("tool_calls") or () if c["id"] == "call_lisbon")
        result = next(m for m in messages if m["role"] == "tool" and m["tool_call_id"] == "call_lisbon")
        return call["function"]["name"], json.loads(call["function"]["arguments"]), _text(result["content"])
    items = body["input"]  # the Responses API
    call = next(i for i in items if i.get("type") == "function_call" and i["call_id"] == "call_lisbon")
    result = next(
        i for i in items if i.get("type") == "function_call_output" and i["call_id"] == "call_lisbon"
    )
    return call["name"], json.loads(call["arguments"]), _text(result["output"])


@pytest.mark.parametrize("reuse", [False, True], ids=["a-process-per-trial", "reuse"])
@pytest.mark.parametrize("name", list(ADAPTERS))
def test_the_documented_adapter_passes_every_case_shape_on_its_framework(
    name: str, reuse: bool, tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    """With ``reuse: true`` the same adapter runs the four trials in fewer processes than trials, each
    trial's requests its own (every case passes on its own mocks and conversation)."""
    server = model_server(SCRIPT)
    repo = _repository(tmp_path, name, reuse)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
    env.update(
        OPENAI_BASE_URL=server.openai_base_url,
        OPENAI_API_KEY="sk-scripted-adapter-key",
        PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{env['PATH']}",  # python3: this environment's
    )
    results = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "gate", "run", "--root", str(repo), str(repo), "--allow-commands"]
        + ["--json", str(results)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    [ran] = json.loads(results.read_text())["suites"]
    assert ran["name"] == f"concierge-{name}"
    cases = {c["case_id"]: c for c in ran["cases"]}
    failed = {k: (c["status"], c.get("reasons")) for k, c in cases.items() if c["status"] != "passed"}
    assert failed == {} and done.returncode == 0, done.stdout + done.stderr
    if reuse:  # the start-up paid fewer times than there are trials
        [said] = [line for line in done.stderr.splitlines() if ", reused: " in line]
        processes = int(said.split(" trials in ")[1].split()[0])  # "in 1 process", "in 2 processes"
        assert said.startswith(
            f"the agent program `{' '.join(ADAPTERS[name])}` (concierge-{name}), reused: 4 trials"
        )
        assert processes < 4 and "replaced" not in said, said

    bodies = [r["body"] for r in server.requests]
    given = [_given_call_and_result(b) for b in bodies if "call_lisbon" in json.dumps(b)]
    assert given, "the mid-task case's earlier call never reached the model"
    for tool, arguments, result in given:  # the earlier call and its result, in the API's own form
        assert (tool, arguments) == (
            "search_hotels",
            {"city": "Lisbon", "check_in": "2026-05-14", "nights": 3},
        )
        assert json.loads(result) == {"hotel": "Casa do Rio", "price": 140, "currency": "EUR"}
    # The simulated user's second message reached the same conversation: its request holds the first
    # exchange (the program kept its memory between the two lines).
    follow_up = [
        b
        for b in bodies
        if "Find me a hotel in Lisbon" in json.dumps(b) and f"And in {KYOTO}?" in json.dumps(b)
    ]
    assert follow_up and all("Casa do Rio has a room" in json.dumps(b) for b in follow_up)
