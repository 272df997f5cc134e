"""The shipped workflows as GitHub runs them: actionlint runs on every one of them in CI (.ci/run and
.github/workflows/ci.yml); these checks hold what actionlint cannot know about our action."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / "examples/workflows").glob("*.yml")) + sorted(
    (ROOT / ".github/workflows").glob("*.yml")
)


def load(path: Path) -> dict[str, Any]:
    data = yaml.load(path.read_text(), Loader=yaml.BaseLoader)  # `on` stays a string key
    assert isinstance(data, dict)
    return data


def gate_steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in job.get("steps", []) if "tool-eval-gate@" in str(s.get("uses", ""))]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_job_has_a_time_limit(path: Path) -> None:
    for name, job in load(path)["jobs"].items():
        assert int(job["timeout-minutes"]) > 0, f"{path.name}: job {name}"


def test_actionlint_runs_on_every_workflow_in_ci() -> None:
    for runner in (ROOT / ".ci/run", ROOT / ".github/workflows/ci.yml"):
        text = runner.read_text()
        assert (
            "actionlint@" in text
            and "node .ci/actionlint.cjs .github/workflows/*.yml examples/workflows/*.yml" in text
        )


def test_the_simple_workflow_always_reports() -> None:
    """No paths filter: a path-skipped required check stays pending, and root-anchored patterns miss
    suites kept elsewhere (examples/weather/tools/...); the action detects changes itself."""
    on = load(ROOT / "examples/workflows/tool-eval-gate.yml")["on"]
    assert "paths" not in (on.get("pull_request") or {})
    (job,) = load(ROOT / "examples/workflows/tool-eval-gate.yml")["jobs"].values()
    assert gate_steps(job)[0]["with"]["max_cost"]


def test_shards_do_not_gate_and_the_merge_job_does() -> None:
    jobs = load(ROOT / "examples/workflows/tool-eval-gate-sharded.yml")["jobs"]
    shard_step = gate_steps(jobs["shard"])[0]
    assert "shard" in shard_step["with"] and shard_step["with"]["comment"] == "false"
    assert "continue-on-error" not in shard_step  # invalid input and incomplete runs still fail the shard
    assert jobs["merge"]["needs"] == "shard" and jobs["merge"]["if"] == "${{ !cancelled() }}"
    assert gate_steps(jobs["merge"])[0]["with"]["results"] == "shards/*/results.json"


def test_the_approved_fork_run_never_executes_pull_request_code() -> None:
    data = load(ROOT / "examples/workflows/tool-eval-gate-fork-approved.yml")
    assert data["on"] == {"pull_request_target": {"types": ["labeled"]}}
    (job,) = data["jobs"].values()
    assert job["if"] == "github.event.label.name == 'eval-approved'"
    checkout = job["steps"][0]
    assert checkout["with"]["ref"] == "${{ github.event.pull_request.head.sha }}"
    assert checkout["with"]["persist-credentials"] == "false"
    for step in job["steps"]:
        assert not str(step.get("uses", "")).startswith("./"), "a local action would be the PR's code"
        if "run" in step:  # only our own commands, never a file of the checkout
            assert step["run"].startswith("gh pr edit"), step["run"]
    (gate,) = gate_steps(job)
    assert gate["with"]["fork_approval_label"] == "eval-approved" and float(gate["with"]["max_cost"]) > 0


def test_ci_installs_the_tested_versions_and_runs_the_oldest_patch_levels() -> None:
    """Python 3.11.2 and 3.10 before 3.10.12 lack tarfile's extraction filter (and more): CI proves
    the gate on them, and on the newest, with the versions in constraints.txt."""
    (job,) = [load(ROOT / ".github/workflows/ci.yml")["jobs"]["test"]]
    matrix = job["strategy"]["matrix"]
    pythons = [*matrix["python"], *(entry["python"] for entry in matrix["include"])]
    assert "3.11.2" in pythons
    assert any(p.startswith("3.10.") and int(p.split(".")[2]) < 12 for p in pythons)
    installs = [s["run"] for s in job["steps"] if "pip install" in s.get("run", "")]
    assert installs == ["python -m pip install -e '.[test]' -c constraints.txt"]


def test_a_scheduled_job_runs_the_suite_against_the_newest_releases() -> None:
    data = load(ROOT / ".github/workflows/newest.yml")
    assert data["on"]["schedule"][0]["cron"]
    (job,) = data["jobs"].values()
    install = next(s["run"] for s in job["steps"] if "pip install" in s.get("run", ""))
    assert "--upgrade" in install and "constraints" not in install
    assert any(s.get("run") == "python -m pytest" for s in job["steps"])


def test_the_workflows_that_evaluate_pull_requests_persist_and_warm_the_gates_cache() -> None:
    """The action uses its cache on every run (push included); the workflows restore that directory
    before it and save it after it, and run on pushes to the base branch, so a pull request's base
    side starts warm. They save it only when the gate says it holds nothing but its own answers: a
    pull request's committed answers, saved from its run, would come back untracked in its next."""
    from gate import CACHE_DIRECTORY

    for name in ("tool-eval-gate.yml", "tool-eval-gate-fork-safe.yml"):
        data = load(ROOT / "examples/workflows" / name)
        assert data["on"]["push"]["branches"] == ["main"], name
        (job,) = data["jobs"].values()
        steps = job["steps"]
        uses = [str(s.get("uses", "")).split("@")[0] for s in steps]
        assert "actions/cache" not in uses, name  # it saves whatever the directory holds
        restore, save = uses.index("actions/cache/restore"), uses.index("actions/cache/save")
        gate = next(i for i, u in enumerate(uses) if u.endswith("/tool-eval-gate"))
        assert restore < gate < save, name
        for step in (steps[restore], steps[save]):
            assert step["with"]["path"].split("#")[0].strip() == CACHE_DIRECTORY, name
        assert steps[save]["with"]["key"] == steps[restore]["with"]["key"], name
        gate_id = steps[gate]["id"]
        assert steps[save]["if"] == f"always() && steps.{gate_id}.outputs.cache_trusted == 'true'", name
        assert steps[gate]["with"].get("cache", CACHE_DIRECTORY) == CACHE_DIRECTORY, name


