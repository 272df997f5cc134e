"""The JUnit document is written as text; it must be exactly what ElementTree writes for the same
tree (indented with ``ET.indent(root, space=" ")``), for any names, messages and transcripts."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from datetime import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.files.results_file import load_results
from gate.reports.failure_details import describe_failure
from gate.reports.junit import MAX_MESSAGE_CHARS, render, source_frame
from gate.reports.requests_text import cost_text, request_lines, time_text, timeout_advice
from gate.reports.transcript import transcript
from gate.results.outcomes import CaseResult, RunResults
from gate.util.escape import truncate, xml_text
from gate.verdict.conclusion import conclude
from gate.verdict.policy import Verdict
from gate.verdict.view import summary_line
from tests.reports.test_junit import GOLDEN
from tests.results_factory import call, case, failure, record, run, suite, trial


def _seconds(ms: float) -> str:
    return f"{max(0.0, ms) / 1000:.3f}"


def add_trials(tc: ET.Element, c: CaseResult) -> None:
    """Surefire's flaky/rerun elements: a passed case's failed trials, a failed case's later ones."""
    shown = next((t.index for t in c.trials if t.status == c.status), None)
    flaky = c.status == "passed" or c.non_gating is not None
    prefix = "flaky" if flaky else "rerun"
    if c.status == "skipped":
        return
    for t in c.trials:
        if t.status not in ("failed", "error") or (not flaky and t.index == shown):
            continue
        if t.status == "error":
            message, details, kind = (
                t.record.error or "the trial could not be evaluated",
                t.record.error or "",
                "provider_error",
            )
        else:
            message = "; ".join(f.message for f in t.failures) or "the trial failed"
            details = "\n".join(describe_failure(f) for f in t.failures)
            kind = t.failures[0].reason if t.failures else "failed"
        name = prefix + ("Error" if t.status == "error" else "Failure")
        attrs = {
            "message": xml_text(truncate(f"trial {t.index + 1}: {message}", MAX_MESSAGE_CHARS)),
            "type": xml_text(kind),
        }
        el = ET.SubElement(tc, name, attrs)
        if xml_text(details):
            ET.SubElement(el, "stackTrace").text = xml_text(details)


