"""JUnit XML report: one ``<testsuite>`` per suite, one ``<testcase>`` per case.

``classname`` is the suite file's path, and every testcase carries ``file`` and ``line`` (the line of
the case in the suite file): dorny/test-reporter, mikepenz/action-junit-report and
EnricoMi/publish-unit-test-result-action use those to annotate the right line. A failed case (the
agent was wrong) is a ``<failure>``, a case that could not be evaluated an ``<error>``, a skipped case
``<skipped>``; for failed, errored and flaky cases the transcript of every trial goes to
``<system-out>`` (a clean pass has none: the JSON results keep every transcript); trial counts are
testcase ``<properties>``. Trials are shown in Surefire's rerun form, which those consumers read: a
passed case's failed trials are ``<flakyFailure>`` (``<flakyError>``), a failed case's further failed
trials ``<rerunFailure>`` (``<rerunError>``); a ``flaky`` property marks cases whose trials disagree.
Suite and run times are wall times (cases run concurrently), not sums of case times.

Written by hand rather than with junit-xml 1.9: that package is unmaintained, pulls in ``six``,
offers no testcase-level properties (needed for flakiness), and its output order and escaping of
illegal characters are not under our control. The text is exactly what ``xml.etree.ElementTree``
writes for the same tree indented with ``ET.indent(root, space=" ")`` (a test keeps the two equal),
built as strings because that is several times faster for thousands of cases. ``xml_text`` removes
the characters XML 1.0 forbids; ``<&>"`` (and in attributes tab, CR, LF) are escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from gate.reports.failure_details import describe_failure
from gate.reports.requests_text import cost_text, request_lines, time_text, timeout_advice
from gate.reports.transcript import transcript
from gate.results.outcomes import (
    CaseResult,
    RequestStats,
    RunResults,
    SuiteResult,
    TrialResult,
)
from gate.util.escape import XML_ILLEGAL, truncate, xml_text
from gate.verdict.baseline import CaseChange, Comparison, change_sentence
from gate.verdict.conclusion import Conclusion

MAX_MESSAGE_CHARS = 2_000  # the failure message attribute


def _x(value: object) -> str:
    return xml_text(value)


def _seconds(ms: float) -> str:
    return f"{max(0.0, ms) / 1000:.3f}"


def _case_time_ms(case: CaseResult) -> float:
    return sum(t.record.latency_ms for t in case.trials)


def source_frame(case: CaseResult) -> str:
    """The case's ``file:line`` as the last line of a failure or error, in the form of a Java stack
    frame, ``at evals.weather.Case(weather.suite.yaml:42)``: dorny/test-reporter's ``java-junit``
    reporter takes its annotation's file and line only from such a frame (the package is the file's
    directory, dot-separated; it then matches a tracked file by name and directories)."""
    directory, _, name = case.file.rpartition("/")
    return f"at {directory.replace('/', '.')}.Case({name}:{case.line})"


# --- serialisation ----------------------------------------------------------------------------------
# The document is written as text, exactly as ``xml.etree.ElementTree`` serialises the same tree after
# ``ET.indent(root, space=" ")`` (a test renders both and compares): about five times faster than
# building and serialising a tree, which matters for thousands of cases.

_ATTRIB_ESCAPES = (
    ("&", "&amp;"),
    ("<", "&lt;"),
    (">", "&gt;"),
    ('"', "&quot;"),
    ("\r", "&#13;"),
    ("\n", "&#10;"),
    ("\t", "&#09;"),
)
# Characters that make an attribute value or element text need any work (escaping or dropping).
_ATTR_SPECIAL = re.compile('[&<>"\t\r\n]|' + XML_ILLEGAL.pattern)
_CDATA_SPECIAL = re.compile("[&<>]|" + XML_ILLEGAL.pattern)


def _attr(value: object) -> str:
    """An attribute value: XML-illegal characters dropped, then escaped as ElementTree does."""
    text = value if type(value) is str else str(value)
    if _ATTR_SPECIAL.search(text) is None:
        return text
    text = xml_text(text)
    for char, entity in _ATTRIB_ESCAPES:
        if char in text:
            text = text.replace(char, entity)
    return text


def _cdata(value: object) -> str:
    """Element text: XML-illegal characters dropped, ``&<>`` escaped."""
    text = value if type(value) is str else str(value)
    if _CDATA_SPECIAL.search(text) is None:
        return text
    text = xml_text(text)
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


def _open(name: str, attrs: Sequence[tuple[str, str]]) -> str:
    """A start tag without its closing ``>``; ``attrs`` are already escaped."""
    return "<" + name + "".join(f' {key}="{value}"' for key, value in attrs)


def _tag(name: str, attrs: Sequence[tuple[str, str]], text: str = "") -> str:
    """A leaf element; ``attrs`` and ``text`` are already escaped. Empty: ``<name ... />``."""
    head = _open(name, attrs)
    return f"{head}>{text}</{name}>" if text else head + " />"


def _properties(props: Sequence[tuple[str, str]], level: int) -> str:
    inner = "\n" + " " * (level + 1)
    rows = "".join(f'{inner}<property name="{name}" value="{_attr(value)}" />' for name, value in props)
    return f"<properties>{rows}\n{' ' * level}</properties>"


def _testcase(
    case: CaseResult, classname: str, suite_file: str, ms: float, change: tuple[str, str] | None = None
) -> str:
    """One ``<testcase>`` at level 2; ``classname`` and ``suite_file`` are already escaped;
    ``change``: the baseline comparison's status and its explanation."""
    trials = case.trials
    passed_trials = sum(1 for t in trials if t.status == "passed")
    props = (
        f'\n   <properties>\n    <property name="trials" value="{passed_trials}/{len(trials)} passed" />'
        f'\n    <property name="score" value="{case.score:.3f}" />'
    )
    if case.curtailed:
        props += f'\n    <property name="planned_trials" value="{case.planned_trials}" />'
    if case.flaky:
        props += '\n    <property name="flaky" value="true" />'
    if case.tags:
        props += f'\n    <property name="tags" value="{_attr(",".join(case.tags))}" />'
    if case.non_gating is not None:
        props += f'\n    <property name="non_gating" value="{_attr(case.non_gating)}" />'
    if change is not None:
        props += f'\n    <property name="baseline" value="{_attr(change[0])}" />'
        if change[1]:
            props += f'\n    <property name="baseline_change" value="{_attr(change[1])}" />'
    status = case.status
    outcome = ""
    if case.non_gating is not None and status in ("failed", "error"):
        # Known flaky: shown as skipped (it never fails the check) with what happened and the transcript.
        happened = "; ".join(f.message for f in case.failures) or status
        message = f"non-gating ({case.non_gating}): {status}: {happened}"
        outcome = "\n   " + _tag("skipped", (("message", _attr(truncate(message, MAX_MESSAGE_CHARS))),))
    elif status == "failed":
        failures = case.failures or next((t.failures for t in trials if t.failures), ())
        message = "; ".join(f.message for f in failures) or "the case failed"
        kind = failures[0].reason if failures else "failed"
        outcome = "\n   " + _tag(
            "failure",
            (("message", _attr(truncate(message, MAX_MESSAGE_CHARS))), ("type", _attr(kind))),
            _cdata("\n".join([*(describe_failure(f) for f in failures), source_frame(case)])),
        )
    elif status == "error":
        errors = [t.record.error for t in trials if t.record.error]
        message = errors[0] if errors else "the case could not be evaluated"
        outcome = "\n   " + _tag(
            "error",
            (("message", _attr(truncate(message, MAX_MESSAGE_CHARS))), ("type", "provider_error")),
            _cdata("\n".join([*errors, source_frame(case)])),
        )
    elif status == "skipped":
        outcome = "\n   " + _tag("skipped", (("message", _attr(case.skip_reason or "skipped")),))
    outcome += _other_trials(case)
    file = _attr(case.file) if case.file else suite_file
    # The transcript goes with the cases a reader opens: failed, errored and flaky ones. A clean pass
    # has none (it would be most of the file's size and time); the JSON results keep every transcript.
    out = (
        ""
        if status in ("passed", "skipped") and not case.flaky and case.non_gating is None
        else (f"\n   <system-out>{_cdata(transcript(case))}</system-out>")
    )
    return (
        f'<testcase classname="{classname}" name="{_attr(case.case_id)}" file="{file}" line="{case.line}" '
        f'time="{_seconds(ms)}">{props}\n   </properties>{outcome}{out}\n  </testcase>'
    )


