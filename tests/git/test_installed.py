"""The working tree's installed dependency directories, linked into the base tree of --baseline auto."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gate.git.installed import installed_directories, link_installed


def test_ignored_dependency_directories_are_linked_into_the_base_tree(tmp_path: Path) -> None:
    head = tmp_path / "head"
    (head / "agents" / "js" / "node_modules" / "openai").mkdir(parents=True)
    (head / "agents" / "py" / ".venv").mkdir(parents=True)
    (head / "build" / "node_modules").mkdir(parents=True)  # its parent is not in the base tree
    (head / "logs").mkdir()
    (head / ".gitignore").write_text("node_modules/\n.venv/\nlogs/\n")
    (head / "agents" / "js" / "agent.mjs").write_text("")
    subprocess.run(["git", "init", "-q"], cwd=head, check=True)
    assert installed_directories(head) == ["agents/js/node_modules", "agents/py/.venv", "build/node_modules"]

    base = tmp_path / "base"
    (base / "agents" / "js").mkdir(parents=True)
    (base / "agents" / "py" / ".venv").mkdir(parents=True)  # the base has its own: left alone
    assert link_installed(head, base) == ["agents/js/node_modules"]
    linked = base / "agents" / "js" / "node_modules"
    assert linked.is_symlink() and (linked / "openai").is_dir()
    assert not (base / "build").exists() and not (base / "agents" / "py" / ".venv").is_symlink()
