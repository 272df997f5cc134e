"""Candidates refused before any request: what overfits the cases, and what reaches past its span.

Overfitting is a definition made to fit the cases rather than the behaviour: a candidate is refused
when it carries into the definition, where the text did not have it before, a value a targeted case
expects (a literal of its expected calls, final state or answer checks: ``Paris``, ``metric``, ``42``)
that the tool's own schema does not already list, or its request's distinctive words: a name, a
number or an identifier the request holds (a word written with a capital or a digit that no
definition of the suite has) or four words of it in a row (quoting the request).

A candidate reaches past its span when it is the current text again, rewrites the definition around
the text (a JSON object, the definition's keys), rewrites another paragraph of the prompt, adds a
template placeholder, holds control or bidirectional characters (text that reads otherwise than it
is), is far longer than any description needs, or cannot be written into the span's literal without
touching anything else (``gate.fixes.spans.write`` said no). Pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gate.fixes.spans import Span
from gate.results.messages import UserMessage
from gate.results.outcomes import CaseResult
from gate.suite.matcher_tree import MATCHER_KEYS, matchers_json
from gate.suite.model import Case, Suite
from gate.util.escape import show
from gate.util.wording import mentions

MAX_CHARS = 4_000  # a replacement longer than this is no description
MIN_STRING = 3  # an expected string shorter than this ("EU", "5") says too little to count as copied
QUOTED_WORDS = 4  # this many words of a request in a row, copied, is a quotation
_NOT_VALUES = {"regex", "schema", "judge", "range", "approx", "not", "absent", "anything"}
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_WORD = re.compile(r"[^\W_][\w.@:/-]*[^\W_]|[^\W_]", re.UNICODE)
_PLACEHOLDER = re.compile(r"\{\{\s*[\w.]+\s*\}\}")
_DEFINITION_KEYS = re.compile(r'"(description|parameters|input_schema|inputSchema|properties)"\s*:')


@dataclass(frozen=True)
class CaseFacts:
    """What a targeted case could leak into a definition: its requests and the values it expects."""

    ref: str
    requests: tuple[str, ...]
    values: tuple[str, ...]


def case_facts(suite: Suite, case: Case, result: CaseResult) -> CaseFacts:
    requests = [m.content for m in case.conversation if isinstance(m, UserMessage)]
    for trial in result.trials[:1]:
        requests += [m.content for m in trial.record.messages if isinstance(m, UserMessage)]
    expect = case.expect
    found: list[object] = []
    for calls in (expect.calls, *expect.alternatives):
        for call in calls.calls:
            _values(matchers_json(call.args), found)  # as the suite writes them
    _values(matchers_json(expect.final_state or {}), found)
    _values([*expect.output.contains, expect.output.equals], found)
    values = [_text(v) for v in found if _counts(v)]
    return CaseFacts(f"{suite.name}/{case.id}", tuple(dict.fromkeys(requests)), tuple(dict.fromkeys(values)))


def _values(matcher: object, found: list[object]) -> None:
    """The literal values of a matcher (as written in a suite), whatever it nests."""
    if isinstance(matcher, dict):
        matcher_key = len(matcher) == 1 and next(iter(matcher)) in MATCHER_KEYS
        for key, value in matcher.items():
            if not (matcher_key and key in _NOT_VALUES):
                _values(value, found)
    elif isinstance(matcher, (list, tuple)):
        for value in matcher:
            _values(value, found)
    elif isinstance(matcher, (str, int, float)) and not isinstance(matcher, bool):
        found.append(matcher)


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _counts(value: object) -> bool:
    text = _text(value).strip()
    return len(text) >= (MIN_STRING if isinstance(value, str) else 2)


def known_words(suite: Suite) -> str:
    """Everything the suite's definitions already say (names, descriptions, schemas, the prompt): a
    word found there is no case's own."""
    prompt = suite.agent.system_prompt
    tools = [json.dumps([t.name, t.description, t.parameters], ensure_ascii=False) for t in suite.agent.tools]
    return "\n".join([*tools, prompt.template if prompt is not None else ""])


