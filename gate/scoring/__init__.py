"""Scoring (DESIGN.md section 3): one trial scored (``trial``), its calls phase by phase (``calls``), the
final answer, final state and trajectory, the judge requests a trial needs, trials reduced to a case
result, pass^k. Pure."""

__all__ = ["judge_requests", "pass_hat_k", "reducers", "suite_metrics", "trial"]
