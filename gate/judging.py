"""LLM-judged checks: requests, prompts, forced-tool schemas, verdict parsing, the ranking table.

Pure: this module builds what to ask the judge and interprets its structured answer; the provider
adapters send it. A ``JudgeRequest`` is identified by ``key`` (a stable hash of its fields), and
verdicts are looked up by that key, so the evaluator can cache and deduplicate judge calls.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

JudgeKind = Literal["criteria", "semantic_contains", "ranking", "choice", "clarification", "argument"]


@dataclass(frozen=True)
class JudgeRequest:
    """One question for the judge.

    ``text`` is the text judged (the agent's answer, or an argument value as text). ``criterion``:
    the criterion (criteria, argument) or the phrase looked for (semantic_contains). ``reference``:
    the verified reference answer (ranking) or the correct option (choice, never shown to the
    judge). ``candidates``: the ranking candidates in the order shown. ``options``: the choice
    options in letter order; for ranking, the role of each candidate ("agent", "wrong",
    "irrelevant") in the order shown. ``context``: the user's request, for the judge's orientation.
    """

    kind: JudgeKind
    text: str
    criterion: str = ""
    reference: str = ""
    candidates: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    context: str = ""

    @property
    def key(self) -> str:
        payload = json.dumps(
            [self.kind, self.text, self.criterion, self.reference, list(self.candidates), list(self.options), self.context],
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Verdict:
    """The judge's structured answer. ``score`` in [0, 1]; ``detail`` holds the parsed fields."""

    passed: bool
    score: float
    rationale: str
    detail: dict[str, Any] = field(default_factory=dict)
