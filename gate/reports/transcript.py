"""A case's transcript in plain text, as the JUnit ``<system-out>`` and the Markdown report show it:
every trial's messages, calls with their arguments and mock results, the final answer (or why there
is none) and the failures. Pure."""

from __future__ import annotations

from typing import Any

from gate.reports.failure_details import describe_failure
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
        role = m.get("role", "?")
        ids = m.get("calls")
        if role == "tool":
            if ids:
                shown.update(ids)
            if m.get("given"):  # the result of a call the case's conversation gave
                error = "error " if m.get("is_error") else ""
                lines.append(
                    f"  -> {error}given result: {truncate(str(m.get('content', '')), MAX_ITEM_CHARS)}"
                )
            continue  # the trial's own results are shown with their calls below
        thinking = m.get("thinking")
        if thinking:
            lines.append(f"[{role} thinking] {truncate(str(thinking), MAX_ITEM_CHARS)}")
        cut = m.get("finish_reason")
        label = f"{role}, cut at the token limit ({cut})" if cut else role
        content = m.get("content")
        if content or cut:
            lines.append(f"[{label}] {truncate(str(content or ''), MAX_ITEM_CHARS)}")
        for given in m.get("tool_calls") or ():
            arguments = truncate(str(given.get("arguments", "")), MAX_ITEM_CHARS)
            lines.append(f"[given call] {given.get('name', '')}({arguments})")
        if ids:
            for call_id in ids:
                shown.add(call_id)
                c = calls.get(call_id)
                if c is not None:
                    _call_lines(c, lines)
    for c in rec.calls:
        if c.id not in shown:
            _call_lines(c, lines)
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
    answered = "" if c.mock == "unknown_tool" else f"{'error ' if c.is_error else ''}{c.mock} mock: "
    if c.mock == "program":
        answered = f"{'error ' if c.is_error else ''}the program's own code: "
    lines.append(f"  -> {answered}{truncate(result, MAX_ITEM_CHARS)}")  # an unknown tool's error says so


def final_answer_text(record: RunRecord, limit: int) -> str:
    """A trial's final answer as reports show it, or why there is none (a trial that could not be
    evaluated says why in its error)."""
    if record.answered or record.output or record.error:
        return truncate(record.output, limit)
    return f"(no final answer: the episode ended at {record.stop_reason})"
