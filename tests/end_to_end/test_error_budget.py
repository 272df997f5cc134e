"""The error budget end to end: the provider fails (500s) for some cases' requests, through the real
SDK against the scripted server. More of a suite's cases ending as errors than ``--max-error-rate``
allows is exit 3 with the reason in every output; within the budget the verdict is the usual one."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gate.cli import main as cli_main
from tests.commands.test_run import SCRIPT, point, repo, suite_text  # noqa: F401 (the repo fixture)
from tests.conftest import ROOT

CITIES = ["Paris", "Rome", "Oslo", "Lima", "Cairo", "Quito", "Dakar", "Hanoi", "Seoul", "Tunis"]
SCHEMA = json.loads((ROOT / "schemas" / "results.schema.json").read_text())
BEYOND = (
    "suite budget: 2 of 10 cases could not be evaluated (20.0%), more than the error budget of 10.0% "
    "(--max-error-rate); it has no verdict"
)


Run = Callable[..., tuple[int, dict[str, str]]]


@pytest.fixture
def run_with_500s(request: pytest.FixtureRequest, model_server: Any, monkeypatch: pytest.MonkeyPatch) -> Run:
    """Run the gate over ten cases (the weather repository of the run command's tests) with every
    output, the requests about the cities given answered with 500s; the exit code and each output's
    text."""
    root = request.getfixturevalue("repo")
    (root / "suites" / "budget.suite.yaml").write_text(suite_text("openai", CITIES, name="budget"))
    monkeypatch.chdir(root)

    def run(*cities: str) -> tuple[int, dict[str, str]]:
        point(monkeypatch, model_server(failing_for(*cities)))
        return run_gate(root)

    return run


def run_gate(root: Path) -> tuple[int, dict[str, str]]:
    out = root / "out"
    outputs = {"json": "results.json", "junit": "junit.xml", "markdown": "report.md", "html": "report.html"}
    flags = [item for kind, name in outputs.items() for item in (f"--{kind}", str(out / name))]
    code = cli_main(["run", "suites", "--quiet", "--concurrency", "4", *flags])
    return code, {kind: (out / name).read_text(encoding="utf-8") for kind, name in outputs.items()}


def failing_for(*cities: str) -> dict[str, Any]:
    """The script: every request of the cases about ``cities`` gets a 500, the others are answered."""
    fault = {"kind": "status", "status": 500, "retry_after": 0}
    return {**SCRIPT, "rules": [{"when": {"last_user": "|".join(cities)}, "fault": fault}, *SCRIPT["rules"]]}


def test_errors_beyond_the_budget_exit_3_and_every_output_says_why(
    run_with_500s: Run, fast_retries: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run_with_500s("Rome", "Oslo")

    assert code == 3
    console = capsys.readouterr().out
    assert BEYOND in console
    assert "ERR  budget: 80.0% (8/10)" in console and "tool-eval-gate INCOMPLETE" in console
    results = json.loads(out["json"])
    jsonschema.validate(results, SCHEMA)
    assert results["settings"]["max_error_rate"] == 0.1
    assert results["verdict"]["outcome"] == "incomplete" and results["verdict"]["exit_code"] == 3
    assert results["verdict"]["reasons"] == [BEYOND]
    assert results["verdict"]["suites_without_verdict"] == ["budget"]
    assert "evaluation incomplete" in out["markdown"] and f"- {BEYOND}" in out["markdown"]
    assert "**Why it is incomplete:**" in out["markdown"]
    assert "errors beyond the budget" in out["html"] and "more than the error budget of 10.0%" in out["html"]
    junit = ET.fromstring(out["junit"])
    suite = junit.find("testsuite")
    assert suite is not None and suite.get("errors") == "2"
    budget = {p.get("name"): p.get("value") for p in suite.iter("property")}["error_budget"]
    assert budget == BEYOND.removeprefix("suite budget: ")
    assert "<!-- Why it is incomplete: suite budget: 2 of 10 cases could not be evaluated" in out["junit"]
    # re-rendered, the results give the same verdict (the budget is recorded) unless told otherwise
    assert cli_main(["report", "out/results.json"]) == 3
    assert BEYOND in capsys.readouterr().out
    assert cli_main(["report", "out/results.json", "--max-error-rate", "0.2"]) == 1  # 8/10 under 90%


def test_errors_within_the_budget_give_the_usual_verdict(
    run_with_500s: Run, fast_retries: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run_with_500s("Rome")

    assert code == 0  # 1 error of 10: exactly the budget; 9/10 reaches the threshold of 90%
    results = json.loads(out["json"])
    assert [c["status"] for c in results["suites"][0]["cases"]].count("error") == 1
    assert results["verdict"] == {
        "exit_code": 0,
        "outcome": "passed",
        "reasons": [],
        "suites_without_verdict": [],
        "summary": results["verdict"]["summary"],
    }
    assert "error budget" not in capsys.readouterr().out + out["markdown"] + out["junit"]
    # with no error allowed, the same results have no verdict
    assert cli_main(["report", "out/results.json", "--max-error-rate", "0"]) == 3
    assert "more than the error budget of 0.0%" in capsys.readouterr().out
