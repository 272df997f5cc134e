from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.util.stats import (
    fisher_one_sided_exact,
    fisher_one_sided_p,
    regression_significant,
    wilson_interval,
)


def test_wilson_interval_matches_the_textbook_values():
    # 81 of 263 (Wilson 1927 style example; reference values from R's prop.test without correction)
    low, high = wilson_interval(81, 263)
    assert low == pytest.approx(0.2553, abs=1e-4)
    assert high == pytest.approx(0.3662, abs=1e-4)
    low, high = wilson_interval(9, 10)
    assert low == pytest.approx(0.5958, abs=1e-4)
    assert high == pytest.approx(0.9821, abs=1e-4)


def test_wilson_interval_edges():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and low == pytest.approx(0.7225, abs=1e-4)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


@given(st.integers(min_value=1, max_value=500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_contains_the_rate(pair):
    k, n = pair
    low, high = wilson_interval(k, n)
    assert 0.0 <= low <= k / n <= high <= 1.0


def test_fisher_exact_one_sided_p_values():
    # base 5/5 passed, head 0/5: only the observed table is as extreme: 1 / C(10, 5)
    assert fisher_one_sided_p(5, 5, 0, 5) == pytest.approx(1 / math.comb(10, 5))
    # base 10/10, head 7/10: P(head <= 7) with 17 passes among 20 = (C(10,7)C(10,10)) / C(20,17)
    assert fisher_one_sided_p(10, 10, 7, 10) == pytest.approx(120 / 1140)
    # equal tables are never evidence of a drop
    assert fisher_one_sided_p(3, 5, 3, 5) > 0.5


def test_fisher_is_exact_and_p_equal_to_alpha_is_not_significant():
    # 3/3 -> 0/3: p = C(3,0)*C(3,3)/C(6,3) = 1/20 exactly, which is alpha: not a significant regression.
    assert fisher_one_sided_exact(3, 3, 0, 3) == Fraction(1, 20)
    assert not regression_significant(3, 3, 0, 3, 0.05)
    assert not regression_significant(3, 3, 0, 3, Fraction(1, 20))
    assert regression_significant(3, 3, 0, 3, 0.051)
    assert regression_significant(4, 4, 0, 4)  # p = 1/70


def test_regression_significant():
    assert regression_significant(5, 5, 0, 5)
    assert not regression_significant(5, 5, 3, 5)  # p = 0.22
    assert not regression_significant(1, 1, 0, 1)  # one trial each: never significant
    assert not regression_significant(2, 5, 5, 5)  # head got better
    assert not regression_significant(0, 0, 0, 5)
    assert regression_significant(20, 20, 10, 20)
