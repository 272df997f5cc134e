"""The docs agree with the product and with each other: one action name and major tag, one pre-commit
repository and release tag (the one the release workflow creates, the one `init` writes), one
`$schema` URL, the four `--fail-on` values wherever they are listed."""

from __future__ import annotations

import re

import pytest

from gate import __version__
from gate.commands import starter
from gate.verdict.policy import FAIL_ON_VALUES
from tests.conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "SECURITY.md"]
WORKFLOWS = sorted((ROOT / "examples" / "workflows").glob("*.yml"))
MAJOR = __version__.split(".")[0]


def texts(paths):
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in paths}


def test_every_uses_line_names_the_action_and_its_major_tag():
    found = [
        (name, use)
        for name, text in texts([*DOCS, *WORKFLOWS]).items()
        for use in re.findall(r"uses: ([\w./-]*tool-eval-gate[\w./-]*@[\w.]+)", text)
    ]
    assert found, "no doc shows the action"
    assert {use for _, use in found} == {f"{starter.ACTION}@v{MAJOR}"}, found


def test_every_pre_commit_entry_names_the_repository_and_the_package_s_release_tag():
    sources = texts([ROOT / "README.md", ROOT / ".pre-commit-hooks.yaml", *DOCS])
    repos = {r for text in sources.values() for r in re.findall(r"repo: (\S*tool-eval-gate\S*)", text)}
    revs = {r for text in sources.values() for r in re.findall(r"rev: (\S+)", text)}
    assert repos == {starter.REPOSITORY_URL}
    assert revs == {f"v{__version__}"}
    assert f"rev: v{__version__}" in starter.precommit_config(__version__)


def test_the_release_workflow_creates_the_tags_the_docs_name():
    release = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    assert 'git tag "v$VERSION"' in release and 'git tag -f "v${VERSION%%.*}"' in release
    assert 'grep -qx "version = \\"$VERSION\\"" pyproject.toml' in release  # the package's own version
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{__version__}"' in pyproject


def test_the_schema_url_of_every_doc_and_of_init_is_the_schema_s_id():
    import json

    schema_id = json.loads((ROOT / "schemas" / "suite.schema.json").read_text())["$id"]
    urls = {u for text in texts(DOCS).values() for u in re.findall(r"\$schema=(https://\S+)", text)}
    assert urls == {schema_id} and starter.SCHEMA_URL == schema_id


@pytest.mark.parametrize("path", ["README.md", "action.yml", "docs/github-action.md"])
def test_the_fail_on_values_are_listed_whole_and_spelled_as_the_cli_spells_them(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    spelled = [value.replace("_", "-") for value in FAIL_ON_VALUES]
    assert all(value in text for value in spelled), path
    assert not re.search(r"regression_or_threshold|any_failure", text), path


def test_the_schema_says_alternatives_add_to_the_calls():
    text = (ROOT / "schemas" / "suite.schema.json").read_text(encoding="utf-8")
    assert "replaces calls" not in text and "any one alternative holds" in text


def test_every_shipped_job_that_comments_uploads_the_report_the_comment_points_at():
    """The comment and the job summary say the HTML report is in the run's artifacts: every job that
    runs the action (a shard aside: it does not comment) uploads the action's output directory."""
    import yaml

    checked = 0
    for path in WORKFLOWS:
        for name, job in yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"].items():
            steps = job.get("steps", [])
            gates = [s for s in steps if str(s.get("uses", "")).startswith(starter.ACTION)]
            if not gates or any("shard" in (s.get("with") or {}) for s in gates):
                continue
            checked += 1
            uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact")]
            paths = [str((s.get("with") or {}).get("path", "")) for s in uploads]
            assert f"{starter.OUTPUT_DIRECTORY}/" in paths, f"{path.name}: job {name} uploads no report"
    assert checked >= 4


def test_the_adapters_the_program_guide_shows_are_the_example_files_the_tests_run_whole():
    """docs/agent-programs.md shows each framework's adapter as the file of examples/ that
    tests/end_to_end/test_framework_adapters.py runs through the gate, whole, and no other adapter
    code: a fix to an adapter reaches the docs, and the docs show nothing that was not run."""
    from tests.end_to_end.test_framework_adapters import ADAPTERS

    guide = (ROOT / "docs" / "agent-programs.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Adapters for common frameworks") : guide.index("## Trust")]
    copies = {"agents/python/": "examples/python-agent/", "agents/js/": "examples/js-agent/"}  # the test's
    run = [re.sub("|".join(copies), lambda m: copies[m.group()], c[-1]) for c in ADAPTERS.values()]
    files = {"examples/python-agent/gate_protocol.py", *run}
    blocks = re.findall(r"```(?:python|js)\n(.*?)```\n", section, re.S)
    assert len(blocks) == len(files)
    for path in files:
        text = (ROOT / path).read_text(encoding="utf-8")
        assert text in blocks, f"docs/agent-programs.md does not show {path} as it is"
