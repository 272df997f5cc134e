"""Statistics for the gate: the Wilson score interval of a pass rate and a one-sided significance
test for regressions between a base and a head run with several trials (Fisher's exact test).

Pure Python (``math`` and ``fractions``): no scipy. The Fisher test is computed in exact arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction

Z95 = 1.959964


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``successes`` out of ``n`` (95% for the default ``z``).

    ``n == 0`` gives the uninformative interval ``(0.0, 1.0)``. Bounds are clamped to [0, 1]."""
    if n <= 0:
        return (0.0, 1.0)
    if successes < 0 or successes > n:
        raise ValueError(f"successes must be within 0..{n}, got {successes}")
    p = successes / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def fisher_one_sided_exact(base_passed: int, base_n: int, head_passed: int, head_n: int) -> Fraction:
    """P-value of Fisher's exact test for "head passes less often than base", as an exact fraction.

    The 2x2 table is (base passed, base failed / head passed, head failed) with fixed margins; the
    p-value is the hypergeometric probability of head having ``head_passed`` or fewer passes."""
    for value, total in ((base_passed, base_n), (head_passed, head_n)):
        if total < 0 or value < 0 or value > total:
            raise ValueError("passed counts must lie within 0..n")
    passed_total = base_passed + head_passed
    n_total = base_n + head_n
    if n_total == 0:
        return Fraction(1)
    low = max(0, passed_total - base_n)
    ways = sum(
        math.comb(head_n, k) * math.comb(base_n, passed_total - k) for k in range(low, head_passed + 1)
    )
    return min(Fraction(1), Fraction(ways, math.comb(n_total, passed_total)))


def fisher_one_sided_p(base_passed: int, base_n: int, head_passed: int, head_n: int) -> float:
    """``fisher_one_sided_exact`` as a float, for reports."""
    return float(fisher_one_sided_exact(base_passed, base_n, head_passed, head_n))


def regression_significant(
    base_passed: int, base_n: int, head_passed: int, head_n: int, alpha: float | Fraction = 0.05
) -> bool:
    """Whether head's pass rate is significantly lower than base's (one-sided Fisher, level ``alpha``).

    Compared in exact arithmetic: ``alpha`` is read as the decimal it is written as (0.05 is 1/20),
    and p = alpha is not significant. A head rate that is not lower is never a regression. With no
    trials on either side nothing is significant."""
    if base_n == 0 or head_n == 0:
        return False
    if head_passed * base_n >= base_passed * head_n:
        return False
    level = alpha if isinstance(alpha, Fraction) else Fraction(repr(float(alpha)))
    return fisher_one_sided_exact(base_passed, base_n, head_passed, head_n) < level
