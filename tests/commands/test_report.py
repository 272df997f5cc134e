from __future__ import annotations

import json
from pathlib import Path

from gate import cli
from gate.files.results_file import load_results
from gate.results_json.codec import to_json
from tests.results_factory import case, failure, run, simple, suite

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def write(path: Path, results) -> Path:
    path.write_text(to_json(results), encoding="utf-8")
    return path


def test_rerendering_twice_is_byte_identical(tmp_path):
    outputs = []
    for name in ("one", "two"):
        out = tmp_path / name / "deep"
        code = cli.main(
            [
                "report",
                str(GOLDEN / "results.json"),
                "--baseline",
                str(GOLDEN / "baseline.json"),
                "--junit",
                str(out / "junit.xml"),
                "--markdown",
                str(out / "report.md"),
                "--json",
                str(out / "results.json"),
            ]
        )
        assert code == 1
        outputs.append([(out / f).read_bytes() for f in ("junit.xml", "report.md", "results.json")])
    assert outputs[0] == outputs[1]
    rerendered = json.loads(outputs[0][2])
    # With a baseline, the JSON carries the comparison; the results themselves are unchanged.
    assert rerendered.pop("comparison")["counts"]["regressed"] >= 1
    assert rerendered.pop("verdict")["outcome"] == "failed"
    assert json.dumps(rerendered, sort_keys=True) == json.dumps(
        json.loads((GOLDEN / "results.json").read_bytes()), sort_keys=True
    )
    assert not list((tmp_path / "one" / "deep").glob("*.tmp"))


def test_exit_codes_and_verdict_line(tmp_path, capsys):
    passing = write(tmp_path / "p.json", run(simple(9, 1)))
    assert cli.main(["report", str(passing)]) == 0
    assert "tool-eval-gate PASSED: 9/10 passed" in capsys.readouterr().out
    assert cli.main(["report", str(passing), "--threshold", "0.95"]) == 1
    assert "FAILED" in capsys.readouterr().out
    assert cli.main(["report", str(passing), "--threshold", "95"]) == 1  # percent form
    assert cli.main(["report", str(passing), "--fail-on", "any-failure"]) == 1
    incomplete = write(tmp_path / "i.json", run(simple(9), complete=False, incomplete_reason="interrupted"))
    assert cli.main(["report", str(incomplete)]) == 3
    errors = write(tmp_path / "e.json", run(simple(9, 0, errors=2, threshold=0.9)))
    assert cli.main(["report", str(errors)]) == 3  # 2 of 11 errors: beyond the default budget (10%)
    assert "more than the error budget of 10.0%" in capsys.readouterr().out
    assert cli.main(["report", str(errors), "--max-error-rate", "0.2"]) == 1
    assert cli.main(["report", str(errors), "--max-error-rate", "0.2", "--errors", "ignore"]) == 0


def test_settings_recorded_in_the_results_apply_unless_overridden(tmp_path):
    path = write(tmp_path / "r.json", run(simple(7, 3), settings={"threshold": 0.7}))
    assert cli.main(["report", str(path)]) == 0
    assert cli.main(["report", str(path), "--threshold", "0.8"]) == 1


def test_shards_are_merged(tmp_path, capsys):
    a = write(tmp_path / "a.json", run(suite("s", [case("c1", line=1), case("c3", line=3)]), shard="1/2"))
    b = write(
        tmp_path / "b.json",
        run(
            suite("s", [case("c2", "failed", line=2, failures=[failure("missing_call", tool="t")])]),
            shard="2/2",
        ),
    )
    merged = tmp_path / "merged.json"
    assert cli.main(["report", str(b), str(a), "--json", str(merged), "--threshold", "0.5"]) == 0
    results = load_results(merged)
    assert [c.case_id for c in results.suites[0].cases] == ["c1", "c2", "c3"] and results.shard == ""
    assert "2/3 passed" in capsys.readouterr().out
    # one shard missing: incomplete
    assert cli.main(["report", str(a)]) == 3


def test_invalid_input_exits_2_with_a_clear_message(tmp_path, capsys):
    foreign = tmp_path / "package.json"
    foreign.write_text(json.dumps({"name": "x", "version": "1.0.0"}))
    assert cli.main(["report", str(foreign)]) == 2
    err = capsys.readouterr().err
    assert str(foreign) in err and "not a tool-eval-gate results file" in err
    assert cli.main(["report"]) == 2
    assert cli.main(["report", str(GOLDEN / "results.json"), "--threshold", "abc"]) == 2
    assert cli.main(["report", str(tmp_path / "nope.json")]) == 2
    a = write(tmp_path / "a.json", run(suite("s", [case("c1")]), shard="1/2"))
    assert cli.main(["report", str(a), str(a)]) == 2  # the same shard twice


def test_the_full_report_hint_given_on_the_command_line_is_said_as_text(tmp_path):
    """--full-report-hint is text: said where the report was shortened, never live Markdown."""
    from tests.reports.test_markdown import big_results

    results = write(tmp_path / "big.json", big_results(400))
    hint = "[the artifact](https://evil.example) @octocat"
    out = tmp_path / "report.md"
    args = ["report", str(results), "--markdown", str(out), "--markdown-limit", "20000"]
    assert cli.main([*args, "--full-report-hint", hint]) == 1
    text = out.read_text(encoding="utf-8")
    assert "shortened to fit" in text
    assert "The full report: \\[the artifact\\](https:" in text and "@&#8203;octocat" in text