def refusal(
    value: str, span: Span, written: str | None, facts: Sequence[CaseFacts], known: str, others: Sequence[str]
) -> str:
    """Why the candidate whose text (as the model would be shown it) is ``value`` is refused ("" when
    it is not). ``written``: the file with it written in (None: it cannot be); ``known``: what the
    suite's definitions say; ``others``: the prompt's other paragraphs (for a paragraph)."""
    for why in (_reach(value, span, written, others), _overfit(value, span.text, facts, known)):
        if why:
            return why
    return ""


def _reach(value: str, span: Span, written: str | None, others: Sequence[str]) -> str:
    if value.strip() == span.text.strip():
        return "it is the current text"
    if len(value) > max(MAX_CHARS, 4 * len(span.text)):
        return f"it is {len(value):,} characters long: a rewrite, not a rewording of {len(span.text):,}"
    if _CONTROL.search(value):
        return "it holds control or bidirectional characters (text that reads otherwise than it is)"
    if span.kind != "prompt_paragraph" and (_DEFINITION_KEYS.search(value) or _json_container(value)):
        return "it rewrites the definition around the text, not only the text"
    for paragraph in others:
        if len(paragraph.strip()) >= 40 and paragraph.strip() in value:
            return "it rewrites another paragraph of the prompt as well"
    added = set(_PLACEHOLDER.findall(value)) - set(_PLACEHOLDER.findall(span.text))
    if added:
        return f"it adds the template placeholder {show(sorted(added)[0], 40)}"
    if written is None:
        what = "string literal" if span.encoding == "code" else "value"
        return f"{span.file} cannot hold it as that {what} without changing anything else around it"
    return ""


def _json_container(value: str) -> bool:
    text = value.strip()
    if not text.startswith(("{", "[")):
        return False
    try:
        return isinstance(json.loads(text), (dict, list))
    except ValueError:
        return False


def _overfit(value: str, before: str, facts: Sequence[CaseFacts], known: str) -> str:
    for case in facts:
        for literal in case.values:
            if _carried(literal, value, before) and not mentions(known, literal.strip()):
                return f"it copies {show(literal, 60)}, a value case {case.ref} expects, into the definition"
        for request in case.requests:
            word = next((w for w in _distinctive(request) if _carried(w, value, before + known)), "")
            if word:
                return f"it copies {show(word, 60)} from the request of case {case.ref} into the definition"
            quoted = _quotation(request, value, before)
            if quoted:
                return f"it quotes the request of case {case.ref} ({show(quoted, 80)})"
    return ""


def _carried(word: str, value: str, before: str) -> bool:
    """Whether ``value`` names ``word`` (whole, any letter case) and ``before`` does not."""
    folded = word.strip().casefold()
    return mentions(value.casefold(), folded) and not mentions(before.casefold(), folded)


def _distinctive(request: str) -> Iterable[str]:
    """The words of a request that name something particular: written with a capital letter other
    than a sentence's first word, or holding a digit."""
    sentence_start = True
    for match in _WORD.finditer(request):
        word = match.group()
        preceding = request[: match.start()].rstrip()
        sentence_start = not preceding or preceding[-1] in ".!?:\"'“(\n"
        if any(ch.isdigit() for ch in word) or (word[0].isupper() and not sentence_start and word != "I"):
            yield word


def _quotation(request: str, value: str, before: str) -> str:
    """The first ``QUOTED_WORDS`` words of ``request`` in a row that ``value`` holds and ``before``
    does not ("" when none)."""
    words = [w.casefold() for w in _WORD.findall(request)]
    value_words = " ".join(w.casefold() for w in _WORD.findall(value))
    before_words = " ".join(w.casefold() for w in _WORD.findall(before))
    for i in range(len(words) - QUOTED_WORDS + 1):
        run = " ".join(words[i : i + QUOTED_WORDS])
        if f" {run} " in f" {value_words} " and f" {run} " not in f" {before_words} ":
            return run
    return ""


__all__ = ["CaseFacts", "case_facts", "known_words", "refusal"]
