"""pass^k: the chance that k trials drawn from a case's n all pass, as tau-bench estimates it.

With c of n evaluated trials passed, the unbiased estimator is C(c, k) / C(n, k) (k <= n); a suite's
pass^k is the mean over the cases that ran at least k evaluated trials. pass^1 is the plain pass rate
of trials; pass^k falls as k grows when an agent is inconsistent. Pure: exact integer combinatorics.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from gate.results.outcomes import CaseResult


def pass_hat_k(n: int, c: int, k: int) -> float:
    """C(c, k) / C(n, k): the unbiased estimate that k of the n trials, drawn without replacement,
    all pass."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass^k needs 0 < k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    return comb(c, k) / comb(n, k)


def evaluated_trials(case: CaseResult) -> tuple[int, int]:
    """(n, c): evaluated trials (errors left out) and how many passed."""
    statuses = [t.status for t in case.trials if t.status != "error"]
    return len(statuses), statuses.count("passed")


def suite_pass_hat_k(cases: Sequence[CaseResult]) -> dict[int, tuple[float, int]]:
    """k -> (mean pass^k, number of cases it is over), for every k from 1 to the most trials a case ran;
    skipped and non-gating cases are left out. Empty when no case ran two trials or more."""
    counted = [evaluated_trials(c) for c in cases if c.status != "skipped" and c.non_gating is None]
    most = max((n for n, _ in counted), default=0)
    if most < 2:
        return {}
    view: dict[int, tuple[float, int]] = {}
    for k in range(1, most + 1):
        values = [pass_hat_k(n, c, k) for n, c in counted if n >= k]
        view[k] = (sum(values) / len(values), len(values))
    return view
