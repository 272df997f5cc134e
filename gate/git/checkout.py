"""What git says of the checkout a run evaluates, for the trust decision (``gate.trust``): its HEAD
commit, HEAD's parents, and whether it holds the commit an event is about (a pull request's head, a
workflow_run's head)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gate.trust.facts import CheckoutFacts


def _git(root: Path, *args: str) -> str | None:
    """The output of a read-only git command in ``root``; None when it fails (or git is missing)."""
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def checkout_facts(root: Path, event_head: str) -> CheckoutFacts:
    """HEAD of the checkout at ``root``, its parents, and whether ``event_head`` is HEAD, a parent of
    it (the merge ref of a pull request, shallow or not) or an ancestor of it (None when there is no
    ``event_head`` to look for, or git cannot read HEAD)."""
    head = (_git(root, "rev-parse", "--verify", "-q", "HEAD") or "").strip()
    commit = _git(root, "cat-file", "commit", head) if head else None
    if commit is None:
        return CheckoutFacts()
    # The commit's own header, read whole (a shallow clone has no parent commits, only their names);
    # the message after the blank line is not looked at.
    header = commit.split("\n\n", 1)[0].splitlines()
    parents = tuple(line.split()[1] for line in header if line.startswith("parent "))
    if not event_head:
        return CheckoutFacts(head, parents)
    holds = (
        event_head == head
        or event_head in parents
        or _git(root, "merge-base", "--is-ancestor", event_head, "HEAD") is not None
    )
    return CheckoutFacts(head, parents, holds)
