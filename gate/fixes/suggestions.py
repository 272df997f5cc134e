"""A verified edit as a pull request review comment: a GitHub suggested change on exactly the lines it
replaces, with its evidence. Pure: the GitHub publisher posts it where every line it replaces is in
the diff (a suggestion cannot sit on a line next to them); the sticky comment's report shows every
verified edit as a diff block in any case.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.fixes.patch import suggestion
from gate.fixes.verification import evidence
from gate.results.fixes import DefinitionSearch, FixSearch
from gate.util.escape import md_inline_code, md_text
from gate.util.wording import plural

PATTERN = "verified fix"  # what the review comment is, in its fingerprint and its footnote


@dataclass(frozen=True)
class Suggestion:
    """A review comment replacing lines ``start_line``..``line`` of ``file`` (the publisher reads the
    same fields as a recommendation's, and ``start_line`` and ``body``)."""

    file: str
    start_line: int
    line: int
    body: str
    tool: str | None
    argument: str | None
    message: str
    cases: tuple[str, ...]
    replacement: str  # the lines it commits: a new text is a new comment, the same one is not posted twice
    pattern: str = PATTERN


def _kind(definition: DefinitionSearch) -> str:
    if definition.kind == "tool_description":
        return f"the description of {md_inline_code(definition.tool or '')}"
    if definition.kind == "parameter_description":
        argument, tool = md_inline_code(definition.argument or ""), md_inline_code(definition.tool or "")
        return f"the description of {argument} of {tool}"
    return "this paragraph of the system prompt"


def _others(definition: DefinitionSearch, number: int) -> str:
    counts: dict[str, int] = {}
    for c in definition.candidates:
        if c.number != number:
            counts[c.status] = counts.get(c.status, 0) + 1
    if not counts:
        return ""
    words = {"broke": "broke a passing case", "not_fixed": "did not fix", "not_run": "not run"}
    shown = ", ".join(f"{n} {words.get(status, status)}" for status, n in sorted(counts.items()))
    return f" (the others: {shown})"


def suggestions(fixes: FixSearch | None) -> tuple[Suggestion, ...]:
    """One suggested change per verified edit."""
    found = []
    for definition, candidate in fixes.verified if fixes is not None else ():
        edit = candidate.edit
        if edit is None:
            continue
        proof = md_text(evidence(candidate.cases))
        message = f"tool-eval-gate verified this rewording of {_kind(definition)}: it {proof}."
        scope = f"re-run on {md_text(definition.scope)}; " if definition.scope else ""
        number = f"candidate {candidate.number} of {plural(len(definition.candidates), 'candidate')}"
        note = (
            f"<sub>{scope}{number}{_others(definition, candidate.number)}. Suggested after the gate re-ran "
            "the cases on it; the run's verdict is unchanged.</sub>"
        )
        body = "\n\n".join([f"**{message}**", suggestion(edit), note])
        found.append(
            Suggestion(
                file=edit.file,
                start_line=edit.line,
                line=max(edit.line, edit.end_line),
                body=body,
                tool=definition.tool,
                argument=definition.argument,
                message=message,
                cases=definition.targeted,
                replacement="\n".join(edit.after),
            )
        )
    return tuple(found)


__all__ = ["PATTERN", "Suggestion", "suggestions"]
