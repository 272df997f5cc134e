"""What the search for verified fixes found (``run --suggest-fixes``, DESIGN.md section 11), as the
results keep it (``RunResults.fixes``): every definition it tried to edit, every candidate wording
with its per-case results, the cases it left alone and why, the requests it sent (counted apart from
the run's) and the verified edits as a patch. Pure data; the verdict never reads it.

``to_dict`` / ``from_dict`` are the results file's form (``fixes``), read back by ``report``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from gate.util.json_types import JsonObject

# What a definition is: a tool's description, one of its parameters' descriptions, a paragraph of a
# system prompt file.
SpanKind = Literal["tool_description", "parameter_description", "prompt_paragraph"]
# A candidate wording: verified (fixed every targeted case, broke none); broke a passing case; did
# not fix every targeted case; refused before any request (overfitting, outside its span); not run
# (an earlier candidate was verified, or the budget ran out before it); could not be judged (a case
# ended as an error).
CandidateStatus = Literal["verified", "broke", "not_fixed", "refused", "not_run", "undecided"]
CaseRole = Literal["targeted", "passing"]
# A case under a candidate: a targeted case fixed or still failing; a passing case kept, broken (it
# fails under its reducer and passes no trial any more, or is significantly worse: the exact test),
# or wavering (it fails under its reducer, within the noise the exact test allows); an error; not run
# (the candidate was decided before it started).
CaseOutcome = Literal["fixed", "still_failing", "kept", "wavered", "broke", "error", "not_run"]


@dataclass(frozen=True)
class Edit:
    """A candidate written into its file: the whole lines ``line``..``end_line`` (1-based) as they
    are (``before``) and as the candidate makes them (``after``), with up to three lines of context
    on each side, for the diff blocks of the reports."""

    file: str
    line: int
    end_line: int
    before: tuple[str, ...]
    after: tuple[str, ...]
    above: tuple[str, ...] = ()
    below: tuple[str, ...] = ()


@dataclass(frozen=True)
class CandidateCase:
    """One case re-run under a candidate: how many trials passed before and now, the exact test's p
    for a passing case that lost trials, and why it did not pass (its first failure)."""

    suite: str
    case_id: str
    role: CaseRole
    outcome: CaseOutcome
    passed: int = 0
    trials: int = 0
    passed_before: int = 0
    trials_before: int = 0
    p_value: float | None = None
    why: str = ""


@dataclass(frozen=True)
class Candidate:
    """One replacement text the fix model proposed for a definition, and what became of it."""

    number: int  # 1-based, in the order the model gave them
    text: str
    status: CandidateStatus
    reason: str = ""  # why it was refused, not verified or not run, in words
    cases: tuple[CandidateCase, ...] = ()
    edit: Edit | None = None
    requests: int = 0  # requests its verification sent (cache hits are free)
    cost_usd: float = 0.0


@dataclass(frozen=True)
class DefinitionSearch:
    """The search for one implicated definition: where it is, the text the model was shown, the
    advice that implicates it, the failing cases it targets, which passing cases each candidate had
    to keep (``scope``), the candidates, and the outcome in words (``note``)."""

    suite: str
    kind: SpanKind
    file: str
    line: int
    text: str
    advice: str
    targeted: tuple[str, ...]  # "<suite>/<case id>" of each failing case it targets
    tool: str | None = None
    argument: str | None = None
    scope: str = ""
    candidates: tuple[Candidate, ...] = ()
    note: str = ""

    @property
    def verified(self) -> Candidate | None:
        return next((c for c in self.candidates if c.status == "verified"), None)


@dataclass(frozen=True)
class SkippedCase:
    """A failed case the search left alone, and why (no wording fixes an error, a cut reply...)."""

    suite: str
    case_id: str
    reason: str


@dataclass(frozen=True)
class FixSearch:
    """The whole search: the fix model, the budget as given, what it sent (apart from the run's
    requests), why it did not run at all (``skipped``), the cases it left alone, the definitions it
    tried, and the verified edits as a patch ``git apply`` takes ("" when none)."""

    model: str = ""
    budget: str = ""
    requests: int = 0
    cost_usd: float = 0.0
    skipped: str = ""
    skipped_cases: tuple[SkippedCase, ...] = ()
    definitions: tuple[DefinitionSearch, ...] = ()
    patch: str = ""

    @property
    def verified(self) -> tuple[tuple[DefinitionSearch, Candidate], ...]:
        """The verified candidate of each definition that has one."""
        return tuple((d, c) for d in self.definitions if (c := d.verified) is not None)

    def to_dict(self) -> JsonObject:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: JsonObject) -> FixSearch:
        return cls(
            **_plain(cls, data, ("skipped_cases", "definitions")),
            skipped_cases=tuple(SkippedCase(**c) for c in data.get("skipped_cases", ())),
            definitions=tuple(_definition(d) for d in data.get("definitions", ())),
        )


def _plain(kind: type, data: JsonObject, nested: tuple[str, ...]) -> dict[str, Any]:
    """The fields of ``kind`` that ``data`` holds, but the ``nested`` ones (lists become tuples)."""
    names = {f.name for f in fields(kind)} - set(nested)
    return {k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in names}


def _definition(data: JsonObject) -> DefinitionSearch:
    return DefinitionSearch(
        **_plain(DefinitionSearch, data, ("candidates",)),
        candidates=tuple(_candidate(c) for c in data.get("candidates", ())),
    )


def _candidate(data: JsonObject) -> Candidate:
    edit = data.get("edit")
    return Candidate(
        **_plain(Candidate, data, ("cases", "edit")),
        cases=tuple(CandidateCase(**c) for c in data.get("cases", ())),
        edit=Edit(**_plain(Edit, edit, ())) if isinstance(edit, dict) else None,
    )
