"""Commentable lines of a pull request diff (the `patch` field of the PR files API)."""

from __future__ import annotations

from gate.github.diff_hunks import commentable_lines, nearest_commentable

PATCH = """@@ -1,5 +1,6 @@
 [
   {
-    "name": "get_weather",
+    "name": "get_weather",
+    "description": "Current weather for a city.",
     "parameters": {}
   }
@@ -20,3 +21,4 @@ def x():
 a
-b
+c
+d
 e"""


def test_added_and_context_lines_on_the_right_side() -> None:
    assert commentable_lines(PATCH) == {1, 2, 3, 4, 5, 6, 21, 22, 23, 24}


def test_removed_lines_do_not_advance_the_right_side() -> None:
    patch = "@@ -10,4 +10,2 @@\n keep\n-gone1\n-gone2\n+new\n"
    assert commentable_lines(patch) == {10, 11}


def test_new_file_and_no_newline_marker() -> None:
    patch = "@@ -0,0 +1,3 @@\n+one\n+two\n+three\n\\ No newline at end of file"
    assert commentable_lines(patch) == {1, 2, 3}


def test_single_line_hunk_header_without_count() -> None:
    assert commentable_lines("@@ -3 +3 @@\n-old\n+new") == {3}


def test_empty_context_line_with_stripped_space() -> None:
    assert commentable_lines("@@ -1,3 +1,3 @@\n a\n\n-b\n+c") == {1, 2, 3}


def test_deleted_file_and_missing_patch() -> None:
    assert commentable_lines("@@ -1,2 +0,0 @@\n-a\n-b") == frozenset()
    assert commentable_lines(None) == frozenset()
    assert commentable_lines("") == frozenset()


def test_lines_between_hunks_are_not_commentable() -> None:
    lines = commentable_lines(PATCH)
    assert 7 not in lines and 20 not in lines and 25 not in lines


def test_nearest_commentable() -> None:
    lines = {5, 6, 20}
    assert nearest_commentable(lines, 6) == 6
    assert nearest_commentable(lines, 8) is None
    assert nearest_commentable(lines, 8, window=2) == 6
    assert nearest_commentable(lines, 18, window=2) == 20
    assert nearest_commentable({4, 8}, 6, window=2) == 4  # a tie goes to the earlier line
    assert nearest_commentable(lines, 13, window=3) is None


def test_trailing_line_break_is_not_an_extra_context_line() -> None:
    # The hunk header promises 3 lines but the patch holds 2 and ends with a line break.
    assert commentable_lines("@@ -1,2 +1,3 @@\n a\n+b\n") == {1, 2}
