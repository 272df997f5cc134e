"""What a run's results were made for, and what a job that renders them expects (pure).

A pull request can commit a ``results.json`` of a passing run, made elsewhere, wherever a later job
reads results: into the directory a shard's gate writes (a shard that stops on invalid input leaves
it for the workflow to upload), into the checkout of the job that merges the shards (its glob matches
it), into the directory the evaluating workflow uploads for the publishing one. So a run records
the commit and the CI run its results were made for (``RunResults.settings.made_for``), and the
action renders saved results (``results:``) only when they were made for the commit this job is about
in the run whose results it merges or publishes. A file committed in a pull request can never say it
was made for the commit that holds it: that commit's name is a hash of its files, that file included.
"""

from __future__ import annotations

import string

from gate.results.settings import MadeFor
from gate.trust.facts import CheckoutFacts, EventFacts

_SHOWN = frozenset(string.ascii_letters + string.digits)


def made_for(event: EventFacts, checkout: CheckoutFacts, run: str) -> MadeFor:
    """What a run's results are for: the commit its event is about when the checkout is that commit or
    a merge of it (a pull request's merge ref: its head is the second parent), else the checkout's
    HEAD; and the CI run ``run`` (``GITHUB_RUN_ID``, "" outside GitHub Actions)."""
    held = event.head and (event.head == checkout.head or event.head in checkout.parents[1:])
    return MadeFor(event.head if held else checkout.head, run)


def expected(event: EventFacts, sha: str, run: str) -> MadeFor:
    """What results rendered by a job of ``event`` must have been made for: on ``workflow_run`` (the
    publishing half of the two-workflow pattern) the commit and the id of the run that triggered it;
    otherwise (a sharded run's merge job, a publish step after the CLI in the same job) the commit the
    event is about, or the job's commit ``sha`` (``GITHUB_SHA``) when the event names none, and this
    run ``run`` (``GITHUB_RUN_ID``)."""
    if event.name == "workflow_run":
        return MadeFor(event.head, event.run)
    return MadeFor(event.head or sha, run)


def refusal(found: MadeFor | None, wanted: MadeFor) -> str:
    """Why results that say they were made for ``found`` (None: they do not say) are not rendered by a
    job that wants ``wanted`` ("" when they may be); an empty field of ``wanted`` is not checked."""
    commit_ok = not wanted.commit or (found is not None and found.commit == wanted.commit)
    run_ok = not wanted.run or (found is not None and found.run == wanted.run)
    if commit_ok and run_ok:
        return ""
    if found is None or not (found.commit or found.run):
        said = "do not say which commit and run they were made for (not the gate's, or an older version's)"
    else:
        said = f"were made for commit {_shown(found.commit, 12)} in run {_shown(found.run, 24)}"
    asked = " in ".join(
        part
        for part in (
            f"commit {wanted.commit[:12]}" if wanted.commit else "",
            f"run {wanted.run}" if wanted.run else "",
        )
        if part
    )
    return (
        f"these results {said}, not for {asked}: not rendered (a pull request can commit results where a "
        "later job reads them; only the gate's own results of this run are merged or published)"
    )


def _shown(text: str, most: int) -> str:
    """What a results file says it was made for, as a message may quote it: letters and digits only,
    ``most`` of them (a forged file chooses these words; they reach logs, annotations and comments)."""
    kept = "".join(c for c in text[:most] if c in _SHOWN)
    return kept or "(none)"
