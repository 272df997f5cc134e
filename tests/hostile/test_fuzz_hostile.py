"""Fuzzers for the hostile-input classes: user regexes always finish in bounded time and agree with
Python's ``re`` where that finishes; results files of any content load or give an ``InputError``;
output paths of any shape are accepted or refused with an ``InputError`` before the run."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate import limits
from gate.errors import InputError
from gate.files.outputs import check_output
from gate.files.results_file import load_results
from gate.util import bounded_regex

GOLDEN = Path(__file__).parents[1] / "golden" / "results.json"

ATOMS = ["a", "aa", "b", ".", r"\w", r"\s", r"\d", "[ab]", "(?i)a", "x"]


@st.composite
def patterns(draw: st.DrawFn) -> str:
    """Patterns built from nested quantified groups: the shapes that backtrack exponentially."""
    pattern = draw(st.sampled_from(ATOMS))
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["group+", "group*", "alt", "concat", "anchor"]))
        other = draw(st.sampled_from(ATOMS))
        pattern = {
            "group+": f"({pattern})+",
            "group*": f"(?:{pattern})*",
            "alt": f"({pattern}|{other})",
            "concat": f"{pattern}{other}",
            "anchor": f"^{pattern}$",
        }[kind]
    return pattern


texts = st.builds(lambda n, tail: "a" * n + tail, st.integers(0, 40), st.sampled_from(["", "b", "!", " a"]))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns(), text=texts)
def test_user_regexes_finish_in_bounded_time_and_agree_with_re(pattern: str, text: str) -> None:
    start = time.perf_counter()
    try:
        found = bounded_regex.search(pattern, text)
    except bounded_regex.RegexTimeout:
        found = None
    except bounded_regex.RegexError as exc:  # refused as re refuses it (a global flag mid-pattern)
        assert "global flags not at the start" in str(exc)
        with pytest.raises(re.error, match="global flags not at the start"):
            re.compile(pattern)
        return
    assert time.perf_counter() - start < limits.REGEX_TIMEOUT_SECONDS + 2.0
    if found is not None and len(text) <= 12:  # short enough for re to finish whatever the pattern
        try:
            expected = re.search(pattern, text) is not None
        except re.error:  # e.g. an inline flag inside a group: the regex engine accepts it, re does not
            return
        assert found == expected


def _mutations(draw: st.DrawFn, data: object) -> object:
    paths: list[tuple[object, ...]] = []
    stack: list[tuple[tuple[object, ...], object]] = [((), data)]
    while stack:
        path, node = stack.pop()
        paths.append(path)
        if isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node))
    path = draw(st.sampled_from(paths))
    if not path:
        return draw(st.sampled_from([None, [], "x", 1]))
    parent = data
    for part in path[:-1]:
        parent = parent[part]  # type: ignore[index]
    replacement = draw(
        st.sampled_from([None, -1, 1.5, "", "x", [], {}, {"prompt": 99, "role": "system"}, True, 10**30])
    )
    parent[path[-1]] = replacement  # type: ignore[index]
    return data


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_any_results_file_loads_or_is_an_input_error(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    document = json.loads(GOLDEN.read_text(encoding="utf-8"))
    for _ in range(data.draw(st.integers(1, 3))):
        document = _mutations(data.draw, document)
    text = json.dumps(document)
    if data.draw(st.booleans()):
        cut = data.draw(st.integers(0, len(text)))
        text = text[:cut]
    path = tmp_path_factory.mktemp("r") / "results.json"
    path.write_text(text, encoding="utf-8")
    try:
        load_results(path)
    except InputError as exc:
        assert exc.problems and all(p.path == str(path) for p in exc.problems)


segment = st.one_of(
    st.sampled_from(["", ".", "..", "x", "dir", "a" * 300, "\x00", "nul\x00x", "é", "\ud800", "-", " "]),
    st.text(min_size=1, max_size=8),
)


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(segment, min_size=1, max_size=4))
def test_any_output_path_is_accepted_or_refused_before_the_run(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str]
) -> None:
    base = tmp_path_factory.mktemp("out")
    (base / "dir").mkdir()
    (base / "x").write_text("")
    path = str(base) + "/" + "/".join(parts)
    try:
        target = check_output(path)
    except InputError as exc:
        assert exc.problems and "cannot write output here" in exc.problems[0].message
    else:
        target.close()
        assert target.mode in ("replace", "in_place", "stream")


@settings(max_examples=150, deadline=None)
@given(
    depth=st.integers(0, 3000),
    opener=st.sampled_from(["[", '{"a":', '{"a": [']),
    tail=st.sampled_from(["", "]", "}", "x", "1"]),
)
def test_any_nesting_of_tool_arguments_is_parsed_or_invalid_never_an_exception(
    depth: int, opener: str, tail: str
) -> None:
    from gate.results.run_record import parse_arguments

    closer = {"[": "]", '{"a":': "}", '{"a": [': "]}"}[opener]
    raw = '{"k": ' + opener * depth + "1" + closer * depth + tail + "}"
    arguments, error = parse_arguments(raw)
    assert (arguments is None) != (error is None)
    if arguments is not None:
        assert not limits.nested_deeper_than(arguments)


LINKISH = [
    "#42",
    "GH-7",
    "org/repo#9",
    "https://evil.example",
    "http://x.y",
    "www.evil.example",
    "@octocat",
    "WWW.X.Y",
]


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.sampled_from(LINKISH) | st.text(max_size=6), max_size=8))
def test_model_text_never_becomes_a_link_or_mention(parts: list[str]) -> None:
    from gate.util.escape import html_text, md_text

    text = " ".join(parts)
    for escaped in (md_text(text), html_text(text)):
        plain = escaped.replace("&#8203;", "\u200b")
        assert re.search(r"#\d|(?i:\bgh)-\d|://|(?i:\bwww)\.|@[A-Za-z0-9]", plain) is None, escaped


@settings(max_examples=150, deadline=None)
@given(
    prefix=st.sampled_from(["", "MY_", "AZURE_OPENAI_", "X_"]),
    word=st.sampled_from(["KEY", "TOKEN", "SECRET", "PASSWORD", "DSN", "WEBHOOK_URL", "API_KEY", "PASSWD"]),
    suffix=st.sampled_from(["", "_V2", "_PROD"]),
    secret=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=8, max_size=30),
)
def test_a_secret_under_any_such_name_is_masked(prefix: str, word: str, suffix: str, secret: str) -> None:
    from gate.util.redact import Redactor

    redactor = Redactor.from_env({f"{prefix}{word}{suffix}": secret})
    assert secret not in redactor.redact(f"the model said {secret} and {json.dumps(secret)}")
