"""The commands, one module each with ``main(argv) -> int`` (``validate``, ``run``, ``report``, ``init``;
the CLI imports each on demand), what they share (``arguments``: the usage-error parser and option
types; ``plans``: ``RunPlan`` and ``ReportPlan``, what a ``run`` or ``report`` does, from the CLI or the
action's inputs, each field declared once as an option; ``options``: how those declarations become
the parser, the plan of a command line and the command line of a plan) and what ``init`` writes
(``starter``, its own)."""

__all__ = ["arguments", "init", "options", "plans", "report", "run", "validate"]
