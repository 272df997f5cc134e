"""A pull request cannot hide a regression by making the base side fail. The merge base's MCP server
needs a module the pull request removes (a dependency the base's code imports that the job, installing
what the pull request asks for, no longer provides), while the pull request's own server does without
it and rewords get_forecast so that the model stops calling it. The base server cannot start: the
suite has no base side, so its failing case is "new", and with the threshold met the run passed. A
suite the merge base holds whose base side cannot be set up leaves a run that judges regressions
undecided (exit 3), never a pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.end_to_end.test_baseline_auto import SCRIPT, git
from tests.end_to_end.test_changes_seen import BAD, GOOD, commit, new_repo
from tests.end_to_end.test_unwatched_code import SERVER, SUITE, run

IMPORTS = "from descriptions import FORECAST  # noqa: E402"


def test_a_base_side_the_pull_request_made_fail_leaves_the_run_undecided(
    tmp_path: Path, model_server, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    repo = new_repo(tmp_path / "repo")
    installed = tmp_path / "site-packages"  # what the job installed, as the pull request asks
    installed.mkdir()
    (installed / "legacy.py").write_text("X = 1\n")
    base_server = SERVER.replace(IMPORTS, f"{IMPORTS}\nsys.path.insert(0, {str(installed)!r})\nimport legacy")
    (repo / "servers/weather").mkdir(parents=True)
    (repo / "servers/weather/server.py").write_text(base_server)
    (repo / "servers/weather/descriptions.py").write_text(f"FORECAST = {GOOD!r}\n")
    (repo / "evals").mkdir()
    (repo / "evals/weather.suite.yaml").write_text(SUITE)
    commit(repo, "base")
    git(repo, "checkout", "-qb", "pr")
    (repo / "servers/weather/server.py").write_text(SERVER)
    (repo / "servers/weather/descriptions.py").write_text(f"FORECAST = {BAD!r}\n")
    commit(repo, "drop legacy, reword the forecast tool")
    (installed / "legacy.py").unlink()  # the job installs the pull request's dependencies

    code, results = run(repo, model_server(SCRIPT), monkeypatch)
    out = capsys.readouterr()
    assert code == 3, out
    assert results["settings"]["baseline"]["suites_base_failed"] == ["weather-agent"]
    assert "No module named 'legacy'" in out.err and "PASSED" not in out.out
    assert "the base side of suite weather-agent could not be set up at the merge base" in out.out


def test_a_base_server_that_reads_the_checkout_is_no_base_side(
    tmp_path: Path, model_server, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The server takes its descriptions from the checkout whichever tree it starts from (an editable
    install, a workspace package, a path into the checkout): the base side showed the model the pull
    request's reworded get_forecast too, the failing case was "still failing", and the run PASSED."""
    repo = new_repo(tmp_path / "repo")
    checkout = repo / "servers/weather"
    server = SERVER.replace("os.path.dirname(os.path.abspath(__file__))", repr(str(checkout)))
    checkout.mkdir(parents=True)
    (checkout / "server.py").write_text(server)
    (checkout / "descriptions.py").write_text(f"FORECAST = {GOOD!r}\n")
    (repo / "evals").mkdir()
    (repo / "evals/weather.suite.yaml").write_text(SUITE)
    commit(repo, "base")
    git(repo, "checkout", "-qb", "pr")
    (checkout / "descriptions.py").write_text(f"FORECAST = {BAD!r}\n")
    commit(repo, "reword the forecast tool")

    code, results = run(repo, model_server(SCRIPT), monkeypatch)
    out = capsys.readouterr()
    assert code == 3, out
    assert results["settings"]["baseline"]["suites_base_failed"] == ["weather-agent"]
    assert "listed get_forecast with the description the pull request's files write" in out.err
    assert "PASSED" not in out.out
