"""A verified edit as a patch git applies, a suggested change no text can close, diff lines."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gate.fixes.patch import diff_lines, edit_of, git_patch, suggestion


def test_the_patch_applies_with_git(tmp_path: Path) -> None:
    before = "".join(f"line {n}\n" for n in range(1, 20))
    after = before.replace("line 10\n", "line ten\n")
    tail = "no newline at the end"
    (tmp_path / "a.txt").write_text(before)
    (tmp_path / "b.txt").write_text(tail)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    patch = git_patch([("a.txt", before, after), ("b.txt", tail, tail + ", reworded"), ("c.txt", "x", "x")])
    assert "c.txt" not in patch and "\\ No newline at end of file" in patch
    (tmp_path / "fix.patch").write_text(patch)
    subprocess.run(["git", "apply", "--check", "fix.patch"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
    assert (tmp_path / "a.txt").read_text() == after
    assert (tmp_path / "b.txt").read_text() == tail + ", reworded"


def test_the_edit_is_the_whole_lines_that_differ_with_context() -> None:
    before = "a\nb\nc\nd\ne\nf\ng\nh\n"
    edit = edit_of("f.txt", before, before.replace("e\n", "E1\nE2\n"))
    assert (edit.line, edit.end_line, edit.before, edit.after) == (5, 5, ("e",), ("E1", "E2"))
    assert edit.above == ("b", "c", "d") and edit.below == ("f", "g", "h")
    assert diff_lines(edit) == [" b", " c", " d", "-e", "+E1", "+E2", " f", " g", " h"]


def test_a_suggestion_cannot_be_closed_by_its_text() -> None:
    edit = edit_of("f.md", "old\n", "new ```` text\n````\n")
    block = suggestion(edit)
    assert block.startswith("`````suggestion\n") and block.endswith("\n`````")
    assert block.splitlines()[1:-1] == ["new ```` text", "````"]  # literal: what GitHub commits
