"""Discovery: which files are suites, the suites under a directory, the repository root."""

from __future__ import annotations

from gate.files.discovery import default_root, find_suite_files, is_suite_file


def test_suite_files_are_named_suite_yaml_or_yml():
    assert is_suite_file("a/weather.suite.yaml") and is_suite_file("B.SUITE.YML")
    assert not is_suite_file("calendar.yaml") and not is_suite_file("suite.yaml.bak")


def test_find_suite_files_skips_hidden_vendor_and_virtualenv_dirs(tmp_path):
    for rel in (
        "a.suite.yaml",
        "sub/b.suite.yml",
        ".hidden/c.suite.yaml",
        "node_modules/d.suite.yaml",
        "venv/e.suite.yaml",
        "myenv/f.suite.yaml",
        "sub/not-a-suite.yaml",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x: 1\n")
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr\n")
    found = [p.relative_to(tmp_path).as_posix() for p in find_suite_files(tmp_path)]
    assert found == ["a.suite.yaml", "sub/b.suite.yml"]


def test_default_root_is_the_git_ancestor_of_the_cwd_or_of_paths_outside_it(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "suites" / "prompts").mkdir(parents=True)
    monkeypatch.chdir(repo / "suites" / "prompts")
    assert default_root() == repo
    assert default_root([repo / "suites"]) == repo
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (other / "x.suite.yaml").write_text("")
    assert default_root([other / "x.suite.yaml"]) == other


def test_default_root_without_git_is_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert default_root() == tmp_path


def test_a_directory_named_like_a_suite_file_is_a_problem_that_names_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.suite.yaml").mkdir()
    (tmp_path / "x.suite.yaml" / "inner.suite.yaml").write_text("version: 1\n")
    problems: list = []
    found = find_suite_files(tmp_path, problems)
    assert found == [tmp_path / "x.suite.yaml" / "inner.suite.yaml"]
    [problem] = problems
    assert problem.render().startswith("x.suite.yaml: is a directory, not a suite file")
    problems = []
    find_suite_files(tmp_path / "x.suite.yaml", problems)  # named on the command line
    assert [p.path for p in problems] == ["x.suite.yaml"]
