"""The verdict: the gate's policy applied to the results, the comparison with a baseline, which cases
a run selects and how they are sharded. Pure."""
