"""Assembling a suite: a suite document becomes a ``Suite``: the builders, the context they share, the
tool formats, and (in ``checks``) every validate-time check. Pure: the files are read by
``gate.files``."""

__all__ = ["checks", "context", "shown_definitions", "suite_builder", "tool_formats", "tool_sources"]
