"""Repository globs of a command's ``watch``: relative to the root, matched against whole paths."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.util.globs import glob_problem, matches, matches_any


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("src/*.py", "src/agent.py", True),
        ("src/*.py", "src/tools/a.py", False),  # one segment only
        ("src/**/*.py", "src/tools/a.py", True),
        ("src/**/*.py", "src/a.py", True),  # ** also matches no segment
        ("**/*.py", "x/y/a.py", True),
        ("*.py", "x/a.py", False),  # relative to the root, not "anywhere"
        ("src/", "src/x/y.ts", True),  # a directory: everything below it
        ("src/", "srcx/y.ts", False),
        ("src/**", "src/a/b", True),
        ("agent/[ab].py", "agent/a.py", True),
        ("agent/[!ab].py", "agent/a.py", False),
        ("agent/[!ab].py", "agent/c.py", True),
        ("agent/?.py", "agent/b.py", True),
        ("./agent/*", "agent/b", True),
        ("agent.py", "agent.py", True),
        ("agent.py", "agent_py", False),  # '.' is literal
    ],
)
def test_matches(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def test_matches_any() -> None:
    assert matches_any(["docs/*", "src/**/*.ts"], "src/a/b.ts")
    assert not matches_any([], "src/a/b.ts")


@pytest.mark.parametrize(
    ("pattern", "word"),
    [
        ("", "empty"),
        ("/etc/*", "relative"),
        ("src/../../x", "leave"),
        ("src\\a.py", "'/'"),
        ("C:/x", "relative"),
        ("src/a\0b.py", "NUL"),
        ("agent/**/*.{py,ts}", "one pattern per alternative"),
        ("{src,lib}/*.py", "one pattern per alternative"),
    ],
)
def test_patterns_that_cannot_be_repository_globs(pattern: str, word: str) -> None:
    problem = glob_problem(pattern)
    assert problem is not None and word in problem


def test_good_patterns_have_no_problem() -> None:
    assert glob_problem("examples/**/*.py") is None
    assert glob_problem("agent/") is None
    assert glob_problem("templates/{name}.txt") is None  # braces without alternatives are characters


def test_alternatives_would_have_matched_none_of_the_files_meant() -> None:
    """Why ``{a,b}`` is refused: the matcher reads it as those characters (as fnmatch does), so a
    change to ``agent/main.py`` under ``agent/*.{py,ts}`` was no change of the suite's program."""
    assert not matches("agent/*.{py,ts}", "agent/main.py")
    assert matches("agent/*.{py,ts}", "agent/main.{py,ts}")


# -- bounded matching, invalid classes -------------------------------------------------------------


def test_a_glob_that_backtracks_a_regex_for_hours_matches_in_bounded_time() -> None:
    """Twelve ``**`` segments against a path 24 levels deep (run --changed-since hung on it), and
    twenty ``*`` in one segment against a long name that almost matches: a hang guard (the regex
    took hours); the figures are bench/run.py --only hostile's."""
    import time

    deep = "/".join(["d"] * 24) + "/x.py"
    started = time.perf_counter()
    assert not matches("/".join(["**"] * 12) + "/*.ts", deep)
    assert matches("/".join(["**"] * 12) + "/*.py", deep)
    assert not matches("*a" * 20 + "b", "a" * 200)
    assert not matches_any(["**/" * 40 + "[!d]*/**/y"], deep)
    assert time.perf_counter() - started < 10.0


@pytest.mark.parametrize("pattern", ["agent/[z-a].py", "[9-0]*/**", "src/[!c-a]"])
def test_a_reversed_range_is_refused_and_matches_nothing(pattern: str) -> None:
    problem = glob_problem(pattern)
    assert problem is not None and "reversed" in problem
    assert not matches(pattern, "agent/b.py")


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("a/[]x].py", "a/].py", True),  # a ']' first in a class is one of its characters
        ("a/[!]x].py", "a/].py", False),
        ("a/[!]x].py", "a/y.py", True),
        ("a/[b.py", "a/[b.py", True),  # a '[' without its ']' is itself
        ("a/[a-c-]", "a/-", True),
        ("a/**", "a", False),  # everything below a, not a
        ("a/", "a", False),
        ("**", "x/y", True),
    ],
)
def test_classes_and_segments_read_as_documented(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def _regex_oracle(pattern: str) -> re.Pattern[str]:
    """The glob as a regular expression (what the gate used to match with), for small inputs."""
    text = pattern.removeprefix("./")
    below = text.endswith("/")
    segments = [s for s in text.rstrip("/").split("/") if s not in ("", ".")]
    out = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append("(?:.+)" if last else "(?:[^/]+/)*")
            continue
        part, i = "", 0
        while i < len(segment):
            char = segment[i]
            end = -1
            if char == "[":
                start = (
                    i + 3
                    if segment[i + 1 : i + 3] == "!]"
                    else i + 2
                    if segment[i + 1 : i + 2] in "!]" and segment[i + 1 : i + 2]
                    else i + 1
                )
                end = segment.find("]", start)
            if end != -1:
                body = segment[i + 1 : end]
                negated = body.startswith("!")
                body = re.sub(r"([\\^\[\]])", r"\\\1", body[1:] if negated else body)
                part += f"[^/{body}]" if negated else f"[{body}]"
                i = end + 1
                continue
            part += "[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char)
            i += 1
        out.append(part + ("" if last else "/"))
    return re.compile("".join(out) + ("/.+" if below else ""), re.DOTALL)


_GLOB_PIECES = st.sampled_from(["a", "b", "*", "?", "[ab]", "[!a]", "[a-c]", "/", "**/", ".", "-"])
_PATHS = st.lists(st.text(st.sampled_from("ab.-c"), min_size=1, max_size=4), min_size=1, max_size=5).map(
    "/".join
)


@settings(max_examples=400, deadline=None)
@given(pattern=st.lists(_GLOB_PIECES, min_size=1, max_size=8).map("".join), path=_PATHS)
def test_matching_agrees_with_the_regex_translation(pattern: str, path: str) -> None:
    if glob_problem(pattern) is not None or not pattern.strip("./"):
        return  # refused by validate; "./" (everything) the regex read as nothing
    written = "/".join(segment for segment in pattern.split("/") if segment != ".")  # "a/./b" is "a/b"
    if written.rstrip("/").endswith("**") and written.endswith("/"):
        return  # "dir/**/" (or "**/./"): below a directory, also one level down (the regex wanted two)
    # A path's leading "./" is the root, for matches as for every path the gate compares (the oracle
    # reads patterns only: hypothesis found "aab" against "./aab").
    expected = _regex_oracle(pattern).fullmatch(path.removeprefix("./")) is not None
    assert matches(pattern, path) == expected, (pattern, path)
