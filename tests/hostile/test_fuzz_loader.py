"""Property-based fuzzing of YAML reading and suite loading.

Whatever the bytes of a suite file, ``load_suites`` returns suites or located problems: it never
raises, never hangs, and ``yaml_source.parse`` raises nothing but its documented ``YamlError``.
Inputs: random YAML-ish text, random byte strings, random edits of the text of a real suite, and
random changes to the data of a real suite (dumped back to YAML), which get past the parser and
the schema and so reach the semantic checks.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.errors import Problem
from gate.files.suite_loader import LoadResult, load_suites
from gate.files.yaml_source import YamlError, parse

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "weather"
SUITE = "weather/weather.suite.yaml"
FUZZ = settings(
    max_examples=60,
    deadline=5000,  # ms; a hang or an exponential blow-up shows here
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
# CPU-independent bound on one load, in wall seconds (generous: CI machines are shared).
HANG_LIMIT = 10.0

TOKENS = [
    "version: 1\n",
    "name: x\n",
    "cases:\n",
    "  - id: a\n",
    "    input: hi\n",
    "agent:\n",
    "expect:\n",
    ":",
    ": ",
    "-",
    "- ",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&a ",
    "*a",
    "!",
    "!!str ",
    "!!python/object ",
    "|",
    ">",
    '"',
    "'",
    "#",
    "\n",
    "  ",
    "\t",
    "%YAML 1.1\n",
    "---\n",
    "...\n",
    "?",
    "<<: *a\n",
    "@",
    "`",
    "\\",
    "\u00e9",
    "\u202e",
    "\x00",
    "\ufeff",
    "null",
    "~",
    "true",
    "1e9",
    "0x1F",
    ".nan",
    "{{ city }}",
    "tool: get_weather",
    "args: {city: Paris}",
    "file: ../x",
    "file: /etc/passwd",
    "regex: '('",
    # the hostile-input classes of issue 15
    "!!bool maybe",
    "!!int ",
    "!!float ",
    "!!bool ",
    "!!timestamp x",
    "!!map [1]",
    "!!seq {a: 1}",
    "*a : 1\n",
    "<<: {x: 1}\n<<: {y: 2}\n",
    "\x85",
    "\u2028",
    "\x01",
    "\x7f",
    '"\\ud83d\\ude00"',
    '"\\ud800"',
    ".inf",
    "yes",
    "010",
    "1:20",
    "trials: 2.0",
    "regex: '^(a|aa)+$'",
    "pattern: '(?<'",
    "$ref: '#/$defs/nope'",
]
yamlish = st.lists(st.sampled_from(TOKENS) | st.text(max_size=4), max_size=60).map("".join)


@pytest.fixture(scope="module")
def repo() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="fuzz-loader-"))
    shutil.copytree(EXAMPLE, root / "weather")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _load(repo: Path, content: str | bytes) -> LoadResult:
    target = repo / SUITE
    if isinstance(content, str):
        target.write_text(content, encoding="utf-8", errors="surrogatepass")
    else:
        target.write_bytes(content)
    start = time.perf_counter()
    result = load_suites([target], root=repo)
    assert time.perf_counter() - start < HANG_LIMIT
    assert isinstance(result, LoadResult)
    assert bool(result.suites) != bool(result.problems), "a suite file is either loaded or has problems"
    for problem in result.problems:
        assert isinstance(problem, Problem)
        assert problem.message and problem.line >= 0 and problem.column >= 0
        assert problem.path, problem
        assert "Traceback" not in problem.render()
    return result


@pytest.fixture(scope="module")
def original(repo: Path) -> str:
    return (repo / SUITE).read_text(encoding="utf-8")


def test_the_unmodified_example_loads(repo: Path, original: str) -> None:
    result = _load(repo, original)
    assert result.ok and len(result.suites) == 1 and result.suites[0].cases


@FUZZ
@given(text=yamlish)
def test_yamlish_text_gives_a_document_or_a_yaml_error(text: str) -> None:
    try:
        parse(text, "fuzz.suite.yaml")
    except YamlError as exc:
        assert exc.problems and all(p.path == "fuzz.suite.yaml" for p in exc.problems)


@FUZZ
@given(text=yamlish)
def test_yamlish_text_as_a_suite_file(repo: Path, text: str) -> None:
    _load(repo, text)


@FUZZ
@given(data=st.binary(max_size=300))
def test_random_bytes_as_a_suite_file(repo: Path, data: bytes) -> None:
    _load(repo, data)


def _text_edit(draw: st.DrawFn, text: str) -> str:
    lines = text.split("\n")
    kind = draw(st.sampled_from(["delete", "duplicate", "swap", "insert", "indent", "truncate", "replace"]))
    i = draw(st.integers(0, len(lines) - 1))
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "swap":
        j = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "insert":
        column = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:column] + draw(st.sampled_from(TOKENS)) + lines[i][column:]
    elif kind == "indent":
        lines[i] = draw(st.sampled_from(["", " ", "   ", "\t", "      "])) + lines[i].lstrip(" ")
    elif kind == "truncate":
        return text[: draw(st.integers(0, len(text)))]
    else:
        key, sep, _ = lines[i].partition(": ")
        if sep:
            lines[i] = (
                key
                + sep
                + draw(st.sampled_from(["", "[]", "{}", "null", "-1", "1.5", "'x'", "[1, 2]", "*a"]))
            )
    return "\n".join(lines)


@st.composite
def edited_suite(draw: st.DrawFn, text: str) -> str:
    for _ in range(draw(st.integers(1, 3))):
        text = _text_edit(draw, text)
    return text


@FUZZ
@given(data=st.data())
def test_edited_suite_text(repo: Path, original: str, data: st.DataObject) -> None:
    _load(repo, data.draw(edited_suite(original)))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


@st.composite
def mutated_suite(draw: st.DrawFn, data: dict[str, Any]) -> str:
    data = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(data) if p]
        path = draw(st.sampled_from(paths))
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        kind = draw(st.sampled_from(["replace", "delete", "add_key", "wrap_list", "swap_type"]))
        if kind == "replace":
            parent[last] = draw(json_values)
        elif kind == "delete":
            del parent[last]
        elif kind == "add_key" and isinstance(parent[last], dict):
            parent[last][draw(st.sampled_from(["x", "tool", "args", "file", "regex", "not", "optional"]))] = (
                draw(json_values)
            )
        elif kind == "wrap_list":
            parent[last] = [parent[last]]
        else:
            value = parent[last]
            parent[last] = (
                str(value) if not isinstance(value, str) else draw(st.sampled_from([0, 1.5, True, None]))
            )
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


@FUZZ
@given(data=st.data())
def test_mutated_suite_data(repo: Path, original: str, data: st.DataObject) -> None:
    _load(repo, data.draw(mutated_suite(yaml.safe_load(original))))


# The newest surfaces (issue 35): an agent program with watch globs, MCP server entries (started and
# reached), cases from a JSON lines and a CSV file beside inline ones.
PROGRAM_SUITE = {
    "version": 1,
    "name": "program",
    "agent": {
        "command": ["python3", "weather/agent.py", "--fast"],
        "watch": ["weather/**/*.py", "weather/[a-c]*.txt"],
        "timeout_s": 30,
        "tools": [
            {"file": "tools/weather.json"},
            {"mcp": {"command": ["python3", "weather/server.py"], "watch": ["weather/"], "calls": "live"}},
            {"mcp": {"url": "http://127.0.0.1:8000/mcp", "timeout_s": 5}},
        ],
    },
    "cases": [
        {"file": "data/cases.jsonl"},
        {"id": "inline", "input": "Weather in Paris?", "expect": {"calls": [{"tool": "get_weather"}]}},
        {"file": "data/cases.csv"},
    ],
}


@pytest.fixture(scope="module")
def program_repo(repo: Path) -> Path:
    (repo / "weather" / "agent.py").write_text("print('hi')\n")
    (repo / "weather" / "server.py").write_text("print('hi')\n")
    (repo / "weather" / "data").mkdir(exist_ok=True)
    (repo / "weather" / "data" / "cases.jsonl").write_text(
        '{"id": "j1", "input": "Weather in Rome?", "expect": {"calls": [{"tool": "get_weather", '
        '"args": {"city": "Rome"}}]}}\n{"id": "j2", "input": "Hi", "expect": {"no_calls": true}}\n'
    )
    (repo / "weather" / "data" / "cases.csv").write_text(
        'id,input,tool,args,tags\nc1,Weather in Oslo?,get_weather,"{""city"": ""Oslo""}","smoke, prod"\n'
    )
    return repo


def test_the_program_suite_loads_with_its_servers_tools_unknown(program_repo: Path) -> None:
    result = _load(program_repo, yaml.safe_dump(PROGRAM_SUITE, sort_keys=False))
    assert result.ok and [c.id for c in result.suites[0].cases] == ["j1", "j2", "inline", "c1"]


@FUZZ
@given(data=st.data())
def test_mutated_program_suite_data(program_repo: Path, data: st.DataObject) -> None:
    """A command as a string or [], a watch glob [z-a], a data file reference that is a number: each
    raised a traceback of its own before issue 35."""
    _load(program_repo, data.draw(mutated_suite(PROGRAM_SUITE)))


@FUZZ
@given(data=st.data())
def test_edited_program_suite_text(program_repo: Path, data: st.DataObject) -> None:
    _load(program_repo, data.draw(edited_suite(yaml.safe_dump(PROGRAM_SUITE, sort_keys=False))))
