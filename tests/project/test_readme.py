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
    assert "tool-eval-gate run examples --replay" in commands[0] and "--allow-commands" in commands[0]
    # It sets up everything the examples need on a fresh machine: the agent programs' dependencies too.
    assert "'.[all,examples]'" in commands[0] and "npm ci --prefix examples/js-agent" in commands[0]
    assert "pytest" in commands[1] and "-c constraints.txt" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines(), ".ci/run must run exactly README's test command"


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def test_the_constraints_pin_everything_the_test_install_takes() -> None:
    """README's test command installs exactly what CI tested: every distribution that
    ``.[test]`` pulls in on this Python (dependencies of dependencies included) is pinned."""
    from importlib import metadata

    from packaging.markers import default_environment
    from packaging.requirements import Requirement

    pins: dict[str, list[Requirement]] = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        text = line.split("#")[0].strip()
        if text:
            requirement = Requirement(text)
            pins.setdefault(_name(requirement.name), []).append(requirement)
    environment = default_environment()
    seen: set[str] = set()
    extras = frozenset({"test", "all", "openai", "anthropic", "github", "mcp", "examples", "frameworks"})
    todo = [("tool-eval-gate", extras)]
    while todo:
        name, extras = todo.pop()
        for raw in metadata.requires(name) or ():
            requirement = Requirement(raw)
            wanted = requirement.marker is None or any(
                requirement.marker.evaluate({**environment, "extra": extra}) for extra in (*extras, "")
            )
            key = _name(requirement.name)
            if not wanted or key in seen or key == "tool-eval-gate":
                continue
            seen.add(key)
            applicable = [p for p in pins.get(key, []) if p.marker is None or p.marker.evaluate(environment)]
            assert len(applicable) == 1, (
                f"constraints.txt pins {requirement.name} {len(applicable)} times here"
            )
            assert str(applicable[0].specifier).startswith("=="), applicable[0]
            todo.append((requirement.name, frozenset(requirement.extras)))
    assert len(seen) > 30
