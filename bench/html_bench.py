"""The HTML report of a large pull-request check, rendered and opened in a real headless Chromium
(``bench/run.py --only html`` runs it as a child).

    python bench/html_bench.py --cases 10000 --out DIR

The head and the base side are ``score_bench``'s synthetic runs of the same generated suites (the
base side from other records, so cases regress and are fixed), concluded with the comparison. Timed:
rendering the page (``gate.reports.html.render``); in Chromium (``tests/support/browser.py``, the
machine's own browser through Playwright), opening the file until the page is ready (its 200 first
cases shown), pressing the "failed" filter until the list shows them, and opening a failed case until
its transcripts, head and base, are shown. Each browser figure is the median of three page loads.
Prints one JSON line.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))

from score_bench import load_workload, record_for, records, score_all  # noqa: E402


def _base_record(n: int, model: str):
    """The base side's record of case ``n``: the head's, except that half of the wrong values the head
    sends were right on the base side (regressions) and one case in 31 was wrong there (fixes)."""
    record = record_for(n, model)
    if n % 20 == 3 and record.calls:
        right = {"key": f"k{n}"}
        call = dataclasses.replace(record.calls[0], arguments=right, raw_arguments=json.dumps(right))
        return dataclasses.replace(record, calls=(call,))
    if n % 31 == 0:
        return record_for(3, model)  # asks for another key: wrong
    return record


def _in_browser(path: Path, loads: int) -> dict[str, float]:
    from tests.support.browser import chromium

    opened, filtered, case_shown = [], [], []
    with chromium() as browser:
        for _ in range(loads):
            page = browser.new_page()
            started = time.perf_counter()
            page.goto(path.as_uri())
            page.wait_for_selector("body[data-ready=true] details.case")
            opened.append(time.perf_counter() - started)
            started = time.perf_counter()
            page.click(".chip[data-kind=failed]")
            page.wait_for_function("document.querySelector('#count').textContent.indexOf('Showing') === 0")
            filtered.append(time.perf_counter() - started)
            started = time.perf_counter()
            page.locator("details.case > summary").first.click()
            page.wait_for_selector("details.case[open] .side .trial")
            case_shown.append(time.perf_counter() - started)
            page.close()
    return {
        "open_seconds": statistics.median(opened),
        "filter_seconds": statistics.median(filtered),
        "open_case_seconds": statistics.median(case_shown),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--suites", type=int, default=20)
    parser.add_argument("--loads", type=int, default=3)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    out = Path(args.out)

    from gate.reports.html import render
    from gate.verdict.conclusion import conclude

    suites = load_workload(out, args.cases, args.suites)
    head = score_all(suites, records(suites))
    base = score_all(suites, records(suites, _base_record))
    conclusion = conclude(head, base)
    started = time.perf_counter()
    page = render(conclusion)
    rendered = time.perf_counter() - started
    path = out / "report.html"
    path.write_text(page, encoding="utf-8")
    figures = _in_browser(path, args.loads)
    counts = conclusion.comparison.counts if conclusion.comparison is not None else {}
    print(
        json.dumps(
            {
                "cases": sum(len(s.cases) for s in head.suites),
                "regressed": counts.get("regressed", 0),
                "fixed": counts.get("fixed", 0),
                "render_seconds": rendered,
                "html_bytes": path.stat().st_size,
                **figures,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
