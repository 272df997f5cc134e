"""What git says about the repository as a whole: its default branch (``init`` writes the workflow's
push trigger for it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

FALLBACK_BRANCH = "main"


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):  # git missing, or hanging
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def default_branch(root: Path) -> str:
    """The branch ``origin/HEAD`` names (the remote's default), else the branch checked out, else
    ``main``."""
    remote = _git(root, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if remote.startswith("origin/") and len(remote) > len("origin/"):
        return remote.removeprefix("origin/")
    return _git(root, "branch", "--show-current") or FALLBACK_BRANCH
