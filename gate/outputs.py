"""Write every requested output of a run (JSON results, JUnit XML, Markdown) and return the verdict.

The one place of the report side that writes files: parent directories are created, and each file
is written atomically (a temporary file in the same directory, then ``os.replace``), so a reader
never sees half a report.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from gate.results import RunResults
from gate.verdict import GatePolicy, Verdict, decide

MARKDOWN_LIMIT = 1024 * 1024  # the job summary limit; the PR comment is rendered separately (64 KiB)


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, creating parent directories."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=str(target.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_outputs(
    results: RunResults,
    *,
    json_path: str | Path | None = None,
    junit_path: str | Path | None = None,
    markdown_path: str | Path | None = None,
    baseline: RunResults | None = None,
    policy: GatePolicy | None = None,
    marker: str = "default",
    markdown_limit: int = MARKDOWN_LIMIT,
    full_report_hint: str = "",
) -> Verdict:
    """Decide the verdict and write the requested files; returns the verdict.

    The Markdown file is the job-summary form (``markdown_limit``, 1 MiB by default)."""
    from gate.report_json import gc_paused

    with gc_paused():  # rendering allocates millions of short-lived containers and no cycles
        return _write_outputs(
            results,
            json_path,
            junit_path,
            markdown_path,
            baseline,
            policy or GatePolicy(),
            marker,
            markdown_limit,
            full_report_hint,
        )


def _write_outputs(
    results: RunResults,
    json_path: str | Path | None,
    junit_path: str | Path | None,
    markdown_path: str | Path | None,
    baseline: RunResults | None,
    policy: GatePolicy,
    marker: str,
    markdown_limit: int,
    full_report_hint: str,
) -> Verdict:
    comparison = None
    if baseline is not None:
        from gate.baseline import compare

        comparison = compare(results, baseline)
    verdict = decide(results, policy, comparison)
    if json_path is not None:
        from gate.report_json import to_json

        write_text_atomic(json_path, to_json(results))
    if junit_path is not None:
        from gate.report_junit import render as render_junit

        write_text_atomic(junit_path, render_junit(results, verdict))
    if markdown_path is not None:
        from gate.analysis import analyse
        from gate.report_markdown import render as render_markdown

        text = render_markdown(
            results,
            verdict,
            analyse(results),
            comparison,
            limit=markdown_limit,
            full_report_hint=full_report_hint,
            marker=marker,
        )
        write_text_atomic(markdown_path, text)
    return verdict
