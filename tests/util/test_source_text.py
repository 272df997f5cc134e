"""Finding where a text is written in source files: exactly, else as the same run of words."""

from __future__ import annotations

from gate.util.source_text import Place, find_text, occurrences, word_line

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
    assert occurrences("weather", "the Weather") == []
    assert occurrences("Weather", "the Weather") == [4]


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
