"""The verdict in words, the same in every report that shows it (Markdown, HTML): its title and the
line of case counts. Pure."""

from __future__ import annotations

from gate.verdict.policy import Mood, Verdict, verdict_mood


def verdict_title(verdict: Verdict) -> tuple[str, Mood]:
    """``("tool-eval-gate failed", "failed")``: the title and what it is."""
    mood = verdict_mood(verdict)
    titles = {
        "incomplete": "tool-eval-gate: evaluation incomplete",
        "unverified": "tool-eval-gate: not verified",
    }
    return titles.get(mood, f"tool-eval-gate {mood}"), mood


def counts_text(verdict: Verdict) -> str:
    """``3 passed · 1 failed · 0 errors · 0 skipped · 1 flaky``, with the errors said not counted
    under ``--errors ignore`` and the known-flaky (non-gating) cases that were left out."""
    non_gating = sum(s.non_gating_count for s in verdict.suites)
    return (
        f"{verdict.passed_count} passed · {verdict.failed_count} failed · {verdict.error_count} errors"
        f"{'' if verdict.errors_count else ' (not counted)'} · {verdict.skipped_count} skipped · "
        f"{verdict.flaky_count} flaky" + (f" · {non_gating} non-gating (not counted)" if non_gating else "")
    )


def reasons_label(verdict: Verdict) -> str:
    """What a verdict's ``reasons`` are, as the reports title them."""
    return {
        "passed": "Notes",
        "failed": "Why it failed",
        "incomplete": "Why it is incomplete",
        "unverified": "Why it is not verified",
    }[verdict_mood(verdict)]
