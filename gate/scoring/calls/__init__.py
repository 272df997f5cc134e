"""Scoring a trial's tool calls against one call expectation (DESIGN.md section 3), one phase a module.

- ``pairing``: expected calls expanded by ``times`` and paired with the actual calls by optimal
  assignment on argument agreement (an order-preserving pairing preferred among the optimal ones);
- ``counting``: each expected call got its number of calls (missing call, wrong tool, wrong count);
- ``prohibitions``: forbidden tools, ``no_calls``, ``extra_calls: forbid``, ``max_calls``;
- ``order``: ``in_order`` and ``strict``;
- ``metrics``: tool-name precision, recall and F1 over multisets, and argument accuracy;
- ``automatic``: the checks every call gets with no expectation written (hallucinated tool, invalid
  arguments JSON, schema violation);
- ``evaluation``: the phases composed into one ``CallEval`` per expectation, with a fast path for the
  common case.

Pure: judged argument matchers read verdicts obtained beforehand.
"""
