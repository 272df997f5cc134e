"""The two example agent programs, live against the scripted model (the rules their cassettes were
recorded with): the Python concierge on the OpenAI Agents SDK and the JavaScript order agent on the
openai npm package pass every case, the model reached only through the gate's proxy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.model_server import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("example", "suite", "requests"),
    [("python-agent", "travel-concierge-py", 9), ("js-agent", "order-agent-js", 8)],
)
def test_the_example_program_passes_live_against_the_scripted_model(
    example: str, suite: str, requests: int, tmp_path: Path, model_server: Callable[..., ScriptedModelServer]
) -> None:
    server = model_server(str(ROOT / "examples" / "scripted" / f"{example}.yaml"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
    env.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-scripted-example-key")
    results = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "gate", "run", f"examples/{example}", "--allow-commands", "--quiet"]
        + ["--json", str(results), "--record", "--cache", str(tmp_path / "cache")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [ran] = json.loads(results.read_text())["suites"]
    assert ran["name"] == suite and {c["status"] for c in ran["cases"]} == {"passed"}
    assert server.request_count == requests  # every model request of the program went through the proxy
    assert len(list((tmp_path / "cache").rglob("*.json"))) == requests  # each recorded, for a replay
