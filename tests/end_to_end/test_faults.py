"""Provider faults never break a run: through the real SDKs against the scripted server.

For each fault (429 with and without retry-after, 5xx, timeouts, dropped connections, empty and
truncated bodies, tool-call arguments that are not JSON, unknown tool names, enormous outputs),
``tool-eval-gate run`` completes; every case ends passed, failed or error with its reason; the JSON
results (valid against ``schemas/results.schema.json``), JUnit XML and Markdown are all written; and
the exit code follows the error policy (``--errors count`` / ``ignore``).

Transient faults (the first few requests) must be retried away; persistent ones (every request of
one case) must end that case as an error and leave the others alone. The retry back-off of the
persistent cases is shortened (``fast_retries``) so that six attempts take milliseconds, not
seconds; the transient cases run with the real policy.
"""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gate.cli import main as cli_main
from tests.builders import WEATHER_FUNCTION
from tests.conftest import ROOT

API_KEY = "sk-test-faults-0123456789abcdef"
CITIES = ["Paris", "Rome", "Oslo"]
VICTIM = "Rome"  # the case a persistent fault hits

TOOLS = [WEATHER_FUNCTION]
GOOD_RULES = [
    {
        "when": {"last_user": "(?i)weather in (?P<city>[A-Za-z]+)", "turn": 1},
        "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
    },
    {"when": {"after_tool": "get_weather"}, "text": "It is {result.temp_c} degrees."},
]
SCHEMA = json.loads((ROOT / "schemas" / "results.schema.json").read_text())


def suite_text(provider: str) -> str:
    lines = [
        "version: 1",
        "name: faults",
        "agent:",
        f"  provider: {provider}",
        "  model: test-model",
        "  system_prompt: You are a weather assistant.",
        "  tools: [{file: ../tools/weather.json}]",
        "mocks:",
        "  tools:",
        "    get_weather:",
        "      - returns: {temp_c: 18}",
        "threshold: 0.9",
        "cases:",
    ]
    for city in CITIES:
        lines += [
            f"  - id: {city.lower()}",
            f"    input: What's the weather in {city}?",
            "    expect:",
            "      calls: [{tool: get_weather, args: {city: " + city + "}}]",
            "      output: {contains: '18'}",
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "suites").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(json.dumps(TOOLS))
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("CI", "true")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_gate(
    repo: Path, server: Any, provider: str = "openai", *extra: str, errors: str = "count"
) -> tuple[int, dict[str, Any], ET.Element, str, float]:
    """Write the suite, point the SDKs at ``server``, run the gate; returns the exit code, the JSON
    results, the JUnit root, the Markdown and the wall time. Checks that all three were written."""
    import os

    os.environ["OPENAI_BASE_URL"] = server.openai_base_url
    os.environ["ANTHROPIC_BASE_URL"] = server.anthropic_base_url
    (repo / "suites" / "faults.suite.yaml").write_text(suite_text(provider))
    out = repo / "out"
    start = time.perf_counter()
    code = cli_main(
        [
            "run",
            "suites",
            "--quiet",
            "--concurrency",
            "3",
            "--errors",
            errors,
            "--json",
            str(out / "results.json"),
            "--junit",
            str(out / "junit.xml"),
            "--markdown",
            str(out / "report.md"),
            *extra,
        ]
    )
    elapsed = time.perf_counter() - start
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    jsonschema.validate(results, SCHEMA)
    junit = ET.parse(out / "junit.xml").getroot()
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert markdown.strip()
    return code, results, junit, markdown, elapsed


def statuses(results: dict[str, Any]) -> dict[str, str]:
    return {case["case_id"]: case["status"] for suite in results["suites"] for case in suite["cases"]}


def case_of(results: dict[str, Any], case_id: str) -> dict[str, Any]:
    return next(c for s in results["suites"] for c in s["cases"] if c["case_id"] == case_id)


