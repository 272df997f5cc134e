"""Running the evaluation: every case and trial with bounded concurrency (``runner``), one trial of the
model agent (``agent_loop``), the judge, the response cache, progress, the request budget, the base
side of ``--baseline auto`` and the search for verified fixes (``fix_search``); agent programs run
through ``gate.programs``."""

__all__ = [
    "base_side",
    "cache",
    "curtailing",
    "fix_search",
    "program_tools",
    "progress",
    "runner",
    "tool_listing",
]
