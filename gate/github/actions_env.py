"""The GitHub Actions runner interface: step outputs, the job summary, workflow commands.

Formatting is pure (``annotation``, ``mask``, ``format_outputs``, ``annotations_for``); the two
writers (``set_outputs``, ``append_summary``) only append to the files the runner names in
``$GITHUB_OUTPUT`` and ``$GITHUB_STEP_SUMMARY``.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal, TextIO

from gate.errors import Problem
from gate.results.outcomes import REASON_TITLES, CaseResult
from gate.verdict.conclusion import Conclusion
from gate.verdict.policy import pct

Level = Literal["error", "warning", "notice"]

# GitHub shows at most this many annotations of each level per step; more are dropped silently.
MAX_ANNOTATIONS_PER_LEVEL = 10
# Notices for known-flaky (non-gating) cases: fewer, the step's own notices share the level with them.
MAX_CASE_NOTICES = 5
# The job summary of one step may hold at most 1 MiB.
SUMMARY_LIMIT_BYTES = 1024 * 1024
_SUMMARY_TRUNCATED = (
    "\n> **Note:** the summary was truncated to GitHub's 1 MiB limit; see the full report artifact.\n"
)


def escape_data(text: str) -> str:
    """Escape the message part of a workflow command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a property value (``file=``, ``title=``...) of a workflow command."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(
    level: Level,
    message: str,
    file: str | None = None,
    line: int | None = None,
    title: str | None = None,
    *,
    col: int | None = None,
) -> str:
    """A ``::error file=...,line=...,title=...::message`` workflow command (one line)."""
    props: list[str] = []
    if file:
        props.append(f"file={escape_property(file)}")
        if line:
            props.append(f"line={int(line)}")
            if col:
                props.append(f"col={int(col)}")
    if title:
        props.append(f"title={escape_property(title)}")
    head = f"::{level}"
    if props:
        head += " " + ",".join(props)
    return f"{head}::{escape_data(message)}"


def mask(value: str) -> str:
    """``::add-mask::`` command(s) hiding ``value`` in the log. A multi-line value is masked line by
    line as well as whole, because the runner matches masks line by line."""
    if not value:
        return ""
    commands = [f"::add-mask::{escape_data(value)}"]
    if "\n" in value or "\r" in value:
        for part in value.replace("\r", "\n").split("\n"):
            if part.strip():
                commands.append(f"::add-mask::{escape_data(part)}")
    return "\n".join(commands)


def _output_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def format_outputs(mapping: Mapping[str, object], delimiter: str | None = None) -> str:
    """The ``$GITHUB_OUTPUT`` text for ``mapping``, in the ``name<<DELIMITER`` form that is safe for
    any value (new lines included). The delimiter is random and checked not to occur in a value."""
    parts: list[str] = []
    for name, raw in mapping.items():
        if not name or "\n" in name or "<<" in name or "=" in name:
            raise ValueError(f"invalid output name {name!r}")
        value = _output_value(raw)
        token = delimiter or f"ghadelimiter_{secrets.token_hex(8)}"
        while token in value:
            token = f"ghadelimiter_{secrets.token_hex(8)}"
        parts.append(f"{name}<<{token}\n{value}\n{token}\n")
    return "".join(parts)


def set_outputs(mapping: Mapping[str, object], path: str | Path) -> None:
    """Append step outputs to the ``$GITHUB_OUTPUT`` file."""
    with open(path, "a", encoding="utf-8", newline="\n") as handle:
        handle.write(format_outputs(mapping))


