"""The JUnit file as its consumers read it: Surefire's flaky/rerun elements (what EnricoMi's
junitparser-based action, mikepenz and dorny read flakiness from), counts, file and line, and wall
times rather than summed case times."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from junitparser import xunit2

from gate.reports.junit import render
from gate.verdict.conclusion import conclude
from tests.results_factory import run, suite, trials_case


def parse(tmp_path: Path, results: object) -> xunit2.JUnitXml:
    path = tmp_path / "junit.xml"
    path.write_text(render(conclude(results)), encoding="utf-8")  # type: ignore[arg-type]
    return xunit2.JUnitXml.fromfile(str(path))


def cases_by_name(xml: xunit2.JUnitXml) -> dict[str, xunit2.TestCase]:
    return {tc.name: tc for ts in xml for tc in ts}


def test_flaky_and_rerun_trials_in_surefire_form(tmp_path: Path) -> None:
    results = run(
        suite(
            "weather",
            [
                trials_case("steady", "ppp", line=11),
                trials_case("flaky-pass", "pfp", status="passed", line=22),
                trials_case("flaky-error", "pep", status="passed", line=33),
                trials_case("always-wrong", "fff", line=44),
                trials_case("mostly-wrong", "fpf", line=55),
            ],
        )
    )
    by_name = cases_by_name(parse(tmp_path, results))
    steady, flaky, flaky_error = by_name["steady"], by_name["flaky-pass"], by_name["flaky-error"]
    assert steady.is_passed and not steady.is_flaky and not steady.is_rerun

    # A passed case whose trial 2 failed: passed, flaky, the failed trial a flakyFailure with its reason.
    assert flaky.is_passed and flaky.is_flaky and not flaky.is_rerun
    (ff,) = flaky.flaky_failures()
    assert ff.message.startswith("trial 2: ") and ff.type == "value_error"
    assert "value error" in ff.stack_trace
    assert flaky.flaky_errors() == [] and flaky_error.flaky_failures() == []
    assert len(flaky_error.flaky_errors()) == 1

    # A failed case: one failure (its first failed trial) and the further failed trials as reruns.
    wrong = by_name["always-wrong"]
    assert wrong.is_failure and len(wrong.result) == 1
    assert [r.message.split(":")[0] for r in wrong.rerun_failures()] == ["trial 2", "trial 3"]
    mostly = by_name["mostly-wrong"]
    assert mostly.is_failure and [r.message.split(":")[0] for r in mostly.rerun_failures()] == ["trial 3"]

    # Counts, file and line as the consumers read them.
    (ts,) = parse(tmp_path, results)
    assert (ts.tests, ts.failures, ts.errors, ts.skipped) == (5, 2, 0, 0)
    assert [tc._elem.get("line") for tc in ts] == ["11", "22", "33", "44", "55"]
    assert {tc._elem.get("file") for tc in ts} == {"evals/weather.yaml"}


def test_suite_and_run_times_are_wall_times(tmp_path: Path) -> None:
    three = [trials_case(f"c{i}", "pp") for i in range(3)]  # 6 trials of 100 ms each
    one = dataclasses.replace(suite("weather", three), wall_ms=250.0)
    two = suite("travel", [trials_case("t", "pp")])  # no wall time recorded (older results)
    xml = parse(tmp_path, run(one, two))
    weather, travel = list(xml)
    assert weather.time == 0.25  # not 0.6, the sum
    assert travel.time == 0.2  # the longest case (2 trials of 100 ms) when the wall time is unknown
    assert xml.time == 61.0  # the run's span, from started_at to finished_at


def test_a_run_records_each_suites_wall_time(tmp_path: Path, model_server: Any, monkeypatch: Any) -> None:
    from tests.commands.test_run import SCRIPT, TOOLS, gate_run, point, suite_text

    (tmp_path / "tools").mkdir()
    (tmp_path / "suites").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(json.dumps(TOOLS))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("CI", "true")
    point(monkeypatch, model_server(SCRIPT))
    (tmp_path / "suites" / "weather.suite.yaml").write_text(suite_text("openai", ["Paris", "Rome", "Oslo"]))
    assert gate_run(tmp_path, "--json", str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml")) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    (recorded,) = data["suites"]
    assert recorded["wall_ms"] > 0
    (ts,) = xunit2.JUnitXml.fromfile(str(tmp_path / "r.xml"))
    assert ts.time == round(recorded["wall_ms"] / 1000, 3)


def test_failures_end_with_the_frame_dorny_java_junit_reads_file_and_line_from(tmp_path: Path) -> None:
    """dorny's java-junit parser matches ``^at (.*)\\((.*):(\\d+)\\)$`` on a failure's lines, then
    takes the package (the parts before the first capitalised one) as the file's directories."""
    results = run(suite("weather", [trials_case("wrong", "f", line=44)]))
    (wrong,) = cases_by_name(parse(tmp_path, results)).values()
    (failure,) = wrong.result
    frames = [m for line in failure.text.splitlines() if (m := re.match(r"^at (.*)\((.*):(\d+)\)$", line))]
    (frame,) = frames
    package, file_name, line = frame.groups()
    parts = package.split(".")
    directories = parts[: next(i for i, part in enumerate(parts) if part[0] <= "Z")]
    assert "/".join([*directories, file_name]) == "evals/weather.yaml" and line == "44"
