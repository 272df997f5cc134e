"""Finding where a text is written in source files: exactly, else as the same run of words."""

from __future__ import annotations

from gate.util.source_text import Place, SourceIndex


def find_text(
    text: str, sources: dict[str, str], order: list[str] | tuple[str, ...] = (), near: Place | None = None
):
    index = SourceIndex(sources, order)
    if near is not None:
        return index.find_near([(text, near)])[0]
    return index.find([text])[0]


def word_line(word: str, source: str, line: int, window: int, **options: bool) -> int | None:
    return SourceIndex({"f": source}).word_line(word, "f", line, window, **options)


PYTHON = '''from server import app


@app.tool()
def get_weather(city: str) -> dict:
    """Current weather for a city.

    Use this for the weather right now.
    """
'''

TYPESCRIPT = """server.tool(
  "get_weather",
  "Current weather " +
    "for a city.\\nUse this for the weather right now.",
  { city: z.string().describe("The city") },
);
"""


def test_a_docstring_is_found_at_its_first_line():
    text = "Current weather for a city.\n\n    Use this for the weather right now.\n    "
    assert find_text(text, {"server.py": PYTHON}) == Place("server.py", 6)


def test_a_text_split_over_concatenated_strings_and_escapes_is_found_by_its_words():
    text = "Current weather for a city.\nUse this for the weather right now."
    assert find_text(text, {"server.ts": TYPESCRIPT}) == Place("server.ts", 3)


def test_a_different_text_is_not_found():
    assert find_text("Current weather for a town.", {"server.py": PYTHON}) is None
    assert find_text("   ", {"server.py": PYTHON}) is None


def test_one_word_is_placed_only_when_written_exactly():
    assert find_text("weather", {"f": "the\nWeather"}) is None
    assert find_text("Weather", {"f": "the\nWeather"}) == Place("f", 2)


def test_the_files_named_first_win_then_the_rest_sorted():
    sources = {"a/readme.md": "Current weather for a city.", "z/server.py": PYTHON}
    assert find_text("Current weather for a city.", sources) == Place("a/readme.md", 1)
    assert find_text("Current weather for a city.", sources, order=["z/server.py"]) == Place("z/server.py", 6)


def test_near_picks_the_place_nearest_the_line():
    source = "\n".join(["x: The city name"] + [""] * 20 + ["y: The city name"])
    assert find_text("The city name", {"f.py": source}, near=Place("f.py", 18)) == Place("f.py", 22)
    assert find_text("The city name", {"f.py": source}, near=Place("f.py", 3)) == Place("f.py", 1)


def test_word_line_finds_whole_identifiers_only():
    source = "def get_weather_now():\n    pass\ndef get_weather():\n"
    assert word_line("get_weather", source, 3, 10) == 3
    assert word_line("get_weather", source, 1, 10, before=True) is None
    assert word_line("get_weather", source, 30, 5) is None


# -- the index agrees with looking in every file, and its cost does not multiply ---------------------

import re  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORD_RE = re.compile(r"[^\W_]+")


def _oracle_words(text: str) -> list[tuple[str, int]]:
    cleaned = re.sub(r"\\[nrt\"'`]", lambda m: " " * len(m.group()), text)
    return [(m.group().casefold(), m.start()) for m in _WORD_RE.finditer(cleaned)]


def _oracle_occurrences(text: str, source: str) -> list[int]:
    """The search the index replaced (every file read word by word for every text), exact places
    taken where they start and end at whole words."""
    needle = text.strip()
    wanted = [w for w, _ in _oracle_words(needle)]
    words = _oracle_words(source)
    runs = [o for i, (w, o) in enumerate(words) if [x for x, _ in words[i : i + len(wanted)]] == wanted]
    lead = _oracle_words(needle)[0][1]
    exact = [o - lead for o in runs if o >= lead and source.startswith(needle, o - lead)]
    if exact:
        return exact
    return runs if len(wanted) >= 2 else []


def _oracle_find(text: str, sources: dict[str, str], order: list[str]) -> Place | None:
    first = [p for p in dict.fromkeys(order) if p in sources]
    for path in first + sorted(p for p in sources if p not in first):
        found = _oracle_occurrences(text, sources[path])
        if found:
            return Place(path, sources[path].count("\n", 0, found[0]) + 1)
    return None


# Words none of which stands inside another, so an exact match is always a run of whole words.
_TOKENS = st.sampled_from(["red", "Red", "blue", "the", "sky", " ", " ", "\n", '"', " + ", "\\n", ".", "  "])
_TEXTS = st.lists(_TOKENS, min_size=1, max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    files=st.dictionaries(st.sampled_from(["a.py", "b.ts", "c.md"]), _TEXTS, min_size=1, max_size=3),
    texts=st.lists(_TEXTS, min_size=1, max_size=4),
    order=st.lists(st.sampled_from(["a.py", "b.ts", "c.md"]), max_size=2),
)
def test_the_index_places_every_text_where_looking_in_each_file_did(files, texts, order):
    found = SourceIndex(files, order).find(texts)
    for text, place in zip(texts, found, strict=True):
        if not _oracle_words(text.strip()):
            assert place is None  # a text without a word is not placed
        else:
            assert place == _oracle_find(text, files, order), text


@settings(max_examples=200, deadline=None)
@given(source=_TEXTS, texts=st.lists(_TEXTS, min_size=1, max_size=4), line=st.integers(1, 6))
def test_near_a_line_the_index_picks_what_looking_in_the_file_did(source, texts, line):
    near = Place("f.py", line)
    found = SourceIndex({"f.py": source}).find_near([(text, near) for text in texts])
    for text, place in zip(texts, found, strict=True):
        lines = (
            [source.count("\n", 0, o) + 1 for o in _oracle_occurrences(text, source)]
            if _oracle_words(text)
            else []
        )
        expected = Place("f.py", min(lines, key=lambda n: (abs(n - line), n))) if lines else None
        assert place == expected, text


_NAMES = st.sampled_from(["red", "red-sky", "sky.red", "the_sky", "blue-blue", "$sky"])


@settings(max_examples=200, deadline=None)
@given(
    files=st.dictionaries(
        st.sampled_from(["a.py", "b.py"]), _TEXTS.map(lambda t: t.replace(" + ", "-")), min_size=1
    ),
    name=_NAMES,
)
def test_the_first_line_naming_a_tool_is_the_first_whole_identifier(files, name):
    pattern = re.compile(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])")
    expected = None
    for path in ["b.py", "a.py"]:
        match = pattern.search(files[path]) if path in files else None
        if match is not None:
            expected = Place(path, files[path].count("\n", 0, match.start()) + 1)
            break
    assert SourceIndex(files).first_naming(name, ["b.py", "a.py"]) == expected


def test_four_hundred_texts_are_placed_in_one_reading_of_the_repository():
    """400 descriptions over 200 files: each text read every file word by word (minutes on a larger
    repository); a hang guard only, the figures are bench/run.py --only hostile's."""
    import time

    body = "def tool_{0}(x):\n    # Look up record {0} in the ledger quickly.\n"
    files = {f"src/m{i}.py": body.format(i) * 50 for i in range(200)}
    texts = [f"Look up record {i} in the ledger quickly." for i in range(400)]
    started = time.process_time()
    found = SourceIndex(files).find(texts)
    assert found[0] == Place("src/m0.py", 2) and found[199] == Place("src/m199.py", 2) and found[399] is None
    assert time.process_time() - started < 10.0