def truncate_utf8(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` UTF-8 bytes, at a line end when one is near.

    Not ``gate.util.escape.truncate``: GitHub's step-summary limit counts bytes, not characters, the cut
    must not split a character or a Markdown line, and the caller appends its own note."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    cut = data[: max(max_bytes, 0)].decode("utf-8", "ignore")
    newline = cut.rfind("\n")
    if newline >= len(cut) // 2:
        cut = cut[: newline + 1]
    return cut


def append_summary(text: str, path: str | Path, limit: int = SUMMARY_LIMIT_BYTES) -> int:
    """Append Markdown to the ``$GITHUB_STEP_SUMMARY`` file without exceeding the per-step limit
    (what is already in the file counts). Too long a text is cut at a line end and ends with a note.
    Returns the number of bytes written."""
    target = Path(path)
    used = target.stat().st_size if target.exists() else 0
    room = limit - used
    if not text.endswith("\n"):
        text += "\n"
    if len(text.encode("utf-8")) > room:
        note_size = len(_SUMMARY_TRUNCATED.encode("utf-8")) + 1
        if room <= note_size:
            return 0
        text = truncate_utf8(text, room - note_size)
        text = (text if text.endswith("\n") else text + "\n") + _SUMMARY_TRUNCATED
    data = text.encode("utf-8")
    with open(target, "ab") as handle:
        handle.write(data)
    return len(data)


def _case_message(case: CaseResult) -> str:
    if case.status == "error":
        errors = [t.record.error for t in case.trials if t.status == "error" and t.record.error]
        return f"could not be evaluated: {errors[0]}" if errors else "could not be evaluated"
    failures = case.failures
    if not failures:
        return f"failed (score {case.score:.2f})"
    lines = [f"{REASON_TITLES.get(f.reason, f.reason)}: {f.message}" for f in failures[:5]]
    if len(failures) > 5:
        lines.append(f"... and {len(failures) - 5} more")
    return "\n".join(lines)


def _case_entries(conclusion: Conclusion) -> list[tuple[Level, str, str, int, str]]:
    """(level, title, file, line, message) for every failed, errored or flaky case, in the order the
    reports list them (``gate.verdict.view``: on a pull request the regressions first, then the worst
    first). A known-flaky (non-gating) case that did not pass is a notice, never an error: it does
    not gate."""
    cases = {(c.suite, c.case_id): c for s in conclusion.results.suites for c in s.cases}
    entries: list[tuple[Level, str, str, int, str]] = []
    for key in conclusion.view.cases.every:
        case = cases.get(key)
        if case is None:  # removed by the change: nothing to annotate
            continue
        name = f"{case.suite} / {case.case_id}"
        if case.non_gating is not None and case.status in ("failed", "error"):
            title = f"{name} did not pass (non-gating: not counted)"
            message = f"known flaky: {case.non_gating}\n{_case_message(case)}"
            entries.append(("notice", title, case.file, case.line, message))
        elif case.status == "failed":
            title = f"{name} failed" + (" (flaky)" if case.flaky else "")
            entries.append(("error", title, case.file, case.line, _case_message(case)))
        elif case.status == "error":
            entries.append(
                ("warning", f"{name}: evaluation error", case.file, case.line, _case_message(case))
            )
        elif case.flaky:
            passed = sum(1 for t in case.trials if t.status == "passed")
            message = f"passed overall but only {passed} of {len(case.trials)} trials passed"
            entries.append(("warning", f"{name} is flaky", case.file, case.line, message))
    return entries


def annotations_for(conclusion: Conclusion | None, problems: Sequence[Problem] = ()) -> list[str]:
    """Workflow commands for invalid suite files (errors) and failed cases (errors, in the reports'
    order: on a pull request the regressions first, then the worst first), evaluation errors and
    flaky cases (warnings), at most ``MAX_ANNOTATIONS_PER_LEVEL`` of
    each level, known-flaky (non-gating) cases that did not pass (notices, at most
    ``MAX_CASE_NOTICES``), then one notice with the verdict that says how many were left out."""
    errors: list[str] = []
    warnings: list[str] = []
    notices: list[str] = []
    for problem in sorted(problems):
        errors.append(
            annotation(
                "error",
                problem.message + (f" (fix: {problem.hint})" if problem.hint else ""),
                file=problem.path or None,
                line=problem.line or None,
                col=problem.column or None,
                title="invalid suite file" if problem.path else "invalid input",
            )
        )
    entries = _case_entries(conclusion) if conclusion is not None else []
    by_level = {"error": errors, "warning": warnings, "notice": notices}
    for level, title, file, line, message in entries:
        command = annotation(level, message, file=file or None, line=line or None, title=title)
        by_level[level].append(command)

    shown = [
        *errors[:MAX_ANNOTATIONS_PER_LEVEL],
        *warnings[:MAX_ANNOTATIONS_PER_LEVEL],
        *notices[:MAX_CASE_NOTICES],
    ]
    hidden_errors = max(0, len(errors) - MAX_ANNOTATIONS_PER_LEVEL)
    hidden_warnings = max(0, len(warnings) - MAX_ANNOTATIONS_PER_LEVEL)
    hidden_notices = max(0, len(notices) - MAX_CASE_NOTICES)
    notes: list[str] = []
    if hidden_errors or hidden_warnings or hidden_notices:
        more = f", {hidden_notices} more non-gating case(s)" if hidden_notices else ""
        notes.append(
            f"{hidden_errors} more error(s) and {hidden_warnings} more warning(s){more} are not shown as "
            "annotations (GitHub shows 10 of each per step); the job summary lists every case."
        )
    if conclusion is not None:
        rate = pct(conclusion.verdict.pass_rate)
        notes.insert(0, f"{conclusion.view.verdict.title} (pass rate {rate})")
    if notes:
        shown.append(annotation("notice", "\n".join(notes), title="tool-eval-gate"))
    return shown


def write_commands(commands: Iterable[str], stream: TextIO | None = None) -> None:
    """Print workflow commands, one per line, to ``stream`` (stdout by default)."""
    import sys

    out = stream if stream is not None else sys.stdout
    own = getattr(out, "write_command", None)  # past the stream's neutralising of commands
    for command in commands:
        if command and own is not None:
            own(command)
        elif command:
            print(command, file=out)
    flush = getattr(out, "flush", None)
    if flush is not None:
        flush()
