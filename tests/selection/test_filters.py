"""--case, --tag and --rerun-failed select exactly what they say: the pure selection, then the CLI on
the bundled weather example replayed from its cassettes (no model server needed, no key)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gate.cli import main as cli
from gate.errors import InputError
from gate.files.suite_loader import load_suites
from gate.selection.filters import Selection, select

ROOT = Path(__file__).resolve().parents[2]
WEATHER = ROOT / "examples" / "weather"


@pytest.fixture(scope="module")
def suites():
    loaded = load_suites([ROOT / "examples"], root=ROOT)
    assert not loaded.problems
    return list(loaded.suites)


def _ids(chosen):
    return sorted(f"{s.name}/{c.id}" for s in chosen for c in s.cases)


def test_no_selector_selects_everything(suites):
    assert select(suites, Selection()) == suites


def test_case_by_id_and_by_suite_slash_id(suites):
    assert _ids(select(suites, Selection(cases=("paris-now",)))) == ["weather-agent/paris-now"]
    assert _ids(select(suites, Selection(cases=("weather-agent/paris-now", "weather-agent/week-ahead")))) == [
        "weather-agent/paris-now",
        "weather-agent/week-ahead",
    ]


def test_an_unknown_case_is_an_error_with_the_closest_ids(suites):
    with pytest.raises(InputError) as caught:
        select(suites, Selection(cases=("paris-nwo",)))
    rendered = caught.value.problems[0].render()
    assert "--case paris-nwo: no such case" in rendered and "'paris-now'" in rendered


def test_tags_select_case_tags_and_suite_tags(suites):
    no_call = _ids(select(suites, Selection(tags=("no-call",))))
    assert no_call == ["weather-agent/cold-front-explained", "weather-agent/thanks-needs-no-tool"]
    weather = select(suites, Selection(tags=("weather",)))  # a suite tag: every case of that suite
    assert [s.name for s in weather] == ["weather-agent"]
    assert len(weather[0].cases) == len(next(s for s in suites if s.name == "weather-agent").cases)


def test_selectors_combine_as_and(suites):
    chosen = select(suites, Selection(cases=("paris-now", "week-ahead"), tags=("arguments",)))
    assert _ids(chosen) == ["weather-agent/week-ahead"]
    rerun = frozenset({("weather-agent", "paris-now"), ("weather-agent", "lowercase-city")})
    assert _ids(select(suites, Selection(tags=("arguments",), rerun=rerun))) == [
        "weather-agent/lowercase-city"
    ]


def _run(*args: str) -> int:
    return cli(
        ["run", "--root", str(ROOT), "--replay", "--cache", str(ROOT / "examples" / "cassettes"), *args]
    )


def _case_ids(results: Path) -> list[str]:
    data = json.loads(results.read_text())
    return sorted(f"{s['name']}/{c['case_id']}" for s in data["suites"] for c in s["cases"])


def test_cli_case_and_tag_run_exactly_the_selection(tmp_path, capsys):
    out = tmp_path / "r.json"
    _run(str(WEATHER), "--case", "paris-now", "--case", "weather-agent/week-ahead", "--json", str(out))
    assert _case_ids(out) == ["weather-agent/paris-now", "weather-agent/week-ahead"]
    _run(str(WEATHER), "--tag", "no-call", "--json", str(out))
    assert _case_ids(out) == ["weather-agent/cold-front-explained", "weather-agent/thanks-needs-no-tool"]
    assert _run(str(WEATHER), "--tag", "no-such-tag") == 2
    assert "selects no case" in capsys.readouterr().err


def test_cli_rerun_failed_runs_the_failed_and_errored_cases_only(tmp_path, capsys, monkeypatch):
    # every example, the MCP one too: its server runs with the python3 on PATH (this interpreter's)
    monkeypatch.setenv("PATH", f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}")
    first = tmp_path / "first.json"
    _run(str(ROOT / "examples"), "--allow-commands", "--json", str(first))
    data = json.loads(first.read_text())
    failed = sorted(
        f"{s['name']}/{c['case_id']}"
        for s in data["suites"]
        for c in s["cases"]
        if c["status"] in ("failed", "error")
    )
    # make one passing case failed in the results handed to --rerun-failed, so the selection is non-trivial
    passed = next(c for s in data["suites"] for c in s["cases"] if c["status"] == "passed")
    passed["status"] = "failed"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    second = tmp_path / "second.json"
    _run(str(ROOT / "examples"), "--allow-commands", "--rerun-failed", str(edited), "--json", str(second))
    expected = sorted([*failed, f"{passed['suite']}/{passed['case_id']}"])
    assert _case_ids(second) == expected


def test_cli_rerun_failed_with_nothing_failed_is_a_pass_that_runs_nothing(tmp_path, capsys):
    first = tmp_path / "first.json"
    _run(str(WEATHER), "--case", "paris-now", "--json", str(first))
    data = json.loads(first.read_text())
    for suite in data["suites"]:
        for case in suite["cases"]:
            case["status"] = "passed"
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(data))
    capsys.readouterr()
    assert _run(str(WEATHER), "--rerun-failed", str(clean)) == 0
    assert "nothing to rerun" in capsys.readouterr().out


def test_the_base_side_runs_the_cases_that_go_with_the_head_cases_of_this_run(suites) -> None:
    import dataclasses

    from gate.selection.filters import base_cases
    from gate.selection.sharding import shard_suites

    weather = next(s for s in suites if s.name == "weather-agent")
    head = dataclasses.replace(weather, cases=weather.cases[1:])  # the PR removed the first case
    removed = weather.cases[0].id
    # The whole run: every base case, the removed one included.
    assert base_cases([weather], [head], [head], Selection()) == [weather]
    # A selection: the base cases of the selected ids; the removed case is not selected.
    picked = head.cases[1].id
    chosen = select([head], Selection(cases=(picked,)))
    assert _ids(base_cases([weather], [head], chosen, Selection(cases=(picked,)))) == [
        f"weather-agent/{picked}"
    ]
    # Shards: each base case runs in exactly one shard, the one that runs its head side.
    seen: list[str] = []
    for index in (1, 2, 3):
        shard = list(shard_suites([head], index, 3))
        base = base_cases([weather], [head], shard, Selection(), (index, 3))
        assert {c.id for s in shard for c in s.cases} <= {c.id for s in base for c in s.cases}
        seen += [c.id for s in base for c in s.cases]
    assert sorted(seen) == sorted(c.id for c in weather.cases) and removed in seen
