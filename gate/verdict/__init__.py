"""The verdict: the gate's policy applied to the results (what a verdict is: passed, failed,
incomplete), the comparison with a baseline, curtailed trials, the run's one conclusion and what
every output shows of it (its view). Pure."""

__all__ = ["baseline", "conclusion", "curtailment", "policy", "view"]
