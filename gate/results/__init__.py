"""What an evaluation produced: the typed messages of a conversation, the provider-neutral run record
of one trial and the results model (the failure taxonomy, trial, case, suite and run results) and what
the search for verified fixes found. Pure data, the contract between running, scoring, the verdict
and the reports."""

__all__ = ["fixes", "messages", "outcomes", "run_record", "settings"]
