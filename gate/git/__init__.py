"""The git edge: change detection for ``--changed-since`` and the merge base's tree for
``--baseline auto``."""

__all__ = ["base_tree", "detection", "installed", "repository", "tracked"]
