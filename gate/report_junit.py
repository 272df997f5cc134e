"""JUnit XML report: one ``<testsuite>`` per suite, one ``<testcase>`` per case.

``classname`` is the suite file's path, and every testcase carries ``file`` and ``line`` (the line of
the case in the suite file): dorny/test-reporter, mikepenz/action-junit-report and
EnricoMi/publish-unit-test-result-action use those to annotate the right line. A failed case (the
agent was wrong) is a ``<failure>``, a case that could not be evaluated an ``<error>``, a skipped case
``<skipped>``; the transcript of every trial goes to ``<system-out>``; flaky cases and trial counts
are testcase ``<properties>``.

Built with ``xml.etree.ElementTree`` rather than junit-xml 1.9: that package is unmaintained, pulls in
``six``, offers no testcase-level properties (needed for flakiness), and its output order and
escaping of illegal characters are not under our control. ElementTree escapes ``<&>"`` itself;
``xml_text`` removes the characters XML 1.0 forbids.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from gate.escape import truncate, xml_text
from gate.results import REASON_TITLES, CaseResult, Failure, RunResults, SuiteResult, TrialResult
from gate.verdict import Verdict

MAX_ITEM_CHARS = 20_000  # one message, argument list or tool result in the transcript
MAX_MESSAGE_CHARS = 2_000  # the failure message attribute


def _x(value: object) -> str:
    return xml_text(value)


def _seconds(ms: float) -> str:
    return f"{max(0.0, ms) / 1000:.3f}"


def _case_time_ms(case: CaseResult) -> float:
    return sum(t.record.latency_ms for t in case.trials)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def describe_failure(f: Failure) -> str:
    """One failure as one line: reason title, message and the tool / argument / expected / actual."""
    parts = [f"[{REASON_TITLES.get(f.reason, f.reason)}] {f.message}"]
    details = []
    if f.expected_tool:
        details.append(f"expected tool {f.expected_tool}")
    if f.tool:
        details.append(f"tool {f.tool}")
    if f.argument:
        details.append(f"argument {f.argument}")
    if f.expected is not None:
        details.append(f"expected {truncate(_json(f.expected), 500)}")
    if f.actual is not None:
        details.append(f"actual {truncate(_json(f.actual), 500)}")
    if details:
        parts.append(f"({', '.join(details)})")
    return " ".join(parts)


def transcript(case: CaseResult) -> str:
    """The plain-text transcript of every trial of a case: messages, calls with arguments and mock
    results, the final output, failures."""
    lines: list[str] = [f"case {case.case_id} ({case.file}:{case.line}): {case.status}"
                        + (" [FLAKY: trials disagree]" if case.flaky else "")]
    if case.skip_reason and case.status == "skipped":
        lines.append(f"skipped: {case.skip_reason}")
    for t in case.trials:
        lines.extend(_trial_lines(t))
    return "\n".join(lines) + "\n"


def _trial_lines(t: TrialResult) -> list[str]:
    rec = t.record
    lines = [
        "",
        f"--- trial {t.index + 1}: {t.status} (score {t.score:.2f}, {rec.turns} turns, "
        f"{rec.latency_ms:.0f} ms, {rec.usage.input_tokens}+{rec.usage.output_tokens} tokens)",
    ]
    calls = {c.id: c for c in rec.calls}
    for m in rec.messages:
        role = m.get("role", "?")
        content = m.get("content") or ""
        if role == "tool":
            continue  # shown with its call below
        if content:
            lines.append(f"[{role}] {truncate(str(content), MAX_ITEM_CHARS)}")
        for call_id in m.get("calls", ()) or ():
            c = calls.get(call_id)
            if c is not None:
                lines.extend(_call_lines(c))
    shown = {cid for m in rec.messages for cid in (m.get("calls") or ())}
    for c in rec.calls:
        if c.id not in shown:
            lines.extend(_call_lines(c))
    if rec.error:
        lines.append(f"[error] {truncate(rec.error, MAX_ITEM_CHARS)}")
    lines.append(f"[output] {truncate(rec.output, MAX_ITEM_CHARS)}")
    for f in t.failures:
        lines.append(f"[failure] {describe_failure(f)}")
    for check in t.checks:
        if not check.passed:
            extra = f": {check.detail}" if check.detail else ""
            why = f" (judge: {check.rationale})" if check.rationale else ""
            lines.append(f"[check failed] {check.kind} score {check.score:.2f}{extra}{why}")
    return lines


def _call_lines(c: Any) -> list[str]:
    args = _json(c.arguments) if c.arguments is not None else c.raw_arguments
    line = f"[call] {c.name}({truncate(args, MAX_ITEM_CHARS)})"
    if c.arguments_error:
        line += f" invalid arguments: {c.arguments_error}"
    out = [line]
    result = c.result if isinstance(c.result, str) else _json(c.result)
    out.append(f"  -> {'error ' if c.is_error else ''}{c.mock} mock: {truncate(result, MAX_ITEM_CHARS)}")
    return out


def _suite_element(suite: SuiteResult, timestamp: str) -> tuple[ET.Element, dict[str, float]]:
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    el = ET.Element("testsuite")
    for case in suite.cases:
        counts["tests"] += 1
        ms = _case_time_ms(case)
        counts["time"] += ms
        tc = ET.SubElement(el, "testcase", {
            "classname": _x(suite.path),
            "name": _x(case.case_id),
            "file": _x(case.file or suite.path),
            "line": str(case.line),
            "time": _seconds(ms),
        })
        passed_trials = sum(1 for t in case.trials if t.status == "passed")
        props = [("trials", f"{passed_trials}/{len(case.trials)} passed"), ("score", f"{case.score:.3f}")]
        if case.flaky:
            props.append(("flaky", "true"))
        if case.tags:
            props.append(("tags", ",".join(case.tags)))
        pe = ET.SubElement(tc, "properties")
        for name, value in props:
            ET.SubElement(pe, "property", {"name": name, "value": _x(value)})
        if case.status == "failed":
            counts["failures"] += 1
            failures = case.failures or next((t.failures for t in case.trials if t.failures), ())
            message = "; ".join(f.message for f in failures) or "the case failed"
            kind = failures[0].reason if failures else "failed"
            fe = ET.SubElement(tc, "failure", {"message": _x(truncate(message, MAX_MESSAGE_CHARS)), "type": _x(kind)})
            fe.text = _x("\n".join(describe_failure(f) for f in failures))
        elif case.status == "error":
            counts["errors"] += 1
            errors = [t.record.error for t in case.trials if t.record.error]
            message = errors[0] if errors else "the case could not be evaluated"
            ee = ET.SubElement(tc, "error", {"message": _x(truncate(message, MAX_MESSAGE_CHARS)), "type": "provider_error"})
            ee.text = _x("\n".join(errors))
        elif case.status == "skipped":
            counts["skipped"] += 1
            ET.SubElement(tc, "skipped", {"message": _x(case.skip_reason or "skipped")})
        so = ET.SubElement(tc, "system-out")
        so.text = _x(transcript(case))
    el.attrib.update({
        "name": _x(suite.name),
        "tests": str(counts["tests"]),
        "failures": str(counts["failures"]),
        "errors": str(counts["errors"]),
        "skipped": str(counts["skipped"]),
        "time": _seconds(counts["time"]),
        "timestamp": _x(timestamp),
        "file": _x(suite.path),
    })
    props = ET.Element("properties")
    for name, value in (("threshold", f"{suite.threshold:g}"), ("provider", suite.provider), ("model", suite.model)):
        ET.SubElement(props, "property", {"name": name, "value": _x(value)})
    el.insert(0, props)
    return el, counts


def render(results: RunResults, verdict: Verdict) -> str:
    """The JUnit XML document (UTF-8 text with an XML declaration)."""
    root = ET.Element("testsuites")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    timestamp = results.started_at
    for suite in results.suites:
        el, counts = _suite_element(suite, timestamp)
        root.append(el)
        for key in totals:
            totals[key] += counts[key]
    root.attrib.update({
        "name": "tool-eval-gate",
        "tests": str(totals["tests"]),
        "failures": str(totals["failures"]),
        "errors": str(totals["errors"]),
        "skipped": str(totals["skipped"]),
        "time": _seconds(totals["time"]),
    })
    root.insert(0, ET.Comment(" " + _x(verdict.summary_line).replace("--", "- -").rstrip("-") + " "))
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
