"""The bundled examples run offline from their recorded responses, as README's first command does."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from gate.containment.users import COMMAND_USER_VARIABLE

ROOT = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_examples_replay_offline_and_pass(tmp_path: Path) -> None:
    # Point both providers at a port nobody listens on and give no keys: any model call would fail.
    # The MCP example's server runs with python3 from PATH: the one the gate was installed into, as
    # after README's `python3 -m pip install -e '.[all]'`.
    port = _closed_port()
    env = {
        "PATH": f"{os.path.dirname(sys.executable)}:/usr/bin:/bin",
        "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "HOME": str(tmp_path),
        # Where the tests run as root, the MCP example's python3 (this interpreter) may lie where a
        # command's own user cannot reach: commands run as the gate's user (tests/conftest.py).
        COMMAND_USER_VARIABLE: os.environ[COMMAND_USER_VARIABLE],
    }
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "gate",
            "run",
            "examples",
            "--allow-commands",
            "--replay",
            "--cache",
            "examples/cassettes",
            "--allow-commands",
            "--json",
            str(out / "results.json"),
            "--junit",
            str(out / "junit.xml"),
            "--markdown",
            str(out / "report.md"),
            "--quiet",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "model requests" not in proc.stdout  # nothing was sent: no line about it
    # Every recorded response is used and none is missing: no stale cassettes after an example edit.
    cassettes = len(list((ROOT / "examples" / "cassettes").rglob("*.json")))
    assert f"cache (replay): {cassettes} hits, 0 misses" in proc.stdout
    results = json.loads((out / "results.json").read_text())
    suites = {s["name"]: s for s in results["suites"]}
    assert set(suites) == {
        "weather-agent",
        "banking-support",
        "airline-agent",
        "mcp-weather-agent",
        "travel-concierge-py",
        "order-agent-js",
    }
    statuses = [c["status"] for s in suites.values() for c in s["cases"]]
    airline = {c["case_id"]: c for c in suites["airline-agent"]["cases"]}
    # A simulated-user episode with three trials, the stateful backend, the trajectory judged.
    booked = airline["book-after-confirmation"]["trials"]
    assert len(booked) == 3 and booked[0]["record"]["state"]["bookings"]["BK-2"] == {"flight": "UA100"}
    assert [m.get("simulated") for m in booked[0]["record"]["messages"] if m["role"] == "user"] == [
        None,
        True,
    ]
    assert airline["change-to-full-flight"]["non_gating"]
    assert "pass^k" in (out / "report.md").read_text()
    # The MCP example's tools are the ones its server lists, placed at their docstrings.
    mcp = suites["mcp-weather-agent"]
    assert {t["name"]: (t["file"], t["description_line"] > 0) for t in mcp["tools"]} == {
        "get_weather": ("examples/mcp_weather/server.py", True),
        "get_forecast": ("examples/mcp_weather/server.py", True),
    }
    assert len(statuses) >= 20 and set(statuses) == {"passed"}
    # The agent programs ran for real (Python on the OpenAI Agents SDK, JavaScript on the openai
    # package), their model requests answered by the proxy from the cassettes: their own tool in
    # code, the mock MCP server's tool with its state, the judge.
    kyoto = {c["case_id"]: c for c in suites["travel-concierge-py"]["cases"]}["kyoto-price-in-euros"]
    calls = kyoto["trials"][0]["record"]["calls"]
    assert [(c["name"], c["mock"]) for c in calls] == [
        ("search_hotels", "matched"),
        ("convert_currency", "program"),
    ]
    assert calls[1]["result"] == "42000 JPY = 256.20 EUR"  # computed by the program's own code
    refund = {c["case_id"]: c for c in suites["order-agent-js"]["cases"]}["refund-a-broken-lamp"]
    assert refund["trials"][0]["record"]["state"]["orders"]["A-1002"] == {"status": "refunded"}
    assert (out / "junit.xml").read_text().count("<testcase ") == len(statuses)
    assert (out / "report.md").read_text().startswith("<!-- tool-eval-gate:")
