"""Trust: which commands a run may start, which answers it may take, whether it can be verified, and
why (DESIGN sections 6 and 10). The facts are gathered at the edges (``facts``); one pure function
decides (``decision.decide``); every caller renders its value. What results were made for, which a job
that merges or publishes them checks (``made_for``)."""

__all__ = ["decision", "facts", "made_for"]