def _trial_element(name: str, trial: TrialResult) -> str:
    """A Surefire ``flakyFailure``/``flakyError``/``rerunFailure``/``rerunError`` of one trial, its
    reasons in ``stackTrace`` (where Surefire keeps the details)."""
    if trial.status == "error":
        message = trial.record.error or "the trial could not be evaluated"
        details = trial.record.error or ""
        kind = "provider_error"
    else:
        message = "; ".join(f.message for f in trial.failures) or "the trial failed"
        details = "\n".join(describe_failure(f) for f in trial.failures)
        kind = trial.failures[0].reason if trial.failures else "failed"
    attrs = (
        ("message", _attr(truncate(f"trial {trial.index + 1}: {message}", MAX_MESSAGE_CHARS))),
        ("type", _attr(kind)),
    )
    text = _cdata(details)
    if not text:
        return "\n   " + _tag(name, attrs)
    return f"\n   {_open(name, attrs)}>\n    <stackTrace>{text}</stackTrace>\n   </{name}>"


def _other_trials(case: CaseResult) -> str:
    """Surefire's form of the trials a case's outcome element does not show, the form the JUnit
    consumers read flakiness from: a passed (or known-flaky, non-gating) case's failed or errored trials
    are ``flakyFailure`` / ``flakyError``; a failed or errored case's trials after the one its
    ``failure``/``error`` shows are ``rerunFailure`` / ``rerunError``. Passed trials have no element
    (Surefire has none)."""
    if case.status == "passed" or case.non_gating is not None:  # a known-flaky case is shown skipped
        prefix, shown = "flaky", None
    elif case.status in ("failed", "error"):
        prefix = "rerun"
        shown = next((t.index for t in case.trials if t.status == case.status), None)
    else:
        return ""
    return "".join(
        _trial_element(prefix + ("Error" if t.status == "error" else "Failure"), t)
        for t in case.trials
        if t.status in ("failed", "error") and t.index != shown
    )


