"""A pull request's agent program cannot turn the case its change broke into something that does not
count: one that ends before its first model request on that case (so that the case is an error, not
a failure) fails the run on pull requests as the regression would have (``--baseline auto``, errors
counting against the gate as by default). Before, the comparison left the error uncompared, the
suite stayed above its threshold, and the run PASSED, while the same change answering honestly
failed as a regression. Through the CLI, with a real git repository and the scripted model server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support.model_server import ScriptedModelServer

PROGRAM = """\
import json, os, sys, urllib.request

BROKEN = False  # the pull request's change: it breaks the case "broken"
DODGE = os.environ.get("DODGE") == "1"  # ... and hides that it did
URL = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "The weather now.",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
for line in sys.stdin:
    message = json.loads(line)
    if BROKEN and DODGE and message.get("case") == "broken":
        sys.exit(0)  # before its first model request: the case is an error, not a failure
    content = message["content"] if BROKEN else message["content"].replace("Nowhere", "Lyon")
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": content}], "tools": TOOLS}
    headers = {"content-type": "application/json", "authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}
    request = urllib.request.Request(URL, json.dumps(body).encode(), headers)
    reply = json.load(urllib.request.urlopen(request, timeout=60))["choices"][0]["message"]
    print(json.dumps({"content": reply.get("content") or "done"}), flush=True)
"""

CASE = (
    "  - id: {}\n    input: What is the weather in {}?\n    expect:\n      calls: [{{tool: get_weather}}]\n"
)
CASES = "".join(
    CASE.format(case_id, city)
    for case_id, city in [("broken", "Nowhere")] + [(f"city{n}", f"Town{n}") for n in range(11)]
)
SUITE = f"""\
version: 1
name: desk
threshold: 0.9
agent:
  command: [python3, agent/desk.py]
  tools:
    - type: function
      function:
        name: get_weather
        description: The weather now.
        parameters: {{type: object, properties: {{city: {{type: string}}}}}}
cases:
{CASES}"""

# The model calls the tool for a known town, and not for "Nowhere".
SCRIPT = {
    "rules": [
        {"when": {"after_tool": "get_weather"}, "text": "Sunny."},
        {
            "when": {"last_user": "weather in (Town|Lyon)"},
            "tool_calls": [{"name": "get_weather", "arguments": {}}],
        },
    ],
    "default": {"text": "I do not know that place."},
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", *args], cwd=repo, check=True)


def _repository(tmp_path: Path) -> Path:
    """main: the program passes every case; the branch ``pr``: it breaks ``broken``."""
    repo = tmp_path / "repo"
    (repo / "agent").mkdir(parents=True)
    (repo / "agent" / "desk.py").write_text(PROGRAM)
    (repo / "desk.suite.yaml").write_text(SUITE)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "checkout", "-qb", "pr")
    (repo / "agent" / "desk.py").write_text(PROGRAM.replace("BROKEN = False", "BROKEN = True"))
    _git(repo, "commit", "-qam", "the change")
    return repo


def _gate(repo: Path, server: ScriptedModelServer, dodge: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
    env.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-scripted-key-123456", DODGE=dodge)
    command = [
        "run",
        "--root",
        str(repo),
        "--allow-commands",
        "--baseline",
        "auto",
        "--changed-since",
        "main",
    ]
    return subprocess.run(
        [sys.executable, "-m", "gate", *command, "desk.suite.yaml"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_a_program_that_ends_before_its_request_on_the_case_it_broke_fails_as_the_regression(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    repo = _repository(tmp_path)
    server = model_server(SCRIPT)
    honest = _gate(repo, server, "0")
    assert honest.returncode == 1, honest.stdout + honest.stderr
    assert "1 case(s) regressed against the baseline: desk/broken" in honest.stdout
    dodged = _gate(repo, server, "1")
    assert dodged.returncode == 1, dodged.stdout + dodged.stderr
    assert "the agent program ended before its first model request" in dodged.stdout
    assert (
        "1 case(s) that passed on the base could not be evaluated on the head (errors count against the "
        "gate): desk/broken" in dodged.stdout
    )