def tree_render(results: RunResults, verdict: Verdict) -> str:
    """The reference: build an ElementTree and let it indent and serialise."""
    root = ET.Element("testsuites")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for s, sv in zip(results.suites, verdict.suites, strict=True):
        el = ET.SubElement(root, "testsuite")
        props = ET.SubElement(el, "properties")
        rows = [("threshold", f"{s.threshold:g}"), ("provider", s.provider), ("model", s.model)]
        rows += [("error_budget", sv.budget_sentence)] if sv.over_error_budget else []
        r = s.requests
        if r.attempts:
            rows += [
                (n, str(getattr(r, n)))
                for n in ("requests", "attempts", "retries", "timeouts", "rate_limited")
            ]
            rows += [("failed_attempts", str(r.failed)), ("estimated_cost", cost_text(r))]
            rows += [(n, t) for n, t in (("request_time", time_text(r)), ("advice", timeout_advice(r))) if t]
        for name, value in rows:
            ET.SubElement(props, "property", {"name": name, "value": xml_text(value)})
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        for c in s.cases:
            ms = sum(t.record.latency_ms for t in c.trials)
            counts["tests"] += 1
            counts["time"] = max(counts["time"], ms)
            tc = ET.SubElement(
                el,
                "testcase",
                {
                    "classname": xml_text(s.path),
                    "name": xml_text(c.case_id),
                    "file": xml_text(c.file or s.path),
                    "line": str(c.line),
                    "time": _seconds(ms),
                },
            )
            pe = ET.SubElement(tc, "properties")
            passed = sum(1 for t in c.trials if t.status == "passed")
            rows = [("trials", f"{passed}/{len(c.trials)} passed"), ("score", f"{c.score:.3f}")]
            rows += [("flaky", "true")] if c.flaky else []
            rows += [("tags", ",".join(c.tags))] if c.tags else []
            for name, value in rows:
                ET.SubElement(pe, "property", {"name": name, "value": xml_text(value)})
            if c.status == "failed":
                counts["failures"] += 1
                fs = c.failures or next((t.failures for t in c.trials if t.failures), ())
                message = "; ".join(f.message for f in fs) or "the case failed"
                fe = ET.SubElement(
                    tc,
                    "failure",
                    {
                        "message": xml_text(truncate(message, MAX_MESSAGE_CHARS)),
                        "type": xml_text(fs[0].reason if fs else "failed"),
                    },
                )
                fe.text = xml_text("\n".join([*(describe_failure(f) for f in fs), source_frame(c)]))
            elif c.status == "error":
                counts["errors"] += 1
                errors = [t.record.error for t in c.trials if t.record.error]
                message = errors[0] if errors else "the case could not be evaluated"
                ee = ET.SubElement(
                    tc,
                    "error",
                    {"message": xml_text(truncate(message, MAX_MESSAGE_CHARS)), "type": "provider_error"},
                )
                ee.text = xml_text("\n".join([*errors, source_frame(c)]))
            elif c.status == "skipped":
                counts["skipped"] += 1
                ET.SubElement(tc, "skipped", {"message": xml_text(c.skip_reason or "skipped")})
            add_trials(tc, c)
            if c.status not in ("passed", "skipped") or c.flaky:
                ET.SubElement(tc, "system-out").text = xml_text(transcript(c))
        counts["time"] = s.wall_ms or counts["time"]
        el.attrib.update(
            {
                "name": xml_text(s.name),
                "tests": str(counts["tests"]),
                "failures": str(counts["failures"]),
                "errors": str(counts["errors"]),
                "skipped": str(counts["skipped"]),
                "time": _seconds(counts["time"]),
                "timestamp": xml_text(results.started_at),
                "file": xml_text(s.path),
            }
        )
        for key in ("tests", "failures", "errors", "skipped"):
            totals[key] += counts[key]
        totals["time"] = max(totals["time"], counts["time"])
    try:
        span = datetime.fromisoformat(results.finished_at) - datetime.fromisoformat(results.started_at)
        totals["time"] = max(0.0, span.total_seconds() * 1000) or totals["time"]
    except ValueError:
        pass
    root.attrib.update(
        {
            "name": "tool-eval-gate",
            **{k: str(totals[k]) for k in ("tests", "failures", "errors", "skipped")},
            "time": _seconds(totals["time"]),
        }
    )
    label = (
        "Why it failed"
        if verdict.exit_code == 1
        else "Why it is incomplete"
        if verdict.exit_code
        else "Notes"
    )
    reasons = [f"{label}: {reason}" for reason in verdict.reasons]
    for position, line in enumerate([summary_line(verdict), *reasons, *request_lines(results.requests)]):
        root.insert(position, ET.Comment(" " + re.sub("-(?=-)", "- ", xml_text(line)).rstrip("-") + " "))
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def check(results: RunResults) -> str:
    conclusion = conclude(results)
    text = render(conclusion)
    assert text == tree_render(results, conclusion.verdict)
    ET.fromstring(text.encode("utf-8"))  # well-formed
    return text


def test_golden_results_render_like_elementtree():
    check(load_results(GOLDEN / "results.json"))
    check(load_results(GOLDEN / "baseline.json"))


def test_empty_runs_suites_and_texts():
    check(run())
    check(run(suite("empty", [])))
    empty_failure = case("f", "failed", trials=[trial("failed", failures=())])
    empty_error = case("e", "error", trials=[trial("error", rec=record(error=None, output=""))])
    text = check(run(suite("s", [empty_failure, empty_error])))
    # No reason to give: the body is only the frame that carries the case's file and line.
    assert '<failure message="the case failed" type="failed">at evals.Case(' in text
    assert '<error message="the case could not be evaluated" type="provider_error">at evals.Case(' in text


nasty = st.text(
    alphabet=st.sampled_from(list("ab <>&\"'\t\r\n-]\x00\x0b\u202e\ufffe\U0001f600é")), max_size=12
)


@given(
    name=nasty,
    case_id=nasty,
    message=nasty,
    output=nasty,
    argument=nasty,
    skip=nasty,
    tag=nasty,
    error=nasty,
    started=nasty,
)
@settings(max_examples=120, deadline=None)
def test_any_text_renders_like_elementtree(
    name, case_id, message, output, argument, skip, tag, error, started
):
    rec = record(output, [call("tool" + name, {argument: output}, result={output: [message]})], output=output)
    cases = [
        case(
            case_id,
            "failed",
            rec=rec,
            failures=[
                failure(
                    "value_error", message, tool=name, argument=argument, expected=output, actual=[message]
                )
            ],
            tags=[tag],
        ),
        case(case_id + "e", "error", trials=[trial("error", rec=record(error=error or "x"))], file=name),
        case(case_id + "s", "skipped", skip_reason=skip or None),
        case(case_id + "p", "passed", rec=rec, flaky=True),
    ]
    check(replace(run(suite(name, cases)), started_at=started))
