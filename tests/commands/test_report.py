from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from gate import cli
from gate.files.results_file import load_results
from gate.fixes.patch import git_patch
from gate.results.fixes import FixSearch
from gate.results_json.codec import to_json
from tests.end_to_end.test_baseline_auto import git
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


def test_fix_patch_writes_the_verified_edits_the_results_carry_as_a_patch_git_applies(tmp_path, capsys):
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    before = '{\n  "name": "get_forecast",\n  "description": "Forecast data."\n}\n'
    after = before.replace("Forecast data.", "Forecast for the coming days, starting tomorrow.")
    (repo / "tools" / "weather.json").write_text(before, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "tools")
    fixes = FixSearch(model="judge", patch=git_patch([("tools/weather.json", before, after)]))
    results = write(tmp_path / "r.json", replace(run(simple(1, 1)), fixes=fixes))

    assert cli.main(["report", str(results), "--fix-patch", str(tmp_path / "out" / "fix.patch")]) == 1
    assert (tmp_path / "out" / "fix.patch").read_text(encoding="utf-8") == fixes.patch
    git(repo, "apply", str(tmp_path / "out" / "fix.patch"))
    assert (repo / "tools" / "weather.json").read_text(encoding="utf-8") == after

    # results with no verified edit (or no search at all): the patch is empty, as run writes it
    for carried in (FixSearch(model="judge", skipped="no failing case a wording can fix"), None):
        bare = write(tmp_path / "bare.json", replace(run(simple(1, 1)), fixes=carried))
        assert cli.main(["report", str(bare), "--fix-patch", str(tmp_path / "empty.patch")]) == 1
        assert (tmp_path / "empty.patch").read_text(encoding="utf-8") == ""
    # where it cannot be written: refused before anything is written (exit 2), as every output is
    (tmp_path / "dir.patch").mkdir()
    argv = [
        "report",
        str(results),
        "--fix-patch",
        str(tmp_path / "dir.patch"),
        "--json",
        str(tmp_path / "x.json"),
    ]
    assert cli.main(argv) == 2
    assert (
        "dir.patch: --fix-patch: cannot write output here: it is a directory" in capsys.readouterr().err
        and not (tmp_path / "x.json").exists()
    )
    same = [
        "report",
        str(results),
        "--json",
        str(tmp_path / "x.json"),
        "--fix-patch",
        str(tmp_path / "x.json"),
    ]
    assert cli.main(same) == 2
    assert "--fix-patch: the same file as --json" in capsys.readouterr().err
