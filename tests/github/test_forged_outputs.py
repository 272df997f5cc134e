"""A pull request cannot put its own words where the gate's results are read: files it commits into
the action's output directory are never left there to be uploaded, merged or published as the gate's.
The sharded workflow's merge job (the required check) renders whatever results.json each shard's
artifact holds; the publishing workflow whatever the evaluating run's artifact holds."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gate.github.entrypoint import main as entrypoint
from tests.github import test_entrypoint as entry
from tests.github.test_entrypoint import actions_env, git, read_outputs

# The action's test fixtures: a git workspace with a pull request's base and head, the fake GitHub API.
workspace, github, _restore_git_config_env = entry.workspace, entry.github, entry._restore_git_config_env

# The model calls the right tool for every case: what a passing run of the suite records.
PASSING = {
    "rules": [
        {
            "when": {"last_user": "(?i)weather in (?P<city>[A-Z][a-z]+)\\?", "turn": 1},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
        {
            "when": {"last_user": "Paris tomorrow", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Paris", "days": 1}}],
        },
        {
            "when": {"last_user": "Rome at the weekend", "turn": 1},
            "tool_calls": [{"name": "get_forecast", "arguments": {"city": "Rome", "days": 2}}],
        },
        {"when": {"turn": 2}, "text": "Done."},
    ],
    "default": {"text": "I cannot help."},
}


def _shard_env(workspace: dict[str, Any], github: Any, server: Any, index: int) -> dict[str, str]:
    env = actions_env(
        workspace,
        github,
        server,
        shard=f"{index}/2",
        comment="false",
        review_comments="false",
        output_dir=f"shard-{index}",
    )
    (workspace["tmp"] / "output.txt").write_text("")
    return env


def _merge_env(
    workspace: dict[str, Any], github: Any, results: str = "shard-*/results.json"
) -> dict[str, str]:
    env = actions_env(workspace, github, None, results=results, output_dir="merged")
    env["INPUT_OPENAI_API_KEY"] = ""
    (workspace["tmp"] / "output.txt").write_text("")
    return env


def _passing_results(workspace: dict[str, Any], github: Any, server: Any, forged: Path) -> None:
    """What the forger commits: results.json of a passing run of each shard, made elsewhere."""
    root = workspace["root"]
    for index in (1, 2):
        assert entrypoint([], _shard_env(workspace, github, server, index)) == 0
    assert entrypoint([], _merge_env(workspace, github)) == 0  # they do pass, merged
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "passed"
    for index in (1, 2):
        (forged / f"shard-{index}").mkdir(parents=True)
        shutil.copy(root / f"shard-{index}/results.json", forged / f"shard-{index}/results.json")
        shutil.rmtree(root / f"shard-{index}")
    shutil.rmtree(root / "merged")


def _committed_file(root: Path, forged: Path, index: int) -> None:
    shutil.copytree(forged / f"shard-{index}", root / f"shard-{index}")


def _linked_directory(root: Path, forged: Path, index: int) -> None:
    shutil.copytree(forged / f"shard-{index}", root / f"forged-{index}")
    (root / f"shard-{index}").symlink_to(f"forged-{index}", target_is_directory=True)


def _linked_file(root: Path, forged: Path, index: int) -> None:
    shutil.copy(forged / f"shard-{index}/results.json", root / f"forged-{index}.json")
    (root / f"shard-{index}").mkdir()
    (root / f"shard-{index}/results.json").symlink_to(f"../forged-{index}.json")


def _in_the_merge_checkout(root: Path, forged: Path, index: int) -> None:
    """Where the merge job's glob finds them: it checks the pull request out, then downloads the
    shards' artifacts beside what the checkout holds."""
    shutil.copytree(forged / f"shard-{index}", root / f"shards/tool-eval-gate-shard-{index}")


MERGE_GLOB = {_in_the_merge_checkout: "shards/*/results.json"}


@pytest.mark.parametrize(
    ("layout", "verdict"),
    [
        (_committed_file, "invalid"),
        (_linked_directory, "refused"),
        (_linked_file, "refused"),
        (_in_the_merge_checkout, "invalid"),
    ],
    ids=["committed-file", "linked-directory", "linked-file", "globbed-in-the-merge-checkout"],
)
def test_results_a_pull_request_commits_into_the_shards_output_directories_are_never_merged(
    layout: Callable[[Path, Path, int], None], verdict: str, workspace, github, model_server, capsys
) -> None:
    root, forged = workspace["root"], workspace["tmp"] / "forged"
    _passing_results(workspace, github, model_server(PASSING), forged)
    # The pull request commits them where each shard's gate writes, and a suite no shard can load.
    for index in (1, 2):
        layout(root, forged, index)
    (root / "evals/broken.suite.yaml").write_text("version: 1\nname: broken\ncases: [\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "results")
    workspace["head"] = git(root, "rev-parse", "HEAD").strip()  # the pull request's head now
    capsys.readouterr()

    server = model_server(PASSING)
    for index in (1, 2):
        assert entrypoint([], _shard_env(workspace, github, server, index)) == 2
        assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == verdict
        # What the workflow uploads as this shard's results (following links): nothing.
        assert not (root / f"shard-{index}/results.json").exists()
    assert server.request_count == 0

    code = entrypoint([], _merge_env(workspace, github, MERGE_GLOB.get(layout, "shard-*/results.json")))
    assert code == 2  # no results to merge, or results not made for this head: never a pass
    assert read_outputs(workspace["tmp"] / "output.txt")["verdict"] == "invalid"
    assert not (root / "merged/results.json").exists()
    assert (forged / "shard-1/results.json").is_file()  # a link's target is never touched
