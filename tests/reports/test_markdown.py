from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from gate.files.results_file import load_results
from gate.reports.markdown import render
from gate.verdict.conclusion import conclude
from gate.verdict.view import summary_line
from tests.results_factory import call, case, failure, record, run, simple, suite

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def golden_markdown(limit: int = 65536, **kwargs) -> str:
    results = load_results(GOLDEN / "results.json")
    return render(conclude(results, load_results(GOLDEN / "baseline.json")), limit=limit, **kwargs)


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing: run with UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs from the golden file (UPDATE_GOLDEN=1 to accept)"
    )


def test_markdown_matches_golden():
    check_golden("report.md", golden_markdown())


def test_truncated_markdown_matches_golden():
    text = golden_markdown(
        limit=6000, full_report_hint="the job summary and the tool-eval-gate-report artifact"
    )
    assert len(text) <= 6000
    check_golden("report_truncated.md", text)


def outside_code(text: str) -> str:
    """The text with fenced code blocks and inline code spans removed (where HTML would be live)."""
    text = re.sub(r"^(`{3,})[^\n]*\n.*?^\1\n", "", text, flags=re.S | re.M)
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", text)


def test_untrusted_output_cannot_break_the_report():
    text = golden_markdown()
    assert text.startswith("<!-- tool-eval-gate:default -->\n")
    assert text.count("<!-- tool-eval-gate") == 1  # the forged marker is neutralised everywhere
    live = outside_code(text)
    assert "<img" not in live and "<script" not in live and "@octocat" not in live and "@org/team" not in live
    assert "@everyone" not in live and "![pixel]" not in live
    # our <details> blocks stay balanced: model text never opens or closes one outside code
    assert live.count("<details") == live.count("</details>")
    assert "\x00" not in text and "\x1b" not in text
    # every code fence is closed
    fences = re.findall(r"^(`{3,})", text, flags=re.M)
    assert len(fences) % 2 == 0


def test_report_content():
    text = golden_markdown()
    assert "❌ tool-eval-gate failed" in text
    assert "95% CI" in text and "threshold" in text
    assert (
        text.index("### Changes against the baseline")
        < text.index("### Suites")
        < text.index("### Failure patterns")
    )
    changes = text[text.index("### Changes") : text.index("### Suites")]
    assert changes.index("regressed") < changes.index("fixed")
    assert "`weather/oslo-rain`" in changes
    assert "| `get_weather` | `get_forecast` | 1 |" in text  # confusion table
    assert "`tools/weather.json:32`" in text  # recommendation on the days parameter line
    assert "`prompts/travel.md:3`" in text
    # Failed cases: the regression first, then what fails now only, then what failed on the base too.
    failed = text[text.index("### Failed cases") :]
    summaries = [s for s in re.findall(r"<summary>(.*?)</summary>", failed) if s != "Transcript"]
    assert summaries[:5] == [
        "❌ <code>weather/oslo-rain</code>: wrong tool · 🔴 regressed",
        "❌ <code>travel/needs-date</code>: judge failed",
        "⚠️ <code>weather/berlin-down</code>: error: provider failed: 503",
        "❌ <code>weather/rome-week</code>: type error · failed on the base too",  # ties: as the run
        "❌ <code>travel/ghost-tool</code>: hallucinated tool · failed on the base too",  # lists them
    ]


def test_incomplete_warning_and_pass_icon():
    results = run(simple(5), complete=False, incomplete_reason="interrupted by SIGTERM")
    text = render(conclude(results))
    assert "evaluation incomplete" in text and "interrupted by SIGTERM" in text
    ok = run(simple(5))
    assert "✅ tool-eval-gate passed" in render(conclude(ok), marker="pr-7")
    assert render(conclude(ok), marker="pr-7").startswith("<!-- tool-eval-gate:pr-7 -->")


def big_results(n: int):
    big_output = "x" * 3000
    cases = [
        case(
            f"c{i:05d}",
            "failed" if i % 2 else "passed",
            line=i + 1,
            failures=[
                failure("value_error", "days wrong", tool="f", argument=f"a{i % 40}", expected=i, actual=-i)
            ],
            rec=record(calls=[call("f", {"a": i})], output=big_output),
        )
        for i in range(n)
    ]
    return run(suite("big", cases))


@pytest.mark.parametrize("limit", [65536, 20000, 3000])
def test_long_reports_are_cut_to_the_limit_least_important_first(limit):
    results = big_results(400)
    conclusion = conclude(results)
    text = render(conclusion, limit=limit, full_report_hint="artifact `report`")
    assert len(text) <= limit
    assert text.startswith("<!-- tool-eval-gate:default -->")
    assert "shortened to fit" in text and "artifact" in text
    assert "Passed and skipped cases" not in text
    assert "Transcript" not in text
    assert text.count("<details") == text.count("</details>")
    assert "FAILED" in summary_line(conclusion.verdict) and "Pass rate" in text


def test_report_within_the_limit_is_not_cut():
    results = big_results(6)
    text = render(conclude(results), limit=1_000_000)
    assert "shortened" not in text and "Passed and skipped cases" in text and "Transcript" in text


def test_worst_cases_are_kept_when_blocks_are_dropped():
    cases = [
        case(
            f"c{i}",
            "failed",
            failures=[failure("missing_call", tool="t")] * (1 + (i == 7)),
            rec=record(output="y" * 2000),
        )
        for i in range(30)
    ]
    results = run(suite("s", cases))
    text = render(conclude(results), limit=12000)
    assert len(text) <= 12000
    assert "<code>s/c7</code>" in text  # two failures: the worst case comes first
    assert "were left out" in text


def test_the_calls_table_shows_the_expectation_the_trial_was_scored_against():
    # The trial is scored against the alternative (search), not the main expectation (get_weather):
    # the table pairs the search call with the alternative's expected search call. And `args: {}`
    # (no arguments) is not shown as "any arguments".
    from gate.scoring.reducers import case_result
    from gate.scoring.trial import score_trial
    from tests import builders as b

    alternative = b.calls_expectation(b.ecall("search", {"query": "paris weather"}))
    expect = b.expectation(b.ecall("get_weather", {"city": "Paris"}), alternatives=(alternative,))
    c = b.case(expect=expect)
    s = b.suite(c)
    trial = score_trial(s, c, b.record(b.call("search", {"query": "rome weather"})), 0, {})
    assert trial.alternative == 0
    text = render(conclude(run(suite("weather", [case_result(s, c, [trial])]))))
    (row,) = _calls_rows(text)
    assert row.startswith('| `search` `{"query": "paris weather"}` | `search` `{"query": "rome weather"}`')
    assert "get_weather" not in row and "Scored against alternative 1:" in text

    none = b.case(expect=b.expectation(b.ecall("get_weather", {}, allow_extra_args=False)))
    s = b.suite(none)
    trial = score_trial(s, none, b.record(b.call("get_weather", {"city": "Paris"})), 0, {})
    text = render(conclude(run(suite("weather", [case_result(s, none, [trial])]))))
    (row,) = _calls_rows(text)
    assert row.startswith("| `get_weather` _(no arguments)_ |")


def _calls_rows(text: str) -> list[str]:
    """The rows of the first expected-vs-actual calls table."""
    lines = text.splitlines()
    rows = lines[lines.index("| expected call | actual call |") + 2 :]
    return rows[: next(i for i, line in enumerate(rows) if not line.startswith("|"))]
