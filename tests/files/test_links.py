"""first_link: the first symlink from the repository root down to a path, never following one."""

from __future__ import annotations

import os
from pathlib import Path

from gate.files.links import first_link


def test_the_first_link_below_the_root_is_named(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "real" / "deeper").mkdir(parents=True)
    os.symlink(root / "real", root / "linked")
    os.symlink(tmp_path, root / "real" / "deeper" / "out")
    assert first_link(root / "linked" / "deeper" / "out" / "x", root) == root / "linked"
    assert first_link(root / "real" / "deeper" / "out" / "x", root) == root / "real" / "deeper" / "out"
    assert first_link(root / "real" / "deeper" / "missing" / "x", root) is None


def test_links_at_or_above_the_root_and_paths_outside_it_are_not_its_business(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "root")
    (tmp_path / "real" / "sub").mkdir()
    assert first_link(tmp_path / "root" / "sub", tmp_path / "root") is None
    assert first_link(tmp_path / "root", tmp_path / "root") is None
    assert first_link(tmp_path / "elsewhere", tmp_path / "real") is None
