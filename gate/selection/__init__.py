"""Which cases a run evaluates: ``--case``, ``--tag``, ``--rerun-failed`` (``filters``) and the
deterministic ``--shard INDEX/COUNT`` split (``sharding``). Pure."""

__all__ = ["filters", "sharding"]
