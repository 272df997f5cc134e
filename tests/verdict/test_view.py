"""What every output shows of a conclusion: the verdict is told in the same words by the Markdown and
HTML reports, the console, the JUnit file, the JSON results and the action's annotations."""

from __future__ import annotations

import html
import json
from dataclasses import replace

from gate.github.actions_env import annotations_for
from gate.reports import console, junit, markdown
from gate.reports import html as html_report
from gate.results_json.codec import to_json
from gate.verdict.conclusion import Conclusion, conclude
from gate.verdict.policy import GatePolicy
from gate.verdict.view import NO_SUITE_VERDICT, summary_line
from tests.results_factory import case, failure, run, simple, suite


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