def test_the_agent_program_workflow_saves_the_cache_only_from_pushes_and_the_docs_show_it_whole() -> None:
    """The CLI runs the programs (the action only publishes, so it cannot say `cache_trusted`): a pull
    request's program runs beside the cache and could write answers into it, so the cache is saved
    from pushes to the base branch only. The CLI step must fail the job when it stops before writing
    results (not verified, invalid input); docs/agent-programs.md shows this workflow as it is."""
    from gate import CACHE_DIRECTORY

    path = ROOT / "examples/workflows/tool-eval-gate-agent-program.yml"
    data = load(path)
    assert data["on"]["push"]["branches"] == ["main"] and "pull_request" in data["on"]
    (job,) = data["jobs"].values()
    steps = job["steps"]
    uses = [str(s.get("uses", "")).split("@")[0] for s in steps]
    assert "actions/cache" not in uses
    restore, save = uses.index("actions/cache/restore"), uses.index("actions/cache/save")
    (cli,) = [i for i, s in enumerate(steps) if "tool-eval-gate run" in s.get("run", "")]
    assert restore < cli < save
    for step in (steps[restore], steps[save]):
        assert step["with"]["path"] == CACHE_DIRECTORY
    assert steps[save]["with"]["key"] == steps[restore]["with"]["key"]
    assert steps[save]["if"] == "always() && github.event_name == 'push'"
    command = steps[cli]["run"]
    assert f"--cache {CACHE_DIRECTORY} " in command and "--allow-commands" in command
    assert "continue-on-error" not in steps[cli]
    (publish,) = gate_steps(job)
    assert publish["with"]["results"] == "out/results.json" and "--json out/results.json" in command
    assert publish["if"].startswith("always()")

    # A fork's or Dependabot's pull request stops, not verified, before anything of its checkout runs
    # (installing its programs runs its code before the gate, which it could then make say anything).
    (guard,) = [i for i, s in enumerate(steps) if "not verified" in s.get("run", "")]
    first_install = min(
        i for i, s in enumerate(steps) if "install" in s.get("run", "") or " ci " in s.get("run", "")
    )
    assert uses.index("actions/checkout") < guard < first_install < cli
    condition = " ".join(steps[guard]["if"].split())
    assert condition == (
        "github.event_name == 'pull_request' && (github.event.pull_request.head.repo.full_name != "
        "github.repository || github.event.pull_request.user.login == 'dependabot[bot]')"
    )
    assert steps[guard]["run"].rstrip().endswith("exit 3")

    text = path.read_text(encoding="utf-8")
    doc = (ROOT / "docs/agent-programs.md").read_text(encoding="utf-8")
    assert "```yaml\n" + text[text.index("name: ") :] + "```\n" in doc


def test_the_agent_program_workflow_installs_the_cli_as_readme_does() -> None:
    """Before a release is on PyPI, `pip install 'tool-eval-gate[all]'` fails: the workflow a team
    copies installs what README's "Start in your repository" installs."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (requirement,) = re.findall(r"^pip install ('tool-eval-gate\[all\] @ git\+\S+')", readme, flags=re.M)
    data = load(ROOT / "examples/workflows/tool-eval-gate-agent-program.yml")
    (job,) = data["jobs"].values()
    installs = [s["run"] for s in job["steps"] if str(s.get("run", "")).startswith("pip install")]
    assert len(installs) == 1 and installs[0].startswith(f"pip install {requirement} ")
