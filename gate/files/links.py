"""Symlinks on the way into a directory of the repository: what the gate must not follow there.

A pull request can commit a symlink wherever it likes; a directory the gate writes to or trusts
(the action's output directory, the response cache) is therefore checked component by component from
the repository root down, without following anything.
"""

from __future__ import annotations

import os
from pathlib import Path


def first_link(path: Path, root: Path) -> Path | None:
    """The first symlink on the way from ``root`` (not included) down to ``path`` (included), when
    ``path`` lies below ``root`` (lexically, after making both absolute); None otherwise."""
    lexical, top = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    below = [p for p in (lexical, *lexical.parents) if top in p.parents]
    return next((p for p in reversed(below) if p.is_symlink()), None)
