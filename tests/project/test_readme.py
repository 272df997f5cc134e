"""README's promises hold: its suite example validates, and it opens with the two set-up commands."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from gate.files.suite_loader import load_suites

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_suite_example_validates_next_to_the_weather_example(tmp_path: Path) -> None:
    example = re.search(r"## A suite\n\n```yaml\n(.*?)```", README, re.S)
    assert example, "README lost its suite example"
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "weather", repo / "weather")
    (repo / "weather" / "weather.suite.yaml").unlink()
    (repo / ".git").mkdir()
    (repo / "weather" / "readme.suite.yaml").write_text(example.group(1), encoding="utf-8")
    result = load_suites([repo], root=repo)
    assert [p.render() for p in result.problems] == []
    assert [c.id for c in result.suites[0].cases] == ["paris-now", "no-tool-for-definitions"]


def test_readme_opens_with_the_run_and_test_commands() -> None:
    first_block = re.search(r"```bash\n(.*?)```", README, re.S).group(1)
    commands = [line for line in first_block.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2
    assert "tool-eval-gate run examples --replay" in commands[0]
    assert "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines(), ".ci/run must run exactly README's test command"
