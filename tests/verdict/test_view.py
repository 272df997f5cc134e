"""What every output shows of a conclusion: the verdict is told in the same words by the Markdown and
HTML reports, the console, the JUnit file, the JSON results and the action's annotations."""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace
from typing import Any

from gate.github.actions_env import annotations_for
from gate.reports import console, junit, markdown
from gate.reports import html as html_report
from gate.results.outcomes import CaseResult, Failure, RunResults
from gate.results_json.codec import to_json
from gate.verdict.conclusion import Conclusion, conclude
from gate.verdict.policy import GatePolicy
from gate.verdict.view import NO_SUITE_VERDICT, summary_line
from tests.results_factory import case, failure, run, simple, suite, trials_case


def _data(page: str) -> Any:
    """The HTML report's data: every case, in the order its list shows them."""
    block = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    assert block is not None
    return json.loads(block.group(1))


def _outputs(conclusion: Conclusion) -> dict[str, str]:
    return {
        "markdown": markdown.render(conclusion),
        "html": html.unescape(html_report.render(conclusion)),
        "console": "\n".join(console.closing_lines(conclusion, [])),
        "junit": html.unescape(junit.render(conclusion)),
        "annotations": "\n".join(annotations_for(conclusion)).replace("%25", "%"),
    }


def test_a_failed_run_is_titled_counted_and_rated_alike_everywhere():
    results = run(simple(9, 1, name="a", threshold=0.9), simple(7, 3, name="b", threshold=0.8))
    conclusion = conclude(results)
    words = conclusion.view.verdict
    assert (words.mood, words.title, words.reasons_label) == (
        "failed",
        "tool-eval-gate failed",
        "Why it failed",
    )
    assert words.summary == summary_line(conclusion.verdict)
    assert words.summary.startswith("tool-eval-gate FAILED: 16/20 passed (80.0%, 95% CI ")
    rate = words.pass_rate
    assert rate is not None and (rate.rate, rate.threshold, rate.own_thresholds) == ("80.0%", "90.0%", True)
    out = _outputs(conclusion)
    for name in ("markdown", "html"):
        assert words.title in out[name] and words.counts in out[name], name
        assert f"({rate.cases}) · threshold" in out[name], name
        assert "each suite against its own threshold" in out[name], name  # 90% is the strictest's
        assert f"{words.reasons_label}:" in out[name], name
    for name in ("console", "junit"):
        assert words.summary in out[name], name
    assert f"{words.title} (pass rate 80.0%)" in out["annotations"]
    assert json.loads(to_json(results, None, conclusion.verdict))["verdict"]["summary"] == words.summary


def test_a_run_that_stopped_early_says_so_in_the_same_sentence():
    results = run(simple(3, 0), complete=False, incomplete_reason="interrupted by the user")
    conclusion = conclude(results)
    words = conclusion.view.verdict
    assert (words.mood, words.title) == ("incomplete", "tool-eval-gate: evaluation incomplete")
    assert words.incomplete == (
        "The evaluation is incomplete: interrupted by the user. "
        'Cases that did not run are errors marked "not run".'
    )
    out = _outputs(conclusion)
    assert words.incomplete in out["markdown"] and words.incomplete in out["html"]
    assert f"<title>{words.title}</title>" in out["html"]
    assert words.summary.startswith("tool-eval-gate INCOMPLETE: 3/3 passed")


def test_a_run_with_nothing_counted_says_no_cases_were_evaluated():
    conclusion = conclude(run(simple(skipped=2)))
    words = conclusion.view.verdict
    assert words.pass_rate is None and "no cases evaluated" in words.summary
    out = _outputs(conclusion)
    assert "**No cases evaluated.**" in out["markdown"] and "No cases evaluated." in out["html"]


def test_a_suite_beyond_the_error_budget_has_no_verdict_in_every_report():
    results = run(
        suite("flaky-api", [case("a"), case("b", "error"), case("c", "error")]),
        suite("ok", [case("d")]),
    )
    conclusion = conclude(results, policy=GatePolicy(max_error_rate=0.1))
    first, second = conclusion.view.suites
    assert (first.mood, second.mood) == ("incomplete", "passed")
    assert first.rate == f"33.3% / 90.0% ({NO_SUITE_VERDICT})" and second.rate == "100.0% / 90.0%"
    assert conclusion.view.verdict.mood == "incomplete"
    out = _outputs(conclusion)
    assert f"| ⚠️ `flaky-api` | 3 | 1 | 0 | 2 | 0 | {first.rate} |" in out["markdown"]
    assert '<tr class="incomplete"><td><code>flaky-api</code>' in out["html"] and first.rate in out["html"]
    assert "ERR  flaky-api: 33.3% (1/3), threshold 90.0%" in out["console"]
    assert out["console"].count(NO_SUITE_VERDICT) == 1


def test_the_suites_metrics_are_measured_once_for_every_report():
    results = run(suite("s", [case("a"), case("b", "failed", failures=[failure("wrong_tool", tool="t")])]))
    conclusion = conclude(results)
    (line,) = conclusion.view.suites
    assert line.metrics.cases == 2 and line.metrics.precision == 0.75
    assert conclusion.view is conclusion.view  # drawn once per conclusion
    assert replace(conclusion).view == conclusion.view  # and the same for the same conclusion


