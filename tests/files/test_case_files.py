"""Cases from data files (``cases: [{file: cases.jsonl}]``, JSON lines or CSV), mixed with cases
written in the suite: read, checked line by line at their own ``file:line:column``, their position
kept for every report, and found by the files that change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.files.suite_loader import load_suites
from gate.git.affected import Change, ChangeSet, affected_suites
from gate.suite.matcher_tree import matchers_json
from tests.builders import WEATHER_FUNCTION

SUITE = """\
version: 1
name: weather
agent:
  provider: openai
  model: gpt-4o-mini
  tools: [{file: tools/weather.json}]
cases:
  - id: inline
    input: What is a cold front?
    expect: {no_calls: true}
  - file: data/cases.jsonl
  - file: data/simple.csv
"""

JSONL = [
    {
        "id": "paris",
        "input": "Weather in Paris?",
        "tags": ["prod"],
        "expect": {"calls": [{"tool": "get_weather", "args": {"city": {"normalized": "paris"}}}]},
    },
    {"id": "rome", "input": "Weather in Rome?", "expect": {"calls": [{"tool": "get_weather"}]}},
]

CSV = """\
id,input,tool,args,tags
oslo,Weather in Oslo?,get_weather,"{""city"": ""Oslo""}",smoke prod
hello,"Hello, who are you?",,,
any-args,Weather somewhere?,get_weather,,
"""


def repository(tmp_path: Path, suite: str = SUITE, jsonl: str | None = None, csv: str = CSV) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(json.dumps([WEATHER_FUNCTION]))
    (tmp_path / "weather.suite.yaml").write_text(suite)
    lines = jsonl if jsonl is not None else "\n".join(json.dumps(c) for c in JSONL) + "\n"
    (tmp_path / "data" / "cases.jsonl").write_text(lines)
    (tmp_path / "data" / "simple.csv").write_text(csv)
    return tmp_path


def rendered(root: Path, *paths: str) -> list[str]:
    return [p.render() for p in load_suites([root / p for p in paths] or [root], root=root).problems]


def test_data_file_cases_load_in_place_with_their_own_file_and_line(tmp_path):
    root = repository(tmp_path)
    loaded = load_suites([root], root=root)
    assert loaded.problems == ()
    cases = loaded.suites[0].cases
    assert [c.id for c in cases] == ["inline", "paris", "rome", "oslo", "hello", "any-args"]
    where = [(c.source.path, c.source.line) for c in cases]
    assert where == [
        ("weather.suite.yaml", 8),
        ("data/cases.jsonl", 1),
        ("data/cases.jsonl", 2),
        ("data/simple.csv", 2),
        ("data/simple.csv", 3),
        ("data/simple.csv", 4),
    ]
    paris, rome, oslo, hello, any_args = cases[1:]
    assert paris.tags == ("prod",)
    assert matchers_json(paris.expect.calls.calls[0].args) == {"city": {"normalized": "paris"}}
    assert rome.expect.calls.calls[0].allow_extra_args  # args left out: any arguments
    assert matchers_json(oslo.expect.calls.calls[0].args) == {"city": "Oslo"} and oslo.tags == (
        "smoke",
        "prod",
    )
    assert hello.expect.calls.no_calls and hello.conversation[0].content == "Hello, who are you?"
    assert any_args.expect.calls.calls[0].allow_extra_args
    assert set(loaded.suites[0].dependencies) >= {"data/cases.jsonl", "data/simple.csv"}


def test_every_line_is_checked_and_reported_at_its_own_file_line_and_column(tmp_path):
    jsonl = "\n".join(
        [
            json.dumps(JSONL[0]),
            "",
            '{"id": "b", "input": "x", "expect": {"calls": [{"tool": "get_wether"}]}}',
            '{"id": "c", "input": "x", "bogus": 1}',
            '{"id": "inline", "input": "the same id as a case in the suite"}',
            '{"id": "d", "input": "x" "y"}',
            "[1]",
            '{"id": "e", "input": "x", "input": "twice"}',
        ]
    )
    csv = (
        'id,input,tool,args\nm1,"a, b",get_weather,{city\nm 2,x,get_weather,\nm3,x,,"{}"\n'
        "m4,too,many,fields,here\n"
    )
    root = repository(tmp_path, jsonl=jsonl, csv=csv)
    assert rendered(root) == [
        "data/cases.jsonl:3:57: expect.calls[0].tool: unknown tool 'get_wether' "
        "(fix: did you mean 'get_weather'?)",
        "data/cases.jsonl:4:27: unknown key 'bogus' (fix: allowed: id, description, input, conversation, "
        "vars, tags, expect, trials, reducer, at_least, mean_pass_score, max_tool_calls, max_turns, "
        "scoring, mocks, skip, state, non_gating, user)",
        "data/cases.jsonl:5:8: id: duplicate case id 'inline' (first at weather.suite.yaml:8) "
        "(fix: case ids must be unique in the suite)",
        "data/cases.jsonl:6:26: invalid JSON: Expecting ',' delimiter "
        "(fix: write each case on one line as a JSON object)",
        "data/cases.jsonl:7:1: a case is a JSON object, got a list "
        "(fix: write each case on one line as a JSON object)",
        "data/cases.jsonl:8:1: duplicate key 'input' (fix: write each key once per case)",
        "data/simple.csv:2:23: args: not JSON (Expecting property name enclosed in double quotes: line 1 "
        'column 2 (char 1)) (fix: write the arguments as a JSON object, e.g. {"city": "Paris"} '
        '(in CSV: "{""city"": ""Paris""}"))',
        "data/simple.csv:3:1: id: invalid value 'm 2' (fix: use only letters, digits, '_', '.' or '-')",
        "data/simple.csv:4:7: arguments without a tool (fix: name the tool in the tool column)",
        "data/simple.csv:5:1: this row has 5 fields, the header names 4 "
        "(fix: quote a field that holds a comma)",
    ]


def test_a_csv_header_names_known_columns_and_the_needed_ones(tmp_path):
    root = repository(tmp_path, csv="id,question,tool\nx,y,z\n")
    hint = "(fix: the header names the columns: id, input, tool, args, tags (id and input are needed))"
    assert rendered(root) == [
        f"data/simple.csv:1:1: the column 'input' is missing {hint}",
        f"data/simple.csv:1:1: unknown column 'question' {hint}",
    ]


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        ("data/missing.jsonl", "weather.suite.yaml:11:11: file not found: 'data/missing.jsonl'"),
        ("data/cases.txt", "weather.suite.yaml:11:11: 'data/cases.txt' is not a data file of cases"),
        ("../outside.jsonl", "weather.suite.yaml:11:11: file reference '../outside.jsonl' points outside"),
        ("data/empty.jsonl", "weather.suite.yaml:11:11: 'data/empty.jsonl' holds no case"),
    ],
)
def test_a_data_file_that_gives_no_case_is_one_problem_at_the_reference(tmp_path, reference, expected):
    root = repository(tmp_path, suite=SUITE.replace("data/cases.jsonl", reference))
    (root / "data" / "empty.jsonl").write_text("\n\n")
    (root / "data" / "cases.txt").write_text("{}")
    problems = rendered(root)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_validating_a_data_file_checks_the_suites_that_use_it(tmp_path):
    root = repository(tmp_path, jsonl='{"id": "x", "input": "y", "expect": {"calls": [{"tool": "nope"}]}}\n')
    assert [p.split(": ")[0] for p in rendered(root, "data/cases.jsonl")] == ["data/cases.jsonl:1:57"]
    (root / "data" / "orphan.jsonl").write_text('{"id": 1\n')
    assert rendered(root, "data/orphan.jsonl") == [
        "data/orphan.jsonl:1:9: invalid JSON: Expecting ',' delimiter "
        "(fix: write each case on one line as a JSON object)"
    ]


def test_a_changed_data_file_affects_the_suites_that_read_it(tmp_path):
    root = repository(tmp_path)
    suites = load_suites([root], root=root).suites
    simple = ChangeSet((Change("data/simple.csv", "file", "file"),))
    assert affected_suites(suites, simple) == {"weather.suite.yaml": {"data/simple.csv": "cases"}}
    assert affected_suites(suites, ChangeSet((Change("data/other.csv", "file", "file"),))) == {}


# -- hostile and unlucky data files ---------------------------------------------------------------


def _outcome(root: Path) -> tuple[list[tuple[str, str, int, tuple[str, ...]]], list[str]]:
    """What a repository's data files give: each case (id, file, line, tags), each problem."""
    loaded = load_suites([root], root=root)
    cases = [(c.id, c.source.path, c.source.line, c.tags) for s in loaded.suites for c in s.cases]
    return cases, [p.render() for p in loaded.problems]


