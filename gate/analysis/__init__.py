"""Failure-pattern analysis: the tables (counts by reason, confusion, failing arguments), what the
definitions already say, and the recommendations that point at the line to change. Pure."""

__all__ = ["analyse"]
