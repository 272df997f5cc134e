from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import junitparser

from gate.files.results_file import load_results
from gate.reports.junit import render
from gate.verdict.conclusion import conclude
from tests.results_factory import case, record, run, suite

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def golden_xml() -> str:
    results = load_results(GOLDEN / "results.json")
    return render(conclude(results))


def test_junit_matches_golden():
    text = golden_xml()
    path = GOLDEN / "junit.xml"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        "junit.xml differs from the golden file (UPDATE_GOLDEN=1)"
    )


def test_counts_equal_the_json_results_with_etree_and_junitparser(tmp_path):
    results = load_results(GOLDEN / "results.json")
    text = golden_xml()
    root = ET.fromstring(text.encode("utf-8"))
    path = tmp_path / "junit.xml"
    path.write_text(text, encoding="utf-8")
    xml = junitparser.JUnitXml.fromfile(str(path))
    parsed_suites = list(xml)
    assert [s.name for s in parsed_suites] == [s.name for s in results.suites]
    for suite_result, el, parsed in zip(
        results.suites, root.findall("testsuite"), parsed_suites, strict=True
    ):
        statuses = [c.status for c in suite_result.cases]
        expected = {
            "tests": len(statuses),
            "failures": statuses.count("failed"),
            "errors": statuses.count("error"),
            "skipped": statuses.count("skipped"),
        }
        assert {k: int(el.get(k)) for k in expected} == expected
        assert (parsed.tests, parsed.failures, parsed.errors, parsed.skipped) == tuple(expected.values())
        cases = list(parsed)
        assert [c.name for c in cases] == [c.case_id for c in suite_result.cases]
        for case_result, tc in zip(suite_result.cases, cases, strict=True):
            assert tc.classname == suite_result.path
            kinds = {type(r).__name__ for r in tc.result}
            assert (
                kinds
                == {"failed": {"Failure"}, "error": {"Error"}, "skipped": {"Skipped"}, "passed": set()}[
                    case_result.status
                ]
            )
        for tc_el, case_result in zip(el.findall("testcase"), suite_result.cases, strict=True):
            assert tc_el.get("file") == case_result.file and int(tc_el.get("line")) == case_result.line
    assert int(root.get("tests")) == sum(len(s.cases) for s in results.suites)


def test_failure_message_type_and_transcript():
    root = ET.fromstring(golden_xml().encode("utf-8"))
    tc = root.find(".//testcase[@name='rome-week']")
    failure = tc.find("failure")
    assert failure.get("type") == "type_error"
    assert "days: expected an integer" in failure.get("message")
    out = tc.find("system-out").text
    assert (
        'get_forecast({"city": "Rome", "days": "7 days"})' in out and "error: days must be an integer" in out
    )
    flaky = root.find(".//testcase[@name='london-flaky']")
    assert {p.get("name"): p.get("value") for p in flaky.iter("property")}["flaky"] == "true"
    skipped = root.find(".//testcase[@name='tokyo-later']/skipped")
    assert skipped.get("message") == "tool not ready <b>@team</b>"
    error = root.find(".//testcase[@name='berlin-down']/error")
    assert error.get("message") == "provider failed: 503"


def test_illegal_xml_characters_and_cdata_end_are_handled():
    text = "ctrl \x00\x01\x08\x0b\x1f ]]> <x> & \ufffe \ud800 ok"
    results = run(suite("s\x00", [case("c", "failed", rec=record(output=text))]))
    xml = render(conclude(results))
    root = ET.fromstring(xml.encode("utf-8"))
    out = root.find(".//system-out").text
    assert "]]> <x> & " in out and "ok" in out and "\x00" not in out
    assert root.find("testsuite").get("name") == "s"


def test_the_transcript_shows_an_unknown_tools_error_as_what_it_is():
    import dataclasses

    from gate.reports.transcript import transcript
    from tests.results_factory import call

    error = "Error: unknown tool 'list_forecasts': the available tools are get_forecast, get_weather."
    invented = dataclasses.replace(
        call("list_forecasts", {"city": "Oslo"}, result=error, mock="unknown_tool"), is_error=True
    )
    text = transcript(case("c", "failed", rec=record(calls=[invented])))
    assert f'[call] list_forecasts({{"city": "Oslo"}})\n  -> {error}\n' in text
    assert "unmocked" not in text