def _write_data(root: Path, name: str, lines: list[str], end: str) -> None:
    (root / "data" / name).write_bytes(end.join(lines).encode("utf-8") + end.encode())


def test_a_lone_cr_ends_a_line_as_lf_and_crlf_do(tmp_path):
    """A data file saved with old Mac line endings (CR only) reads as with LF or CR LF: the same cases
    at the same lines, the same problems at the same line:column (the CSV gave an IndexError)."""
    jsonl = [json.dumps(JSONL[0]), "", json.dumps(JSONL[1])]
    csv_rows = ["id,input,tool,args,tags", 'q,"two\rlines",get_weather,"{""city"": ""Oslo""}",a', "r,x,,,"]
    bad_jsonl = [*jsonl, '{"id": "b", "input": "x", "expect": {"calls": [{"tool": "nope"}]}}']
    bad_csv = [*csv_rows, 's,"three\r\rlines",get_weather,"{""city"": 5}",']
    seen = []
    for end in ("\n", "\r\n", "\r"):
        for bad in (False, True):
            root = tmp_path / f"{end!r}{bad}"
            root.mkdir()
            repository(root)
            _write_data(root, "cases.jsonl", bad_jsonl if bad else jsonl, end)
            rows = bad_csv if bad else csv_rows
            _write_data(root, "simple.csv", [row.replace("\r", end) for row in rows], end)
            seen.append(_outcome(root))
    assert seen[0] == seen[2] == seen[4] and seen[1] == seen[3] == seen[5]
    cases, problems = seen[0]
    assert problems == []
    assert ("q", "data/simple.csv", 2, ("a",)) in cases and ("r", "data/simple.csv", 4, ()) in cases
    assert ("rome", "data/cases.jsonl", 3, ()) in cases
    assert [p.split(": ")[0] for p in seen[1][1]] == ["data/cases.jsonl:4:57", "data/simple.csv:7:20"]


