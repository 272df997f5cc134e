"""Every user-supplied regular expression runs in bounded time: argument matchers, output checks,
path assertions and a tool's JSON Schema ``pattern``, whatever the pattern and the text."""

from __future__ import annotations

import json
import time

import pytest

from gate import limits
from gate.suite.matcher_tree import parse_matcher
from gate.suite.matchers import match_value, schema_validator
from gate.util import bounded_regex, schema_check
from tests.builders import path_assertion
from tests.commands.test_run import point
from tests.files.test_outputs import repo, run  # noqa: F401 - the fixture

EVIL = "^(a|aa)+$"
TEXT = "a" * 40 + "b"  # about 10^8 paths to backtrack through with Python's re
# Wall-clock allowance for one bounded search (the limit, plus a loaded machine's slack).
SLACK = limits.REGEX_TIMEOUT_SECONDS + 2.0


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def test_a_catastrophic_search_times_out_instead_of_hanging():
    start = time.perf_counter()
    with pytest.raises(bounded_regex.RegexTimeout, match="took longer than"):
        bounded_regex.search(EVIL, TEXT)
    assert time.perf_counter() - start < SLACK


def test_ordinary_patterns_keep_python_re_meaning():
    assert bounded_regex.search(r"(?i)^paris$", "PARIS")
    assert bounded_regex.search(r"^\d{4}-\d{2}-\d{2}$", "2026-11-23")
    assert not bounded_regex.search(r"^(?!tmp)\w+$", "tmpfile")
    assert bounded_regex.search(r"^(a+)+$", "a" * 26)
    assert not bounded_regex.search(r"^(a+)+$", "a" * 26 + "b")
    assert bounded_regex.regex_problem("([A-Z]") is not None
    assert bounded_regex.regex_problem(r"\w+") is None


@pytest.mark.parametrize("pattern", ["paris(?i)", "^a|(?s)b", r"\d+(?x) # digits"])
def test_an_inline_global_flag_after_the_start_is_refused_as_python_re_refuses_it(pattern):
    """The regex package would silently read paris(?i) as case-sensitive; the docs promise re."""
    problem = bounded_regex.regex_problem(pattern)
    assert problem is not None and "global flags not at the start" in problem
    assert "(?i:paris)" in problem
    with pytest.raises(bounded_regex.RegexError):
        bounded_regex.search(pattern, "PARIS")


def test_inline_flags_at_the_start_or_scoped_keep_working():
    for pattern in ("(?i)paris", "(?i)(?s)pa.is", "pa(?i:RIS)", "(?-i:x)|y"):
        assert bounded_regex.regex_problem(pattern) is None, pattern
    assert bounded_regex.search("pa(?i:RIS)", "paris") and not bounded_regex.search("pa(?i:RIS)", "PAris")


@pytest.mark.parametrize("pattern", ["(?:(?:a{1000}){1000}){1000}", "((a{100}){100}){100}", "a{4294967295}"])
def test_patterns_whose_counts_multiply_past_the_bound_are_refused_quickly(pattern):
    """The engine expands counted repetitions at compile time: these would take minutes and gigabytes."""
    start = time.perf_counter()
    problem = bounded_regex.regex_problem(pattern)
    assert problem is not None and "repetition counts multiply past 100,000" in problem
    assert time.perf_counter() - start < 1.0
    assert bounded_regex.regex_problem("(?:a{1000}){100}") is None  # at the bound: still compiles


def test_the_regex_matcher_fails_with_the_reason_in_bounded_time():
    outcome, elapsed = timed(match_value, parse_matcher({"regex": EVIL}), True, TEXT)
    assert not outcome.ok and "took longer than" in outcome.detail
    assert elapsed < SLACK


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"city": {"type": "string", "pattern": EVIL}}},
        {"type": "object", "patternProperties": {EVIL: {"type": "integer"}}},
        {"type": "object", "patternProperties": {EVIL: {}}, "additionalProperties": False},
    ],
)
def test_json_schema_patterns_run_in_bounded_time(schema):
    value = {"city": TEXT} if "properties" in schema else {TEXT: "x"}
    valid, elapsed = timed(schema_check.is_valid, schema, value)
    assert valid is False and elapsed < SLACK
    validator = schema_validator(json.dumps(schema, sort_keys=True))
    errors, elapsed = timed(lambda: list(validator.iter_errors(value)))
    assert errors and elapsed < 2 * SLACK * max(1, len(errors))
    if "properties" in schema:
        assert any("took longer than" in e.message for e in errors)


def test_a_tool_pattern_and_an_output_regex_cannot_stall_a_run(repo, model_server, monkeypatch, capsys):  # noqa: F811
    tools = [
        {
            "name": "get_weather",
            "description": "Weather.",
            "input_schema": {
                "type": "object",
                "properties": {"city": {"type": "string", "pattern": EVIL}},
                "required": ["city"],
            },
        }
    ]
    (repo / "tools" / "weather.json").write_text(json.dumps(tools))
    suite = repo / "suites" / "weather.suite.yaml"
    suite.write_text(
        "\n".join(
            [
                "version: 1",
                "name: weather",
                "agent: "
                "{provider: openai, model: m, system_prompt: hi, tools: [{file: ../tools/weather.json}]}",
                "cases:",
                "  - id: evil",
                "    input: weather please",
                "    expect:",
                f"      output: {{regex: '{EVIL}'}}",
            ]
        )
        + "\n"
    )
    script = {
        "rules": [
            {"when": {"turn": 1}, "tool_calls": [{"name": "get_weather", "arguments": {"city": TEXT}}]}
        ],
        "default": {"text": TEXT},
    }
    point(monkeypatch, model_server(script))
    start = time.perf_counter()
    code = run(repo, "--json", str(repo / "r.json"))
    elapsed = time.perf_counter() - start
    assert code == 1, capsys.readouterr().err
    failures = json.loads((repo / "r.json").read_text())["suites"][0]["cases"][0]["trials"][0]["failures"]
    assert {f["reason"] for f in failures} >= {"schema_violation", "output_check_failed"}
    assert any("took longer than" in f["message"] for f in failures)
    assert elapsed < 30


def test_a_path_assertion_regex_that_runs_out_of_time_fails_and_says_why():
    from gate.suite.path_assertions import evaluate
    from tests.results_factory import record

    assertion = path_assertion("output", {"matches": EVIL}, aggregate="all", threshold=1.0)
    score, elapsed = timed(evaluate, assertion, record(output=TEXT), {})
    assert not score.check.passed and "took longer than" in score.check.detail
    assert elapsed < SLACK
