"""Known-flaky cases marked non-gating: run and reported (JSON, JUnit, Markdown), never counted in
the pass rate, the gate or the baseline comparison; the loader reads the mark from the suite."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET

import junitparser

from gate.files.results_file import load_results
from gate.files.suite_loader import load_suites
from gate.reports.junit import render as render_junit
from gate.reports.markdown import render as render_markdown
from gate.results_json.codec import to_json
from gate.verdict.baseline import compare
from gate.verdict.conclusion import conclude
from gate.verdict.policy import GatePolicy, decide
from gate.verdict.view import summary_line
from tests.results_factory import case, failure, run, suite

REASON = "known flaky: the model sometimes asks first"


def _flaky_failing():
    failing = case("flaky", "failed", failures=[failure("missing_call", "missing call book_flight")])
    return dataclasses.replace(failing, non_gating=REASON)


def _results():
    return run(suite("shop", [case("a"), case("b"), _flaky_failing()]))


def test_a_failing_non_gating_case_does_not_count_in_the_pass_rate_or_fail_the_gate():
    verdict = decide(_results(), GatePolicy(threshold=1.0))
    assert (verdict.passed, verdict.pass_rate, verdict.counted, verdict.failed_count) == (True, 1.0, 2, 0)
    assert verdict.suites[0].non_gating_count == 1
    assert "1 non-gating (not counted)" in summary_line(verdict)
    assert decide(_results(), GatePolicy(fail_on="any_failure")).passed


def test_the_case_is_still_reported_in_json_junit_and_markdown(tmp_path):
    results = _results()
    path = tmp_path / "results.json"
    path.write_text(to_json(results), encoding="utf-8")
    again = load_results(path)
    assert again.suites[0].cases[2].non_gating == REASON
    assert "non_gating" not in to_json(run(suite("shop", [case("a")])))  # only marked cases store it

    conclusion = conclude(results)
    xml = render_junit(conclusion)
    node = ET.fromstring(xml).find(".//testcase[@name='flaky']")
    assert node is not None
    skipped = node.find("skipped")
    assert skipped is not None and skipped.get("message", "").startswith(f"non-gating ({REASON}): failed:")
    assert "missing call book_flight" in skipped.get("message", "")
    assert node.find("system-out") is not None  # the transcript is there to read
    props = {p.get("name"): p.get("value") for p in node.iter("property")}
    assert props["non_gating"] == REASON
    xml_file = tmp_path / "junit.xml"
    xml_file.write_text(xml, encoding="utf-8")
    parsed = junitparser.JUnitXml.fromfile(str(xml_file))
    assert (parsed.tests, parsed.failures, parsed.skipped) == (3, 0, 1)

    markdown = render_markdown(conclusion)
    assert f"non-gating: {REASON}" in markdown


def test_the_baseline_comparison_never_calls_a_non_gating_case_regressed():
    head = _results()
    base = run(suite("shop", [case("a"), case("b"), case("flaky")]))
    comparison = compare(head, base)
    change = next(c for c in comparison.changes if c.case_id == "flaky")
    assert change.status == "unchanged" and "non-gating" in change.note
    assert decide(head, GatePolicy(fail_on="regression"), comparison).passed


def test_the_suite_file_marks_a_case_non_gating(tmp_path):
    (tmp_path / "s.suite.yaml").write_text(
        "version: 1\nname: s\nagent: {provider: openai, model: m}\n"
        f"cases:\n  - id: c\n    input: hi\n    non_gating: '{REASON}'\n",
        encoding="utf-8",
    )
    loaded = load_suites([tmp_path], root=tmp_path)
    assert loaded.problems == ()
    assert loaded.suites[0].cases[0].non_gating == REASON