def test_a_data_file_line_referring_to_another_data_file_is_refused_not_dropped(tmp_path):
    root = repository(tmp_path, jsonl=json.dumps(JSONL[0]) + '\n{"file": "more.jsonl"}\n')
    (root / "data" / "more.jsonl").write_text(json.dumps(JSONL[1]) + "\n")
    assert rendered(root) == [
        "data/cases.jsonl:2:1: a data file holds cases, not references to other data files "
        '(fix: list "more.jsonl" in the suite\'s own cases: [{file: ...}])'
    ]


@pytest.mark.parametrize("number", ["-1e400", "1e309", "1" + "0" * 5000])
def test_a_number_no_suite_may_hold_is_refused_at_its_column_in_jsonl_and_csv(tmp_path, number):
    """What the YAML of a suite refuses (an infinity) a data file refuses too, at the number."""
    line = '{"id": "p", "input": "x", "expect": {"calls": [{"tool": "get_weather", "args": {"days": '
    line += '{"range": {"min": ' + number + "}}}}]}}"
    csv = 'id,input,tool,args\nq,x,get_weather,"{""days"": ' + number + '}"\n'
    root = repository(tmp_path, jsonl=line + "\n", csv=csv)
    problems = rendered(root)
    assert [p.split(": ")[0] for p in problems] == ["data/cases.jsonl:1:107", "data/simple.csv:2:17"]
    assert all("invalid number" in p and "write a finite number" in p for p in problems)


