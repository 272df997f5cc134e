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


def test_a_link_before_dot_dot_is_named(tmp_path: Path) -> None:
    """The system resolves ``link/..`` to the parent of the link's target, not to the directory
    holding the link: a path that goes back up after a link still goes through it."""
    root, outside = tmp_path / "root", tmp_path / "outside" / "deep"
    root.mkdir()
    outside.mkdir(parents=True)
    (root / "linked").symlink_to(outside)
    assert first_link(root / "linked" / ".." / "cache", root) == root / "linked"
    assert first_link(root / "real" / ".." / "cache", root) is None


def test_a_name_too_long_to_look_at_is_not_a_link(tmp_path: Path) -> None:
    assert first_link(tmp_path / ("x" * 300) / "y", tmp_path) is None
