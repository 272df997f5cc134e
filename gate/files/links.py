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
    ``path`` lies below ``root``; None otherwise. The way is the one the system takes: a ``..`` after
    a symlink leaves the link's target, not the directory that holds the link, so every component
    before it is looked at as written (made absolute, not normalised)."""
    top = Path(os.path.abspath(root))
    written = Path(os.path.join(os.getcwd(), path))
    for depth in range(2, len(written.parts) + 1):
        prefix = Path(*written.parts[:depth])
        lexical = Path(os.path.abspath(prefix))
        if top in lexical.parents and os.path.islink(prefix):
            return lexical
    return None