def test_csv_arguments_nested_past_the_bound_are_refused_at_the_cell(tmp_path):
    deep = "[" * 900 + "]" * 900
    root = repository(tmp_path, csv=f'id,input,tool,args\nq,x,get_weather,"{{""city"": {deep}}}"\n')
    assert rendered(root) == ["data/simple.csv:2:17: args: nested deeper than 64 levels"]


@pytest.mark.parametrize("cell", ['"smoke, "', '" smoke ,,prod "', "smoke", '"smoke,\tprod"'])
def test_csv_tags_are_trimmed_of_empty_pieces(tmp_path, cell):
    root = repository(tmp_path, csv=f"id,input,tool,args,tags\nq,x,,,{cell}\n")
    cases, problems = _outcome(root)
    assert problems == []
    [tags] = [tags for case_id, _, _, tags in cases if case_id == "q"]
    assert tags in (("smoke",), ("smoke", "prod"))


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_JSONL_LINES = st.one_of(
    st.builds(
        lambda n, tool, args: json.dumps(
            {"id": f"j{n}", "input": "hi", "expect": {"calls": [{"tool": tool, "args": args}]}}
        ),
        st.integers(0, 5),
        st.sampled_from(["get_weather", "nope"]),
        st.dictionaries(st.sampled_from(["city", "days", "x"]), _JSON_VALUES, max_size=2),
    ),
    _JSON_VALUES.map(json.dumps),
    st.sampled_from(
        ['{"file": "x.jsonl"}', "-1e400", '{"id": "n", "input": -1e400}', "[" * 70 + "]" * 70, ""]
    ),
    st.text(st.sampled_from('{}[]",: ab1-e'), max_size=20),
)
_CELLS = st.text(st.sampled_from('ab ,"{}[]:1-e\t'), max_size=12)
_CSV_ROWS = st.lists(
    st.tuples(
        st.sampled_from(["c1", "c2", "c 3", ""]),
        _CELLS,
        st.sampled_from(["get_weather", "", "nope"]),
        _CELLS,
        _CELLS,
    ),
    max_size=5,
)


def _csv_text(rows: list[tuple[str, ...]], end: str, breaks: bool) -> str:
    """The CSV of ``rows`` (header first), each field quoted, lines ended by ``end``; with ``breaks``
    every input cell also holds a line break of that kind (inside its quotes)."""

    def field(text: str) -> str:
        return '"' + text.replace('"', '""') + '"'

    lines = ["id,input,tool,args,tags"]
    for id_, text, tool, args, tags in rows:
        text = f"{text}{end}more" if breaks else text
        lines.append(",".join(field(cell) for cell in (id_, text, tool, args, tags)))
    return end.join(lines) + end


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_JSONL_LINES, max_size=6), rows=_CSV_ROWS, breaks=st.booleans())
def test_any_data_file_loads_or_is_refused_at_its_lines_whatever_its_line_endings(
    tmp_path, lines, rows, breaks
):
    """Whatever a data file holds, loading gives cases or located problems (no exception), every
    position is inside the file, and the file means the same with LF, CR LF or CR line endings."""
    seen = []
    for end in ("\n", "\r\n", "\r"):
        root = tmp_path / f"{len(list(tmp_path.iterdir()))}"
        root.mkdir()
        repository(root)
        _write_data(root, "cases.jsonl", lines, end)
        (root / "data" / "simple.csv").write_bytes(_csv_text(rows, end, breaks).encode())
        cases, problems = _outcome(root)
        count = {"data/cases.jsonl": len(lines) + 1, "data/simple.csv": 2 + len(rows) * (2 if breaks else 1)}
        for problem in problems:
            where = problem.split(": ")[0]
            path, line, column = where.rsplit(":", 2)
            if path in count:
                assert 1 <= int(line) <= count[path] and int(column) >= 1, problem
        seen.append((cases, [p.split(": ")[0] for p in problems]))
    assert seen[0] == seen[1] == seen[2]
