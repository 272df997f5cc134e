"""The verdict: the gate's policy applied to the results (what a verdict is: passed, failed,
incomplete), the comparison with a baseline, curtailed trials, the run's one conclusion. Pure."""

__all__ = ["baseline", "conclusion", "curtailment", "policy"]
