"""Fixes the gate has verified (DESIGN.md section 11), the pure core of ``run --suggest-fixes``: which
definitions the advice implicates, their spans in the files, the fix model's request, the refusals,
a candidate applied in memory, which cases verify it and what they say, and a verified edit as a
patch and a suggested change. Its I/O is ``gate.run.fix_search``."""

__all__ = ["apply", "patch", "proposal", "screening", "spans", "suggestions", "targets", "verification"]
