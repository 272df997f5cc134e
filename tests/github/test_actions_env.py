"""The GitHub Actions runner interface: outputs, step summary, workflow-command annotations, masks."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from gate.errors import Problem
from gate.github.actions_env import (
    SUMMARY_LIMIT_BYTES,
    annotation,
    annotations_for,
    append_summary,
    mask,
    set_outputs,
)
from gate.verdict.conclusion import conclude
from tests.results_factory import case, failure, run, suite, trials_case


def parse_output_file(text: str) -> dict[str, str]:
    """Parse $GITHUB_OUTPUT the way the runner does (both `name=value` and heredoc forms)."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line:
            name, delimiter = line.split("<<", 1)
            body: list[str] = []
            i += 1
            while lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        i += 1
    return values


def test_set_outputs_round_trip_with_multiline_and_hostile_values(tmp_path: Path) -> None:
    path = tmp_path / "output"
    path.write_text("earlier=1\n")
    hostile = "line one\nEOF\nghadelimiter_x\nname<<EOF"
    set_outputs({"pass_rate": 0.875, "passed": True, "failed": 3, "report": hostile, "empty": None}, path)
    assert parse_output_file(path.read_text()) == {
        "earlier": "1",
        "pass_rate": "0.875",
        "passed": "true",
        "failed": "3",
        "report": hostile,
        "empty": "",
    }


def test_annotation_escapes_message_and_properties() -> None:
    text = annotation("error", "50% done\r\nnext", file="evals/a,b:c.yaml", line=12, title="x: y, z")
    assert text == "::error file=evals/a%2Cb%3Ac.yaml,line=12,title=x%3A y%2C z::50%25 done%0D%0Anext"
    assert annotation("notice", "plain") == "::notice::plain"
    assert annotation("warning", "m", file="f.yaml", line=3, col=7) == "::warning file=f.yaml,line=3,col=7::m"
    assert "\n" not in annotation("error", "a\nb\nc", title="t\nu")


def test_mask() -> None:
    assert mask("sk-secret") == "::add-mask::sk-secret"
    assert mask("") == ""
    assert mask("a\nb").splitlines() == ["::add-mask::a%0Ab", "::add-mask::a", "::add-mask::b"]


def test_append_summary_appends_and_respects_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    append_summary("# first", path)
    append_summary("second\n", path)
    assert path.read_text() == "# first\nsecond\n"

    big = "".join(f"| row {i} | é |\n" for i in range(100_000))  # > 1 MiB, multi-byte characters
    written = append_summary(big, path)
    data = path.read_bytes()
    assert len(data) <= SUMMARY_LIMIT_BYTES
    assert written == len(data) - len("# first\nsecond\n")
    text = data.decode("utf-8")  # cut on a character boundary
    assert "truncated" in text.splitlines()[-1]
    assert re.search(r"\| row \d+ \| é \|\n\n> \*\*Note", text)  # cut at a line end
    # A full summary takes no more.
    assert append_summary("more", path) == 0
    assert path.read_bytes() == data


def test_annotations_worst_first_capped_with_one_summary_notice() -> None:
    cases = [
        case(f"fail-{i}", "failed", line=10 + i, failures=[failure("wrong_tool", "called x instead of y")])
        for i in range(12)
    ]
    cases[5] = case("worst", "failed", line=99, trials=None, failures=[failure("missing_call", "no call")])
    cases.append(case("boom", "error", line=200))
    cases.append(trials_case("wobbly", "pfp", status="passed", line=300))
    results = run(suite("weather", cases))
    problems = [Problem("evals/bad.yaml", 3, 5, "unknown key 'expct'", hint="did you mean 'expect'?")]

    conclusion = conclude(results)
    verdict = conclusion.verdict
    commands = annotations_for(conclusion, problems)
    errors = [c for c in commands if c.startswith("::error")]
    warnings = [c for c in commands if c.startswith("::warning")]
    notices = [c for c in commands if c.startswith("::notice")]
    assert len(errors) == 10 and len(warnings) == 2 and len(notices) == 1
    assert errors[0].startswith(
        "::error file=evals/bad.yaml,line=3,col=5,title=invalid suite file::unknown key"
    )
    assert "did you mean" in errors[0]
    assert "file=evals/weather.yaml" in errors[1] and "wrong tool%3A" not in errors[1]
    assert "::wrong tool: called x instead of y" in errors[1]
    assert "weather / boom%3A evaluation error" in warnings[0]
    assert "provider failed: 503" in warnings[0]
    assert "wobbly is flaky" in warnings[1] and "2 of 3 trials" in warnings[1]
    assert "3 more error(s) and 0 more warning(s)" in notices[0]
    assert f"tool-eval-gate failed (pass rate {verdict.pass_rate:.1%})".replace("%", "%25") in notices[0]
    incomplete = replace(conclusion, verdict=replace(verdict, exit_code=3, passed=False))  # beyond the budget
    assert "tool-eval-gate: evaluation incomplete (pass rate" in annotations_for(incomplete)[-1]


def test_lowest_score_first() -> None:
    results = run(
        suite(
            "s",
            [
                case("better", "failed", trials=None, failures=[failure("value_error")]),
            ],
        )
    )

    s = results.suites[0]
    low = replace(s.cases[0], case_id="lower", score=0.1, line=50)
    high = replace(s.cases[0], case_id="higher", score=0.6, line=60)
    results = replace(results, suites=(replace(s, cases=(high, low)),))
    commands = annotations_for(conclude(results))
    assert "lower failed" in commands[0] and "higher failed" in commands[1]
    assert len(commands) == 3  # the verdict's notice, with no count of hidden annotations
    assert commands[2] == "::notice title=tool-eval-gate::tool-eval-gate failed (pass rate 0.0%25)"


def test_a_clean_run_says_only_its_verdict_and_no_run_nothing() -> None:
    passed = annotations_for(conclude(run(suite("s", [case("ok")]))))
    assert passed == ["::notice title=tool-eval-gate::tool-eval-gate passed (pass rate 100.0%25)"]
    assert annotations_for(None, problems=[]) == []
