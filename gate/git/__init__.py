"""The git edge: change detection for ``--changed-since``, the merge base's tree for
``--baseline auto``, and what the checkout holds (for the trust decision)."""

__all__ = ["base_tree", "checkout", "detection", "installed", "repository", "tracked"]