def _suite_text(
    suite: SuiteResult, timestamp: str, comparison: Comparison | None = None, budget: str = ""
) -> tuple[str, dict[str, float]]:
    changes = {c.case_id: c for c in comparison.changes if c.suite == suite.name} if comparison else {}
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    longest = 0.0
    cases = []
    classname = _attr(suite.path)
    for case in suite.cases:
        counts["tests"] += 1
        ms = _case_time_ms(case)
        longest = max(longest, ms)
        if case.non_gating is not None and case.status in ("failed", "error"):
            counts["skipped"] += 1
        elif case.status == "failed":
            counts["failures"] += 1
        elif case.status == "error":
            counts["errors"] += 1
        elif case.status == "skipped":
            counts["skipped"] += 1
        cases.append(_testcase(case, classname, classname, ms, _change_text(changes.get(case.case_id))))
    # The suite's wall time (its cases run concurrently: the sum of case times overstates it). Results
    # written before wall times were recorded have none: the longest case is the closest lower bound.
    counts["time"] = suite.wall_ms or longest
    suite_props = [
        ("threshold", f"{suite.threshold:g}"),
        ("provider", suite.provider),
        ("model", suite.model),
    ]
    if comparison is not None:
        removed = [c.case_id for c in comparison.of("removed") if c.suite == suite.name]
        if removed:
            suite_props.append(("baseline_removed", ",".join(removed)))
    if budget:  # beyond the error budget: what it says, and whether the suite has a verdict
        suite_props.append(("error_budget", budget))
    suite_props += _request_properties(suite.requests)
    props = _properties(suite_props, 2)
    head = _open(
        "testsuite",
        (
            ("name", _attr(suite.name)),
            ("tests", str(counts["tests"])),
            ("failures", str(counts["failures"])),
            ("errors", str(counts["errors"])),
            ("skipped", str(counts["skipped"])),
            ("time", _seconds(counts["time"])),
            ("timestamp", _attr(timestamp)),
            ("file", _attr(suite.path)),
        ),
    )
    body = "\n  " + props + "".join("\n  " + case for case in cases)
    return f"{head}>{body}\n </testsuite>", counts