def check_junit_agrees(junit: ET.Element, results: dict[str, Any]) -> None:
    """One testcase per case; error / failure elements exactly where the JSON says so, with a message."""
    testcases = {tc.get("name"): tc for tc in junit.iter("testcase")}
    for case_id, status in statuses(results).items():
        matches = [tc for name, tc in testcases.items() if name and case_id in name]
        assert len(matches) == 1, (case_id, list(testcases))
        tc = matches[0]
        error, failure = tc.find("error"), tc.find("failure")
        assert (error is not None) == (status == "error"), (case_id, status)
        assert (failure is not None) == (status == "failed"), (case_id, status)
        for element in (error, failure):
            if element is not None:
                assert element.get("message"), case_id


def reasons(case: dict[str, Any]) -> list[str]:
    return [f["reason"] for t in case["trials"] for f in t["failures"]]


def error_text(case: dict[str, Any]) -> str:
    return " ".join(t["record"].get("error") or "" for t in case["trials"])


# ---------------------------------------------------------------------------------------------
# Transient faults: retried away, every case passes, exit 0.

TRANSIENT = {
    "429 retry-after 0": {"kind": "status", "status": 429, "retry_after": 0},
    "429 without retry-after": {"kind": "status", "status": 429},
    "500": {"kind": "status", "status": 500, "retry_after": 0},
    "502": {"kind": "status", "status": 502},
    "503": {"kind": "status", "status": 503, "retry_after": 0},
    "dropped connection": {"kind": "drop"},
    "empty body": {"kind": "empty_body"},
    "truncated body": {"kind": "truncated_json"},
    "timeout": {"kind": "delay", "seconds": 3.0},
}


@pytest.mark.parametrize("fault", list(TRANSIENT), ids=list(TRANSIENT))
def test_transient_fault_is_retried_and_the_run_passes(repo: Path, model_server: Any, fault: str) -> None:
    server = model_server({"rules": GOOD_RULES}, faults=[{"first": 2, "fault": TRANSIENT[fault]}])
    code, results, junit, markdown, _ = run_gate(repo, server, "openai", "--timeout", "0.5")
    assert statuses(results) == {"paris": "passed", "rome": "passed", "oslo": "passed"}, results
    assert code == 0
    assert results["complete"] is True
    check_junit_agrees(junit, results)
    assert server.request_count >= 2 + 2 * len(CITIES)  # the faulty requests were really made


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_retry_after_is_honoured(repo: Path, model_server: Any, provider: str) -> None:
    server = model_server(
        {"rules": GOOD_RULES},
        faults=[{"first": 1, "fault": {"kind": "status", "status": 429, "retry_after": 1}}],
    )
    code, results, junit, _, elapsed = run_gate(repo, server, provider)
    assert code == 0 and set(statuses(results).values()) == {"passed"}
    assert elapsed >= 0.9  # waited as told before retrying
    assert server.status_counts.get(429) == 1
    check_junit_agrees(junit, results)


def test_anthropic_overloaded_529_is_retried(repo: Path, model_server: Any) -> None:
    server = model_server(
        {"rules": GOOD_RULES},
        faults=[{"first": 2, "fault": {"kind": "status", "status": 529, "retry_after": 0}}],
    )
    code, results, junit, _, _ = run_gate(repo, server, "anthropic")
    assert code == 0 and set(statuses(results).values()) == {"passed"}


# ---------------------------------------------------------------------------------------------
# Persistent faults on one case: that case is an error with its reason, the others pass. One error of
# three is beyond the default error budget (10%): exit 3. With a budget that allows it, the error
# policy decides the exit code (count: 2/3 < 0.9 fails the gate; ignore: 2/2 passes).

PERSISTENT = {
    "429 retry-after 0": ({"kind": "status", "status": 429, "retry_after": 0}, "rate limited"),
    "500": ({"kind": "status", "status": 500, "retry_after": 0}, "500"),
    "503": ({"kind": "status", "status": 503, "retry_after": 0}, "503"),
    "timeout": ({"kind": "delay", "seconds": 3.0}, "timed out"),
    "dropped connection": ({"kind": "drop"}, "connect"),
    "empty body": ({"kind": "empty_body"}, ""),
    "truncated body": ({"kind": "truncated_json"}, ""),
}


# Each fault runs under one policy: the error policy within a budget of one half, or the default budget;
# each is covered several times.
PERSISTENT_RUNS = [(fault, ("count", "ignore", "budget")[i % 3]) for i, fault in enumerate(PERSISTENT)]


