"""A case's transcript in plain text, as the JUnit ``<system-out>`` and the Markdown report show it:
every trial's messages, calls with their arguments and mock results, the final answer (or why there
is none) and the failures. Pure."""

from __future__ import annotations

from typing import Any

from gate.reports.failure_details import describe_failure
from gate.results.messages import AssistantMessage, SystemMessage, ToolResult, UserMessage
from gate.results.outcomes import CaseResult, TrialResult
from gate.results.run_record import RunRecord
from gate.util.escape import json_text, truncate

MAX_ITEM_CHARS = 20_000  # one message, argument list or tool result in the transcript


def transcript(case: CaseResult) -> str:
    """The plain-text transcript of every trial of a case: messages, calls with arguments and mock
    results, the final output, failures."""
    lines: list[str] = [
        f"case {case.case_id} ({case.file}:{case.line}): {case.status}"
        + (" [FLAKY: trials disagree]" if case.flaky else "")
    ]
    if case.skip_reason and case.status == "skipped":
        lines.append(f"skipped: {case.skip_reason}")
    for t in case.trials:
        lines.extend(_trial_lines(t))
    return "\n".join(lines) + "\n"


def _trial_lines(t: TrialResult) -> list[str]:
    rec = t.record
    usage = rec.usage
    lines = [
        "",
        f"--- trial {t.index + 1}: {t.status} (score {t.score:.2f}, {rec.turns} turns, "
        f"{rec.latency_ms:.0f} ms, {usage.input_tokens}+{usage.output_tokens} tokens)",
    ]
    calls = {c.id: c for c in rec.calls}
    shown: set[str] = set()
    for m in rec.messages:
        if isinstance(m, ToolResult):
            if m.given:  # the result of a call the case's conversation gave
                error = "error " if m.is_error else ""
                lines.append(f"  -> {error}given result: {truncate(m.text, MAX_ITEM_CHARS)}")
            continue  # the trial's own results are shown with their calls below
        lines.extend(_said(m))
        if not isinstance(m, AssistantMessage):
            continue
        for given in m.tool_calls if m.given else ():
            lines.append(f"[given call] {given.name}({truncate(given.arguments, MAX_ITEM_CHARS)})")
        for own in () if m.given else m.tool_calls:
            shown.add(own.id)
            c = calls.get(own.id)
            if c is not None:
                _call_lines(c, lines)
    for c in rec.calls:
        if c.id not in shown:
            _call_lines(c, lines)
    if rec.log:
        lines.append(f"[program log] {truncate(rec.log, MAX_ITEM_CHARS)}")
    if rec.error:
        lines.append(f"[error] {truncate(rec.error, MAX_ITEM_CHARS)}")
    lines.append(f"[output] {final_answer_text(rec, MAX_ITEM_CHARS)}")
    for f in t.failures:
        lines.append(f"[failure] {describe_failure(f)}")
    for check in () if t.failures else t.checks:  # a failed check's failure, listed above, says it
        if not check.passed:
            extra = f": {check.detail}" if check.detail else ""
            why = f" (judge: {check.rationale})" if check.rationale else ""
            lines.append(f"[check failed] {check.kind} score {check.score:.2f}{extra}{why}")
    return lines


def _said(m: SystemMessage | UserMessage | AssistantMessage) -> list[str]:
    """What a message said: its thinking, then its text (a reply cut at its token limit says so)."""
    lines = []
    thinking = m.thinking if isinstance(m, AssistantMessage) else ""
    if thinking:
        lines.append(f"[{m.role} thinking] {truncate(thinking, MAX_ITEM_CHARS)}")
    cut = m.finish_reason if isinstance(m, AssistantMessage) else ""
    label = f"{m.role}, cut at the token limit ({cut})" if cut else m.role
    if m.content or cut:
        lines.append(f"[{label}] {truncate(m.content, MAX_ITEM_CHARS)}")
    return lines


def _call_lines(c: Any, lines: list[str]) -> None:
    args = json_text(c.arguments) if c.arguments is not None else c.raw_arguments
    line = f"[call] {c.name}({truncate(args, MAX_ITEM_CHARS)})"
    if c.arguments_error:
        line += f" invalid arguments: {c.arguments_error}"
    lines.append(line)
    if c.mock == "none":
        lines.append("  -> not answered")
        return
    result = c.result if isinstance(c.result, str) else json_text(c.result)
    lines.append(f"  -> {_answered_by(c.mock, c.is_error)}{truncate(result, MAX_ITEM_CHARS)}")


# Who answered a call, by its mock kind (else "<kind> mock"): "matched mock: {...}", and for an error
# result "error from the mock: ..." (an error rule's result is always one).
_ANSWERED_BY = {"unmocked": "unmocked default", "live": "live server", "program": "the program's own code"}
_ERROR_FROM = {"error": "the mock", "unmocked": "the unmocked default", "live": "the live server"}


def _answered_by(kind: str, is_error: bool) -> str:
    """The words before a call's result: who answered it, and whether with an error (an unknown
    tool's error says so itself)."""
    if kind == "unknown_tool":
        return ""
    if is_error:
        return f"error from {_ERROR_FROM.get(kind, _ANSWERED_BY.get(kind, f'the {kind} mock'))}: "
    return f"{_ANSWERED_BY.get(kind, f'{kind} mock')}: "


def final_answer_text(record: RunRecord, limit: int) -> str:
    """A trial's final answer as reports show it, or why there is none (a trial that could not be
    evaluated says why in its error)."""
    if record.answered or record.output or record.error:
        return truncate(record.output, limit)
    return f"(no final answer: the episode ended at {record.stop_reason})"
