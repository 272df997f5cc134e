"""pass^k: tau-bench's unbiased estimator C(c,k)/C(n,k) per case, the mean over cases per suite,
and its view in the Markdown report."""

from __future__ import annotations

from math import comb

import pytest

from gate.reports.markdown import render
from gate.scoring.pass_hat_k import pass_hat_k, suite_pass_hat_k
from gate.verdict.conclusion import conclude
from tests.results_factory import run, suite, trials_case


def test_estimator_is_the_ratio_of_binomials():
    assert pass_hat_k(4, 3, 1) == 0.75
    assert pass_hat_k(4, 3, 2) == comb(3, 2) / comb(4, 2) == 0.5
    assert pass_hat_k(4, 3, 4) == 0.0
    assert pass_hat_k(4, 4, 4) == 1.0
    with pytest.raises(ValueError):
        pass_hat_k(3, 2, 4)


def test_suite_view_is_the_mean_over_cases_with_enough_trials_errors_left_out():
    cases = [trials_case("a", "pppp"), trials_case("b", "ppfp"), trials_case("c", "pfe")]
    view = suite_pass_hat_k(cases)
    assert view[1] == ((1.0 + 0.75 + 0.5) / 3, 3)
    assert view[2] == ((1.0 + 0.5 + 0.0) / 3, 3)
    assert view[4] == ((1.0 + 0.0) / 2, 2)
    assert suite_pass_hat_k([trials_case("one", "p")]) == {}


def test_the_markdown_report_shows_pass_hat_k_when_cases_ran_several_trials():
    results = run(suite("shop", [trials_case("a", "ppp"), trials_case("b", "pfp")]))
    text = render(conclude(results))
    assert "pass^k" in text
    assert "k=2: 0.667 (2 cases)" in text
    single = run(suite("shop", [trials_case("a", "p")]))
    assert "pass^k" not in render(conclude(single))
