"""How the files suites read are reached in a real working tree: every symlink on the way and the file
at the end, links that leave the repository or loop, files git does not track, and the symlinks a
``watch`` glob names (followed into the directories they lead to)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from gate.git.read_paths import NOT_TRACKED, follow, read_facts
from gate.suite.model import Command
from tests.git.test_affected import make_suite
from tests.git.test_base_tree import git


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "shared" / "tools").mkdir(parents=True)
    (root / "shared" / "tools" / "forecast.json").write_text("[]\n")
    git(root, "init", "-q", "-b", "main")
    return root


def test_every_symlink_on_the_way_and_the_file_at_the_end(repo: Path, tmp_path: Path) -> None:
    os.symlink("shared/tools", repo / "tools")  # a directory link
    (repo / "links").mkdir()
    os.symlink(repo / "tools" / "forecast.json", repo / "links" / "current.json")  # absolute, inside
    assert follow(repo, "tools/forecast.json") == (
        ("tools/forecast.json", "tools", "shared/tools/forecast.json"),
        False,
        "",
    )
    assert follow(repo, "links/current.json") == (
        ("links/current.json", "tools", "shared/tools/forecast.json"),
        False,
        "",
    )
    assert follow(repo, "shared/tools/forecast.json") == (("shared/tools/forecast.json",), False, "")
    assert follow(repo, "tools/missing.json") == (
        ("tools/missing.json", "tools", "shared/tools/missing.json"),
        False,
        "",
    )


def test_links_that_leave_the_repository_or_loop(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.json").write_text("{}\n")
    os.symlink(tmp_path / "outside.json", repo / "absolute.json")
    os.symlink("../outside.json", repo / "relative.json")
    os.symlink("loop-b", repo / "loop-a")
    os.symlink("loop-a", repo / "loop-b")
    assert follow(repo, "absolute.json") == (("absolute.json",), True, "")
    assert follow(repo, "relative.json") == (("relative.json",), True, "")
    assert follow(repo, "loop-a")[2] == "cannot be followed (a symlink loop)"


def test_a_file_git_does_not_track_cannot_be_told_unless_it_is_an_install(repo: Path) -> None:
    (repo / ".gitignore").write_text("generated/\nnode_modules/\n")
    (repo / "generated").mkdir()
    (repo / "generated" / "tools.json").write_text("[]\n")
    (repo / "node_modules" / "pkg").mkdir(parents=True)
    (repo / "node_modules" / "pkg" / "index.js").write_text("\n")
    os.symlink("../generated/tools.json", repo / "shared" / "linked.json")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    suite = make_suite(
        "evals/s.yaml",
        tools=("shared/tools/forecast.json", "generated/tools.json", "shared/linked.json"),
        extra=("node_modules/pkg/index.js",),
    )
    facts = read_facts(repo, [suite])
    assert facts.reached["shared/tools/forecast.json"].unknown == ""
    assert facts.reached["node_modules/pkg/index.js"].unknown == ""
    assert facts.reached["generated/tools.json"].unknown == NOT_TRACKED
    linked = facts.reached["shared/linked.json"]  # the link is tracked, what it leads to is not
    assert linked.ways == ("shared/linked.json", "generated/tools.json")
    assert linked.unknown == NOT_TRACKED


def test_watch_globs_name_the_tracked_links_and_what_is_linked_below_them(repo: Path) -> None:
    (repo / "agent").mkdir()
    (repo / "agent" / "main.py").write_text("\n")
    (repo / "lib").mkdir()
    os.symlink("../lib", repo / "agent" / "lib")
    os.symlink("../shared/tools", repo / "lib" / "tools")  # a link inside the linked directory
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    program = Command(("python3", "agent/main.py"), "agent program", watch=("agent/**/*.py", "agent/lib/"))
    suite = dataclasses.replace(make_suite("evals/s.yaml"), commands=(program,))
    facts = read_facts(repo, [suite])
    assert facts.watched_links == {"agent/**/*.py": ("agent/lib",), "agent/lib/": ("agent/lib",)}
    assert facts.reached["agent/lib"].ways == ("agent/lib", "lib")
    assert facts.reached["lib/tools"].ways == ("lib/tools", "shared/tools")


def test_a_watched_link_to_the_repository_root_watches_everything(repo: Path) -> None:
    from gate.git.affected import Change, ChangeSet, affected_suites

    (repo / "agent").mkdir()
    (repo / "agent" / "main.py").write_text("\n")
    os.symlink("..", repo / "agent" / "repo")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    program = Command(("python3", "agent/main.py"), "agent program", watch=("agent/**",))
    suite = dataclasses.replace(make_suite("evals/s.yaml"), commands=(program,))
    facts = read_facts(repo, [suite])
    assert facts.reached["agent/repo"].ways == ("agent/repo", "")
    changed = ChangeSet((Change("shared/tools/forecast.json", "file", "file"),))
    found = affected_suites([suite], changed, facts)["evals/s.yaml"]
    assert found["shared/tools/forecast.json"] == "agent program (watch), read as agent/repo"
