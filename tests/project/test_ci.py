"""The MCP SDK's two lines are both tested: .ci/mcp2 runs the tests that talk MCP on the 2.x line (the
main environment is on 1.x, beside the agent frameworks); its list names test files that exist and
holds every test module that imports the SDK."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = (ROOT / ".ci" / "mcp2").read_text(encoding="utf-8")


def _listed() -> list[str]:
    command = SCRIPT[SCRIPT.index("python3 -m pytest") :]
    return re.findall(r"\btests/[\w/.]+", command)


def _imports_mcp(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "mcp" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "mcp":
            return True
    return False


def test_the_mcp_2x_run_lists_test_files_that_exist() -> None:
    listed = _listed()
    assert len(listed) >= 5
    for path in listed:
        assert (ROOT / path).exists(), f".ci/mcp2 runs {path}, which is gone: follow it where it moved"


def test_every_test_module_that_imports_the_mcp_sdk_runs_on_the_2x_line_too() -> None:
    listed = _listed()
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if _imports_mcp(path):
            assert any(relative == p or relative.startswith(p.rstrip("/") + "/") for p in listed), (
                f"{relative} imports the MCP SDK: add it to .ci/mcp2's list"
            )


def test_the_2x_run_pins_a_2x_release_and_the_extra_admits_both_lines() -> None:
    assert re.search(r"mcp==2\.\d+\.\d+\\nmcp-types==2\.\d+\.\d+", SCRIPT)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'mcp = ["mcp>=1.24,<3"]' in pyproject
    assert re.search(r"^mcp==1\.", (ROOT / "constraints.txt").read_text(encoding="utf-8"), re.M)
