"""What the recording proxy relays to an agent program (a pull request's code, maybe) carries no
credential the gate holds, through the real CLI: an upstream (or a gateway in front of it) that
echoes the request's ``Authorization`` header into its answer, plain and streamed, or quotes the key in
a 400's ``error.param``. The program writes down every byte it received; the key, in none of its
forms, is among them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support.model_server import ScriptedModelServer

# A key of no well-known shape (a gateway's, a vLLM server's): only the environment says it is one.
KEY = "gateway-credential-7c1e93ab55d0f4"

# The program: plain HTTP, one plain and one streamed request per message, every answer (and every
# error body) appended to the file $RECEIVED.
PROGRAM = """\
import json, os, sys, urllib.error, urllib.request

def post(body):
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        json.dumps(body).encode(),
        {"content-type": "application/json", "authorization": "Bearer " + os.environ["OPENAI_API_KEY"]},
    )
    try:
        with urllib.request.urlopen(request) as answer:
            data = answer.read()
    except urllib.error.HTTPError as error:
        data = error.read()
    with open(os.environ["RECEIVED"], "ab") as received:
        received.write(data + b"\\n")
    return data

for line in sys.stdin:
    text = json.loads(line)["content"]
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]}
    post(body)
    post({**body, "stream": True})
    print(json.dumps({"content": "done"}), flush=True)
"""

SUITE = """\
version: 1
name: gateway
agent:
  command: [python3, agent.py]
  tools:
    - type: function
      function:
        name: get_weather
        description: The weather now in a city.
        parameters: {type: object, properties: {city: {type: string}}, required: [city]}
cases:
  - id: echoed
    input: What did you receive?
    expect: {no_calls: true}
  - id: refused
    input: Refuse me.
    expect: {no_calls: true}
"""

SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "receive"},
            "text": "Your request came with {authorization}; the key alone: {credential}.",
        },
        {
            "when": {"last_user": "Refuse"},
            "fault": {"kind": "status", "status": 400, "message": "invalid header", "param": "{credential}"},
        },
    ]
}


def forms(secret: str) -> list[str]:
    half = len(secret) // 2
    return [secret, json.dumps(secret)[1:-1], secret[: half + 4], secret[half - 4 :]]


def test_a_program_never_receives_the_key_an_upstream_echoes_or_quotes(
    tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "agent.py").write_text(PROGRAM)
    (root / "gateway.suite.yaml").write_text(SUITE)
    received = tmp_path / "received.txt"
    server = model_server(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
    env.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY=KEY, RECEIVED=str(received))
    done = subprocess.run(
        [sys.executable, "-m", "gate", "run", "--root", str(root), "--quiet", "--allow-commands"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 3, done.stdout + done.stderr  # the refused case is an error
    # The upstream really did echo and quote the key (the test would prove nothing otherwise). The
    # refused case's streamed request is not sent: the provider's refusal ended its trial.
    assert server.request_count == 3
    got = received.read_text()
    assert got.count("Your request came with Bearer ") == 2  # the plain answer and the streamed one
    assert "invalid header" in got and "(parameter " in got  # the upstream's refusal reached the program
    assert "the trial has ended (provider error)" in got
    for form in forms(KEY):
        assert form not in got
        assert form not in done.stdout + done.stderr
