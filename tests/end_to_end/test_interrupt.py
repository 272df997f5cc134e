"""Interrupting a run (Ctrl-C / SIGINT, or SIGTERM from CI cancelling a job) still writes all the
reports, with what completed, marked incomplete, and exits 3. Runs ``python -m gate run`` as a real
subprocess against a slow scripted model server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import ROOT

API_KEY = "sk-test-interrupt-0123456789abcdef"
CITIES = ["Paris", "Rome", "Oslo", "Lima", "Cairo", "Quito", "Lagos", "Hanoi"]
SCRIPT = {
    "rules": [
        {
            "when": {"last_user": "(?i)weather in (?P<city>[A-Za-z]+)", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
        {"when": {"after_tool": "get_weather"}, "text": "It is {result.temp_c} degrees."},
    ]
}
TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }
]
SCHEMA = json.loads((ROOT / "schemas" / "results.schema.json").read_text())


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(json.dumps(TOOLS))
    lines = [
        "version: 1",
        "name: slow",
        "agent: {provider: openai, model: test-model, tools: [{file: tools/weather.json}]}",
        "mocks: {tools: {get_weather: [{returns: {temp_c: 18}}]}}",
        "cases:",
    ]
    for city in CITIES:
        lines.append(
            f'  - {{id: {city.lower()}, input: "What\'s the weather in {city}?", '
            f"expect: {{calls: [{{tool: get_weather, args: {{city: {city}}}}}]}}}}"
        )
    (tmp_path / "slow.suite.yaml").write_text("\n".join(lines) + "\n")
    return tmp_path


def start_run(repo: Path, server: Any) -> subprocess.Popen[str]:
    env = dict(
        os.environ,
        OPENAI_BASE_URL=server.openai_base_url,
        OPENAI_API_KEY=API_KEY,
        CI="true",
        PYTHONPATH=str(ROOT),
    )
    out = repo / "out"
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gate",
            "run",
            "--concurrency",
            "2",
            "--json",
            str(out / "results.json"),
            "--junit",
            str(out / "junit.xml"),
            "--markdown",
            str(out / "report.md"),
        ],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_requests(server: Any, count: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while server.request_count < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run never got going"
        time.sleep(0.02)


def check_partial_reports(repo: Path, signal_name: str) -> dict[str, Any]:
    out = repo / "out"
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(results, SCHEMA)
    assert results["complete"] is False
    assert signal_name in results["incomplete_reason"]
    statuses = [case["status"] for case in results["suites"][0]["cases"]]
    assert len(statuses) == len(CITIES)  # every case is in the report, run or not
    assert "error" in statuses  # what did not run is an error (could not evaluate), not a failure
    assert "failed" not in statuses
    junit = ET.parse(out / "junit.xml").getroot()
    assert len(list(junit.iter("testcase"))) == len(CITIES)
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "incomplete" in markdown.lower()
    assert signal_name in markdown
    return results


@pytest.mark.parametrize("signum,name", [(signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")])
def test_signal_mid_run_writes_partial_reports_and_exits_3(
    repo: Path, model_server: Any, signum: int, name: str
) -> None:
    server = model_server(SCRIPT, latency=0.4)
    process = start_run(repo, server)
    wait_for_requests(server, 6, process)  # two cases done (2 requests each), more under way
    sent = time.monotonic()
    process.send_signal(signum)
    out, err = process.communicate(timeout=30)
    assert time.monotonic() - sent < 10, "stopping must not wait for the whole run"
    assert process.returncode == 3, (out, err)
    assert "Traceback" not in err
    results = check_partial_reports(repo, name)
    statuses = [case["status"] for case in results["suites"][0]["cases"]]
    assert statuses.count("passed") >= 2  # what completed is kept
    assert server.request_count < 2 * len(CITIES)  # and the rest was really not run


def test_interrupt_before_any_case_finished(repo: Path, model_server: Any) -> None:
    server = model_server(SCRIPT, latency=2.0)
    process = start_run(repo, server)
    wait_for_requests(server, 1, process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 3, (out, err)
    assert "Traceback" not in err
    results = check_partial_reports(repo, "SIGINT")
    assert {case["status"] for case in results["suites"][0]["cases"]} == {"error"}


def test_second_ctrl_c_still_ends_cleanly(repo: Path, model_server: Any) -> None:
    """An impatient user presses Ctrl-C twice: still exit 3, the reports, and no traceback."""
    server = model_server(SCRIPT, latency=0.4)
    process = start_run(repo, server)
    wait_for_requests(server, 3, process)
    process.send_signal(signal.SIGINT)
    process.send_signal(signal.SIGINT)  # right behind the first: the run is still stopping
    out, err = process.communicate(timeout=30)
    assert process.returncode == 3, (out, err)
    assert "Traceback" not in err
    check_partial_reports(repo, "SIGINT")
