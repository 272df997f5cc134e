"""Cases from data files (``cases: [{file: cases.jsonl}]``, JSON lines or CSV), mixed with cases
written in the suite: read, checked line by line at their own ``file:line:column``, their position
kept for every report, and found by the files that change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.files.suite_loader import load_suites
from gate.git.affected import Change, ChangeSet, affected_suites
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
    assert paris.expect.calls.calls[0].args == {"city": {"normalized": "paris"}}
    assert rome.expect.calls.calls[0].allow_extra_args  # args left out: any arguments
    assert oslo.expect.calls.calls[0].args == {"city": "Oslo"} and oslo.tags == ("smoke", "prod")
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
