"""The dependency directories a team installed in its working tree (``node_modules``, ``.venv``,
``venv``): not in git, so absent from the base tree of ``--baseline auto``, where the base's agent
programs run. ``link_installed`` makes the working tree's ones visible in the base tree (as links),
so that the base's program finds its dependencies where the head's does: the job's installs serve both
sides."""

from __future__ import annotations

import os
from pathlib import Path

from gate.git.changes import run_git

INSTALLED_NAMES = frozenset({"node_modules", ".venv", "venv"})


def installed_directories(root: Path) -> list[str]:
    """Root-relative paths of the ignored, untracked dependency directories of the working tree."""
    found = run_git(
        ["ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z"],
        root,
        "--baseline auto",
    )
    if found.returncode != 0:
        return []
    paths = found.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted(
        p.rstrip("/") for p in paths if p.endswith("/") and Path(p.rstrip("/")).name in INSTALLED_NAMES
    )


def link_installed(root: Path, base_root: Path) -> list[str]:
    """Link each installed directory of ``root`` into ``base_root`` where the base tree has its parent
    and not the directory itself; the paths linked."""
    linked = []
    for rel in installed_directories(root):
        target, link = root / rel, base_root / rel
        if link.parent.is_dir() and not os.path.lexists(link) and target.is_dir():
            link.symlink_to(target.resolve(), target_is_directory=True)
            linked.append(rel)
    return linked
