"""Repository globs of a command's ``watch``: relative to the root, matched against whole paths."""

from __future__ import annotations

import pytest

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
    ],
)
def test_patterns_that_cannot_be_repository_globs(pattern: str, word: str) -> None:
    problem = glob_problem(pattern)
    assert problem is not None and word in problem


def test_good_patterns_have_no_problem() -> None:
    assert glob_problem("examples/**/*.py") is None
    assert glob_problem("agent/") is None