@pytest.mark.parametrize("fault,errors", PERSISTENT_RUNS, ids=[f"{f}-{e}" for f, e in PERSISTENT_RUNS])
def test_persistent_fault_makes_one_case_an_error(
    repo: Path, model_server: Any, fast_retries: None, fault: str, errors: str
) -> None:
    spec, words = PERSISTENT[fault]
    rules = [{"when": {"last_user": VICTIM}, "fault": spec}, *GOOD_RULES]
    server = model_server({"rules": rules})
    provider = "anthropic" if fault in ("503", "truncated body") else "openai"
    budget = () if errors == "budget" else ("--max-error-rate", "0.5")
    code, results, junit, markdown, elapsed = run_gate(
        repo, server, provider, "--timeout", "0.3", *budget, errors="count" if errors == "budget" else errors
    )
    assert statuses(results) == {"paris": "passed", "rome": "error", "oslo": "passed"}, statuses(results)
    rome = case_of(results, "rome")
    assert "provider_error" in reasons(rome)
    assert error_text(rome).strip(), "an error says why"
    assert words.lower() in error_text(rome).lower()
    assert results["complete"] is True
    check_junit_agrees(junit, results)
    assert "rome" in markdown
    assert code == {"count": 1, "ignore": 0, "budget": 3}[errors]
    assert ("more than the error budget of 10.0%" in markdown) == (errors == "budget")
    victim_requests = [r for r in server.requests if VICTIM in json.dumps(r["body"])]
    assert len(victim_requests) > 1  # it was retried before giving up
    assert elapsed < 30


def test_every_request_failing_is_incomplete_exit_3(
    repo: Path, model_server: Any, fast_retries: None
) -> None:
    server = model_server(
        {"rules": GOOD_RULES},
        faults=[{"every": 1, "fault": {"kind": "status", "status": 503, "retry_after": 0}}],
    )
    code, results, junit, markdown, _ = run_gate(repo, server)
    assert set(statuses(results).values()) == {"error"}
    assert code == 3
    check_junit_agrees(junit, results)


# ---------------------------------------------------------------------------------------------
# Faults in what the model says: not provider errors but agent failures, with their reason.


def test_tool_arguments_that_are_not_json(repo: Path, model_server: Any) -> None:
    rules = [
        {
            "when": {"last_user": VICTIM, "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": VICTIM}}],
            "fault": {"kind": "invalid_arguments"},
        },
        *GOOD_RULES,
    ]
    server = model_server({"rules": rules})
    code, results, junit, _, _ = run_gate(repo, server)
    assert statuses(results) == {"paris": "passed", "rome": "failed", "oslo": "passed"}
    assert "invalid_arguments" in reasons(case_of(results, "rome"))
    check_junit_agrees(junit, results)
    assert code == 1


def test_unknown_tool_name(repo: Path, model_server: Any) -> None:
    rules = [
        {
            "when": {"last_user": VICTIM, "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": VICTIM}}],
            "fault": {"kind": "unknown_tool"},
        },
        *GOOD_RULES,
    ]
    server = model_server({"rules": rules})
    code, results, junit, markdown, _ = run_gate(repo, server, errors="ignore")
    assert statuses(results)["rome"] == "failed"
    assert "hallucinated_tool" in reasons(case_of(results, "rome"))
    assert "get_weather_that_does_not_exist" in markdown
    check_junit_agrees(junit, results)
    assert code == 1  # a failure is not an error: --errors ignore does not excuse it


def test_enormous_output(repo: Path, model_server: Any) -> None:
    rules = [
        {"when": {"last_user": VICTIM}, "text": "x", "fault": {"kind": "huge_text", "size": 2_000_000}},
        *GOOD_RULES,
    ]
    server = model_server({"rules": rules})
    code, results, junit, markdown, _ = run_gate(repo, server)
    rome = case_of(results, "rome")
    assert rome["status"] == "failed"
    assert "missing_call" in reasons(rome) or "output_check_failed" in reasons(rome)
    check_junit_agrees(junit, results)
    assert len(markdown.encode()) <= 1024 * 1024  # the job summary limit holds
    assert code == 1
