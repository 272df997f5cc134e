"""Where texts are written in source code: tools' descriptions in Python docstrings, TypeScript
strings, JSON values. Domain-free and pure: the files are handed in as texts.

A text is found as written (its exact characters, at whole words: ``weather for`` is not found in
``xweather for``), else as the same run of words with anything between them that is not a word:
quotes, string concatenation, escaped line breaks (``\\n``), line continuations, comment markers.
So ``"Current weather " + "for a city."`` and a docstring re-indented by the SDK that read it both
match ``Current weather for a city.``. A text is looked for in the files in order (the first file
that holds it wins, exactly there if it is written exactly there); near a given line, the place
nearest it wins (a parameter near its tool). A text of fewer than two words is placed only where
written exactly; a text without a word is not placed.

The cost is linear in the repository whatever the number of texts (a server listing 400 tools had
each description searched word by word through every file: 10 s of CPU): :class:`SourceIndex` counts
the repository's words once, anchors each text at its rarest word, and reads the words of a file
again only when it holds an anchor; every text is checked at no more than ``MAX_CANDIDATES`` places.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# Escapes that stand for white space or a quote inside a string literal: read as a separator.
_ESCAPE = re.compile(r"\\[nrt\"'`]")
_IDENTIFIER = re.compile(r"[\w$]+")
MIN_WORDS = 2  # a one-word text (``City``) says too little to be placed by its words alone
MAX_CANDIDATES = 20_000  # places one text is compared at: a text of common words is not placed
_KEPT_PLACES = 64  # places kept per identifier when looking for a name


@dataclass(frozen=True)
class Place:
    """Where a text starts: repository-relative path and 1-based line."""

    path: str
    line: int


def line_of(text: str, offset: int) -> int:
    """The 1-based line of ``offset`` in ``text`` (one text, once; a file searched again and again
    goes through :meth:`SourceIndex.line_of`)."""
    return text.count("\n", 0, offset) + 1


def _cleaned(text: str) -> str:
    return _ESCAPE.sub(lambda m: " " * len(m.group()), text)


def _words(text: str) -> list[tuple[str, int]]:
    """The words of ``text`` (case-folded) with their offsets; escapes read as separators."""
    return [(m.group().casefold(), m.start()) for m in _WORD.finditer(_cleaned(text))]


def _vocabulary(text: str) -> list[str]:
    """The words of ``text`` (case-folded), without offsets: the fast path of counting."""
    return _WORD.findall(_cleaned(text).casefold())


@dataclass(frozen=True)
class _Needle:
    text: str  # stripped
    words: tuple[str, ...]
    lead: int  # offset of its first word in ``text``
    exact_only: bool

    @classmethod
    def of(cls, text: str) -> _Needle | None:
        stripped = text.strip()
        words = _words(stripped)
        if not words:
            return None
        return cls(stripped, tuple(w for w, _ in words), words[0][1], len(words) < MIN_WORDS)


@dataclass(frozen=True)
class _Found:
    """The places of one text in one file: exact ones, else runs of its words (offsets)."""

    exact: tuple[int, ...]
    runs: tuple[int, ...]

    @property
    def offsets(self) -> tuple[int, ...]:
        return self.exact or self.runs


def is_written_in(text: str, source: str) -> bool:
    """Whether ``text`` is written in the one ``source`` (exactly, else as a run of its words)."""
    return SourceIndex({"": source}).find([text])[0] is not None


class SourceIndex:
    """The source files (path -> text), looked in in ``order`` first, then the rest sorted."""

    def __init__(self, sources: Mapping[str, str], order: Sequence[str] = ()):
        self.sources = sources
        first = [p for p in dict.fromkeys(order) if p in sources]
        self.paths = first + sorted(p for p in sources if p not in set(first))
        self._counts: Counter[str] | None = None
        self._newlines: dict[str, list[int]] = {}
        self._identifier_paths: tuple[str, ...] | None = None
        self._identifier_index: dict[str, list[tuple[str, int]]] = {}

    # -- lines ------------------------------------------------------------------------------------

    def line_of(self, path: str, offset: int) -> int:
        """The 1-based line of ``offset`` in the file ``path``."""
        if path not in self._newlines:
            self._newlines[path] = [m.start() for m in re.finditer("\n", self.sources[path])]
        return bisect.bisect_left(self._newlines[path], offset) + 1

    def _line_start(self, path: str, line: int) -> int:
        """The offset where 1-based ``line`` starts (0 before the first, the end after the last)."""
        self.line_of(path, 0)
        newlines = self._newlines[path]
        if line <= 1:
            return 0
        return newlines[line - 2] + 1 if line - 2 < len(newlines) else len(self.sources[path])

    # -- texts ------------------------------------------------------------------------------------

    def _anchor(self, needle: _Needle, counts: Mapping[str, int]) -> int:
        """The index in ``needle`` of its rarest word (in ``counts``), the longer on a tie."""
        return min(
            range(len(needle.words)), key=lambda i: (counts.get(needle.words[i], 0), -len(needle.words[i]))
        )

    def _matches(
        self, path: str, tokens: list[tuple[str, int]], positions: Iterable[int], needle: _Needle
    ) -> _Found:
        """Where ``needle`` stands in the file's ``tokens``, checked at the word ``positions`` its
        run may start at."""
        text = self.sources[path]
        size = len(needle.words)
        exact: list[int] = []
        runs: list[int] = []
        for start in positions:
            if start < 0 or tuple(w for w, _ in tokens[start : start + size]) != needle.words:
                continue
            offset = tokens[start][1]
            begin = offset - needle.lead
            if begin >= 0 and text.startswith(needle.text, begin):
                exact.append(begin)
            elif not needle.exact_only:
                runs.append(offset)
        return _Found(tuple(exact), tuple(runs))

    def find(self, texts: Sequence[str]) -> list[Place | None]:
        """Where each of ``texts`` is written: the first file (in order) that holds it, at its first
        exact place there, else the first run of its words (None: nowhere)."""
        needles = [_Needle.of(text) for text in texts]
        found: list[Place | None] = [None] * len(texts)
        if not any(needles):
            return found
        if self._counts is None:
            self._counts = Counter()
            for path in self.paths:
                self._counts.update(_vocabulary(self.sources[path]))
        anchors: dict[str, list[tuple[int, int]]] = {}  # word -> (text number, its index in the text)
        for number, needle in enumerate(needles):
            if needle is not None:
                at = self._anchor(needle, self._counts)
                anchors.setdefault(needle.words[at], []).append((number, at))
        budget = [MAX_CANDIDATES] * len(texts)
        for path in self.paths:
            if not anchors:
                break
            if set(anchors).isdisjoint(_vocabulary(self.sources[path])):
                continue
            tokens = _words(self.sources[path])
            starts: dict[int, list[int]] = {}
            for index, (word, _) in enumerate(tokens):
                for number, at in anchors.get(word, ()):
                    if budget[number] > 0:
                        budget[number] -= 1
                        starts.setdefault(number, []).append(index - at)
            for number, positions in starts.items():
                needle = needles[number]
                assert needle is not None
                offsets = self._matches(path, tokens, positions, needle).offsets
                if offsets and found[number] is None:
                    found[number] = Place(path, self.line_of(path, offsets[0]))
                    word = needle.words[self._anchor(needle, self._counts)]
                    anchors[word] = [a for a in anchors[word] if a[0] != number]
                    if not anchors[word]:
                        del anchors[word]
        return found

    def find_near(self, requests: Sequence[tuple[str, Place]]) -> list[Place | None]:
        """For each (text, near): where the text is written in ``near``'s file, the place nearest
        ``near``'s line (exact places before runs of its words); None when that file does not hold
        it. Each file is read once, whatever the number of requests."""
        found: list[Place | None] = [None] * len(requests)
        by_path: dict[str, list[int]] = {}
        for number, (_, near) in enumerate(requests):
            if near.path in self.sources:
                by_path.setdefault(near.path, []).append(number)
        for path, numbers in by_path.items():
            tokens = _words(self.sources[path])
            where: dict[str, list[int]] = {}
            for index, (word, _) in enumerate(tokens):
                where.setdefault(word, []).append(index)
            counts = {word: len(indexes) for word, indexes in where.items()}
            for number in numbers:
                text, near = requests[number]
                needle = _Needle.of(text)
                if needle is None:
                    continue
                at = self._anchor(needle, counts)
                positions = [i - at for i in where.get(needle.words[at], ())[:MAX_CANDIDATES]]
                lines = [
                    self.line_of(path, o) for o in self._matches(path, tokens, positions, needle).offsets
                ]
                if lines:
                    found[number] = Place(path, min(lines, key=lambda n: (abs(n - near.line), n)))
        return found

    # -- identifiers ------------------------------------------------------------------------------

    def word_line(
        self, word: str, path: str, line: int, window: int, *, before: bool = False, declared: bool = False
    ) -> int | None:
        """The line of ``path`` nearest ``line`` (at most ``window`` lines away; only lines up to it
        with ``before``) where ``word`` stands as a whole identifier (``get_weather``, not
        ``get_weather_now``); with ``declared``, only where it is declared: followed by ``:`` or ``=``
        (``city: str``, ``date: z.string()``, ``"days": {...}``), not where a sentence mentions it.
        Only the lines of the window are read."""
        end = r"[\"']?\s*[:=]" if declared else r"(?![\w$])"
        pattern = re.compile(r"(?<![\w$])" + re.escape(word) + end)
        source = self.sources[path]
        start = self._line_start(path, line - window)
        stop = self._line_start(path, line + 1 if before else line + window + 1)
        best: int | None = None
        for match in pattern.finditer(source, start, stop):
            at = self.line_of(path, match.start())
            if abs(at - line) > window or (before and at > line):
                continue
            if best is None or abs(at - line) < abs(best - line):
                best = at
        return best

    def first_naming(self, word: str, paths: Sequence[str]) -> Place | None:
        """The first line of the first of ``paths`` where ``word`` stands as a whole identifier,
        found through the identifiers of those files, read once (at most ``_KEPT_PLACES`` places
        kept per identifier: a name standing only after as many uses of its rarest part is missed)."""
        parts = [(m.group(), m.start()) for m in _IDENTIFIER.finditer(word)]
        if not parts:
            return None
        index = self._identifiers(tuple(p for p in paths if p in self.sources))
        rarest, lead = min(parts, key=lambda part: len(index.get(part[0], ())))
        pattern = re.compile(r"(?<![\w$])" + re.escape(word) + r"(?![\w$])")
        for path, offset in index.get(rarest, ()):
            start = offset - lead
            if start >= 0 and pattern.match(self.sources[path], start) is not None:
                return Place(path, self.line_of(path, start))
        return None

    def _identifiers(self, paths: tuple[str, ...]) -> dict[str, list[tuple[str, int]]]:
        """identifier -> its first places in ``paths`` (in order), read once per set of paths."""
        if self._identifier_paths != paths:
            index: dict[str, list[tuple[str, int]]] = {}
            for path in paths:
                for match in _IDENTIFIER.finditer(self.sources[path]):
                    kept = index.setdefault(match.group(), [])
                    if len(kept) < _KEPT_PLACES:
                        kept.append((path, match.start()))
            self._identifier_paths, self._identifier_index = paths, index
        return self._identifier_index