def test_pass_hat_k_is_measured_once_and_the_markdown_shows_the_views():
    results = run(suite("s", [trials_case("a", "ppf"), trials_case("b", "ppp")]))
    conclusion = conclude(results)
    (line,) = conclusion.view.suites
    shown = {k: (round(value, 3), n) for k, (value, n) in line.pass_hat_k.items()}
    assert shown == {1: (0.833, 2), 2: (0.667, 2), 3: (0.5, 2)}
    assert "- s: k=1: 0.833 (2 cases) · k=2: 0.667 (2 cases) · k=3: 0.500 (2 cases)" in markdown.render(
        conclusion
    )


def _failing_run() -> tuple[RunResults, RunResults]:
    """A pull request's head and base: in ``s``, ``old`` failed on the base too (score 0), ``err``
    could not be evaluated where the base passed, ``broke`` regressed (score 0.5), ``added`` is new
    (score 0.5); in ``t``, ``tie`` failed on the base too (score 0, as ``old``) and ``known`` is a
    known-flaky case that failed, beside a passing ``fine``."""
    wrong = [failure("wrong_tool", "called the wrong tool", tool="t")]

    def failed(case_id: str, suite_name: str, score: float, failures: list[Failure]) -> CaseResult:
        return replace(case(case_id, "failed", suite=suite_name, failures=failures), score=score)

    head = run(
        suite(
            "s",
            [
                failed("old", "s", 0.0, wrong),
                case("err", "error", suite="s"),
                failed("broke", "s", 0.5, wrong),
                failed("added", "s", 0.5, wrong),
            ],
        ),
        suite(
            "t",
            [
                failed("tie", "t", 0.0, wrong),
                replace(failed("known", "t", 0.0, wrong), non_gating="flaky upstream"),
                case("fine", suite="t"),
            ],
        ),
    )
    base = run(
        suite("s", [failed("old", "s", 0.0, wrong), case("err", suite="s"), case("broke", suite="s")]),
        suite("t", [failed("tie", "t", 0.0, wrong), case("known", suite="t"), case("fine", suite="t")]),
    )
    return head, base


def _ids_in(text: str, ids: list[str]) -> list[str]:
    """``ids`` in the order they first appear in ``text`` (as ``/id``, `` id `` or ``id:``)."""

    def first(case_id: str) -> int:
        marks = (f"/{case_id}<", f" {case_id} ", f" {case_id}:", f"/ {case_id} ")
        return min((p for p in (text.find(m) for m in marks) if p >= 0), default=len(text))

    return sorted(ids, key=first)


def test_every_output_lists_the_failed_cases_in_one_order_regressions_first():
    head, base = _failing_run()
    conclusion = conclude(head, base)
    order = conclusion.view.cases
    expected = ["broke", "added", "err", "old", "tie"]  # regressed; now only (failed, then error); both
    assert [c.case_id for c in order.failing] == expected
    assert [c.case_id for c in order.known_flaky] == ["known"]
    assert [order.group(c) for c in order.failing] == ["regressed", "new", "new", "old", "old"]
    out = _outputs(conclusion)
    failed = out["markdown"][out["markdown"].index("### Failed cases") :]
    assert _ids_in(failed, [*expected, "known"]) == [*expected, "known"]
    console_part = out["console"][out["console"].index("failed cases (5: 1 regressed, 2 new, 2 failed") :]
    assert _ids_in(console_part, [*expected, "known"]) == [*expected, "known"]
    cases = _data(html_report.render(conclusion))["cases"]
    assert [c["id"] for c in cases] == [*expected, "known", "fine"]
    errors = [a for a in annotations_for(conclusion) if a.startswith("::error ")]
    assert _ids_in("\n".join(errors), ["broke", "added", "old", "tie"]) == ["broke", "added", "old", "tie"]


def test_without_a_base_side_the_worst_come_first_and_ties_keep_the_runs_order():
    head, _ = _failing_run()
    conclusion = conclude(head)
    order = conclusion.view.cases
    expected = ["old", "tie", "broke", "added", "err"]  # score 0 (as run), then 0.5, then the error
    assert [c.case_id for c in order.failing] == expected and not order.groups
    out = _outputs(conclusion)
    failed = out["markdown"][out["markdown"].index("### Failed cases") :]
    assert _ids_in(failed, expected) == expected
    console_part = out["console"][out["console"].index("failed cases (5, worst first)") :]
    assert _ids_in(console_part, expected) == expected
    assert [c["id"] for c in _data(html_report.render(conclusion))["cases"]][:5] == expected


def test_a_case_with_more_failures_comes_before_one_as_bad_with_fewer():
    one = [failure("wrong_tool", "called the wrong tool", tool="t")]
    two = [*one, failure("missing_call", "no call")]
    results = run(suite("s", [case("a", "failed", failures=one), case("b", "failed", failures=two)]))
    assert [c.case_id for c in conclude(results).view.cases.failing] == ["b", "a"]


def test_the_html_lists_the_rest_fixed_and_flaky_first_removed_before_the_passed():
    head = run(
        suite(
            "s",
            [
                case("passing"),
                case("skipped", "skipped"),
                case("wobbly", flaky=True),
                case("repaired"),
                case("fresh"),
            ],
        )
    )
    base = run(
        suite(
            "s",
            [
                case("passing"),
                case("skipped", "skipped"),
                case("wobbly"),
                case("repaired", "failed", failures=[failure("wrong_tool", "x", tool="t")]),
                case("gone"),
            ],
        )
    )
    conclusion = conclude(head, base)
    assert conclusion.view.cases.every == tuple(
        ("s", i) for i in ("repaired", "wobbly", "fresh", "gone", "passing", "skipped")
    )
    assert [c["id"] for c in _data(html_report.render(conclusion))["cases"]] == [
        "repaired",
        "wobbly",
        "fresh",
        "gone",
        "passing",
        "skipped",
    ]
