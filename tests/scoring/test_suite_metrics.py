"""A suite's metrics (DESIGN.md section 3): precision, recall, F1, argument accuracy, output-check
score and latency over its evaluated cases, tokens and cost over every trial it ran, the mean score of
each kind of check and the mean case score, in the results file and the Markdown report."""

from __future__ import annotations

import dataclasses
import json

from gate.results.outcomes import CheckScore, Metrics
from gate.results_json.codec import parse_results, to_json
from gate.scoring.suite_metrics import check_scores, suite_metrics
from tests.results_factory import case, run, suite, trial


def _trial(status: str, *checks: tuple[str, float], f1: float = 1.0, tokens: int = 10, index: int = 0):
    scores = [CheckScore(kind, score, score >= 1.0, kind) for kind, score in checks]  # type: ignore[arg-type]
    metrics = Metrics(f1=f1, output_score=0.5, input_tokens=tokens, output_tokens=tokens, cost_usd=0.01)
    return trial(
        status, index=index, checks=scores, metrics=metrics, score=1.0 if status == "passed" else 0.0
    )


def _case(case_id: str, status: str, *trials, f1: float):
    made = case(case_id, status, trials=trials)
    return dataclasses.replace(made, metrics=Metrics(f1=f1, output_score=0.5))


def _cases():
    ranked = (
        _trial("passed", ("ranking", 1.0), ("criteria", 1.0)),
        _trial("passed", ("ranking", 0.5), index=1),
    )
    judged = (_trial("failed", ("criteria", 0.4), f1=0.5), _trial("error", ("criteria", 0.0), index=1))
    return [
        _case("ranked", "passed", *ranked, f1=1.0),
        _case("judged", "failed", *judged, f1=0.5),
        _case("broken", "error", _trial("error", ("ranking", 0.0), tokens=7), f1=0.0),
        case("skipped", "skipped"),
    ]


def test_the_mean_score_of_each_kind_of_check_leaves_errored_trials_out():
    ranked, judged, _, _ = _cases()
    assert check_scores(ranked.trials) == {"ranking": 0.75, "criteria": 1.0}
    assert check_scores(judged.trials) == {"criteria": 0.4}


def test_a_suites_metrics_are_over_its_evaluated_cases_and_spend_over_every_trial():
    m = suite_metrics(_cases())
    assert m.cases == 2  # the error and the skip are left out of the means
    assert (m.f1, m.output_score, m.score) == (0.75, 0.5, 0.5)
    assert m.check_scores == {"ranking": 0.75, "criteria": 0.7}  # (1.0 + 0.4) / 2: one each case
    assert (m.input_tokens, m.output_tokens) == (47, 47)  # every trial was paid for, the errored too
    assert m.cost_usd == 0.05


def test_the_results_file_and_the_markdown_report_carry_them():
    from gate.reports.markdown import render
    from gate.verdict.conclusion import conclude

    results = run(suite("s", _cases()))
    data = json.loads(to_json(results))
    written = data["suites"][0]
    assert written["metrics"]["check_scores"] == {"ranking": 0.75, "criteria": 0.7}
    assert (written["metrics"]["f1"], written["metrics"]["score"]) == (0.75, 0.5)
    assert written["cases"][0]["check_scores"] == {"ranking": 0.75, "criteria": 1.0}
    assert parse_results(data) == results  # derived figures: read back, the results are the same
    markdown = render(conclude(results))
    assert (
        "- s: F1 0.75 · output checks 0.50 · mean case score 0.50 · "
        "by kind of check: ranking 0.75, criteria 0.70" in markdown
    )