def _request_properties(stats: RequestStats) -> list[tuple[str, str]]:
    """The suite's model requests: counts, cost and, when the time went to timeouts, the advice."""
    if not stats.attempts:
        return []
    counts = ("requests", "attempts", "retries", "timeouts", "rate_limited")
    props = [(name, str(getattr(stats, name))) for name in counts]
    props += [("failed_attempts", str(stats.failed)), ("estimated_cost", cost_text(stats))]
    props += [
        (name, text)
        for name, text in (("request_time", time_text(stats)), ("advice", timeout_advice(stats)))
        if text
    ]
    return props


def _run_wall_ms(results: RunResults) -> float:
    """The run's wall time from its ISO 8601 start and end (0 when either is missing or unreadable).
    Merged shards ran side by side: their span, not their sum."""
    try:
        start = datetime.fromisoformat(results.started_at)
        end = datetime.fromisoformat(results.finished_at)
        return max(0.0, (end - start).total_seconds() * 1000)
    except (TypeError, ValueError):
        return 0.0


def _change_text(change: CaseChange | None) -> tuple[str, str] | None:
    if change is None:
        return None
    return change.status, change_sentence(change) if change.status in ("regressed", "fixed") else change.note


def render(conclusion: Conclusion) -> str:
    """The JUnit XML document of ``conclusion`` (UTF-8 text with an XML declaration); with a baseline
    comparison, each case carries its change (``baseline`` property) and each suite its removed cases."""
    results, comparison = conclusion.results, conclusion.comparison
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    suites = []
    budgets = {(s.name, s.path): s.budget_sentence for s in conclusion.verdict.suites}
    for suite in results.suites:
        budget = budgets.get((suite.name, suite.path), "")
        text, counts = _suite_text(suite, results.started_at, comparison, budget)
        suites.append(text)
        for key in ("tests", "failures", "errors", "skipped"):
            totals[key] += counts[key]
        totals["time"] = max(totals["time"], counts["time"])
    totals["time"] = _run_wall_ms(results) or totals["time"]
    head = _open(
        "testsuites",
        (
            ("name", "tool-eval-gate"),
            ("tests", str(totals["tests"])),
            ("failures", str(totals["failures"])),
            ("errors", str(totals["errors"])),
            ("skipped", str(totals["skipped"])),
            ("time", _seconds(totals["time"])),
        ),
    )
    words = conclusion.view.verdict
    reasons = [f"{words.reasons_label}: {reason}" for reason in words.reasons]
    lines = [words.summary, *reasons, *request_lines(results.total_requests)]
    # A comment may hold no "--" (nor end in "-"): a space goes between any two hyphens ("---" too).
    comments = "".join("\n <!-- " + re.sub("-(?=-)", "- ", _x(line)).rstrip("-") + " -->" for line in lines)
    body = comments + "".join("\n " + suite for suite in suites)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{head}>{body}\n</testsuites>\n'
