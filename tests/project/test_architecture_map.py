"""docs/architecture.md's module map stays true of the package: every module of ``gate/`` is listed
exactly once, under its layer; the pure core it lists is the pure core the import contract holds; the
contracts it names are the ones ``pyproject.toml`` states."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: tomli comes with import-linter, a test dependency
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Layers and modules"
ROW = re.compile(r"^\|\s*`(gate/[^`]+\.py)`\s*\|")


def _section(doc: str) -> str:
    start = doc.index(f"\n{SECTION}\n")
    end = doc.find("\n## ", start + 1)
    return doc[start : end if end >= 0 else len(doc)]


def _rows(text: str) -> list[str]:
    return [m.group(1) for line in text.splitlines() if (m := ROW.match(line))]


def _holds_code(path: Path) -> bool:
    """A package's ``__init__.py`` belongs on the map when it defines something (not when it holds
    only a docstring, ``__version__`` or nothing)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for node in tree.body)


def package_modules(root: Path = ROOT) -> set[str]:
    return {
        path.relative_to(root).as_posix()
        for path in (root / "gate").rglob("*.py")
        if path.name != "__init__.py" or _holds_code(path)
    }


def contracts(root: Path = ROOT) -> list[dict[str, Any]]:
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = pyproject["tool"]["importlinter"]["contracts"]
    return found


def _dotted(module: str) -> str:
    return module.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


HEADING = re.compile(r"^#### `(gate/[^`]*)`", re.M)


def _misfiled(section: str) -> list[str]:
    """Rows under a package's heading (``#### `gate/run/` ``) that name a module of another folder."""
    problems = []
    for block in re.split(r"(?=^#### )", section, flags=re.M):
        heading = HEADING.match(block)
        if heading is None:
            continue
        folder = heading.group(1)
        problems += [
            f"{m}: listed under {folder}, but it is not in that folder"
            for m in _rows(block)
            if m.rpartition("/")[0] + "/" != folder
        ]
    return problems


def _pure_contract(stated: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return next(c for c in stated if c["name"].startswith("The pure core"))


def map_problems(doc: str, modules: Collection[str], stated: Sequence[dict[str, Any]]) -> list[str]:
    """What is untrue in the map ``doc`` of ``modules`` under the import contracts ``stated`` (one of
    them holding the pure core)."""
    section = _section(doc)
    pure_at, edges_at = section.index("\n### Pure core\n"), section.index("\n### Edges\n")
    pure, edges = _rows(section[pure_at:edges_at]), _rows(section[edges_at:])
    listed = pure + edges
    problems = [f"{m}: not on the map (add it under its layer)" for m in sorted(set(modules) - set(listed))]
    problems += [f"{m}: on the map but not in gate/" for m in sorted(set(listed) - set(modules))]
    problems += [f"{m}: listed {listed.count(m)} times" for m in sorted(set(listed)) if listed.count(m) > 1]
    problems += _misfiled(section)
    sources = _pure_contract(stated)["source_modules"]
    for module in listed:
        dotted = _dotted(module)
        held = any(dotted == s or dotted.startswith(f"{s}.") for s in sources)
        if held and module in edges:
            problems.append(f"{module}: the contract holds it pure, the map lists it as an edge")
        if not held and module in pure:
            problems.append(f"{module}: listed as pure core, but the contract does not hold it")
    flat = " ".join(section.split())
    problems += [
        f"contract not named: {c['name']}"
        for c in stated
        if " ".join(c["name"].split()) not in flat and not c["name"].startswith("The face of ")
    ]  # a package's face contract is named by its row of the faces table (test_package_faces)
    return problems


def _doc() -> str:
    return (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_the_map_is_true_of_the_package_and_its_contracts() -> None:
    assert map_problems(_doc(), package_modules(), contracts()) == []


def test_a_module_missing_from_the_map_fails() -> None:
    doc = _doc()
    without = "\n".join(line for line in doc.splitlines() if not line.startswith("| `gate/scoring/trial.py`"))
    assert map_problems(without, package_modules(), contracts()) == [
        "gate/scoring/trial.py: not on the map (add it under its layer)"
    ]
    new = [*package_modules(), "gate/new_module.py"]
    assert map_problems(doc, new, contracts()) == [
        "gate/new_module.py: not on the map (add it under its layer)"
    ]


def test_a_module_listed_twice_gone_or_under_the_wrong_layer_fails() -> None:
    doc = _doc()
    row = next(line for line in doc.splitlines() if line.startswith("| `gate/run/cache.py`"))
    twice = doc.replace(row, f"{row}\n{row}")
    assert map_problems(twice, package_modules(), contracts()) == ["gate/run/cache.py: listed 2 times"]
    gone = [m for m in package_modules() if m != "gate/run/cache.py"]
    assert map_problems(doc, gone, contracts()) == ["gate/run/cache.py: on the map but not in gate/"]
    stated = contracts()
    pure = _pure_contract(stated)
    stated[stated.index(pure)] = {**pure, "source_modules": [*pure["source_modules"], "gate.run.cache"]}
    assert map_problems(doc, package_modules(), stated) == [
        "gate/run/cache.py: the contract holds it pure, the map lists it as an edge"
    ]


def test_a_contract_the_map_does_not_name_fails() -> None:
    stated = [*contracts(), {"name": "Reports import no provider", "type": "forbidden"}]
    assert map_problems(_doc(), package_modules(), stated) == [
        "contract not named: Reports import no provider"
    ]


def test_package_markers_are_modules_only_when_they_hold_code() -> None:
    modules = package_modules()
    assert "gate/providers/__init__.py" in modules  # make_provider, missing_sdks
    assert "gate/commands/__init__.py" not in modules and "gate/__init__.py" not in modules


def test_a_module_under_another_folders_heading_fails() -> None:
    doc = _doc()
    row = next(line for line in doc.splitlines() if line.startswith("| `gate/run/cache.py`"))
    moved = doc.replace(row, "").replace("| `gate/util/stats.py`", f"{row}\n| `gate/util/stats.py`")
    assert map_problems(moved, package_modules(), contracts()) == [
        "gate/run/cache.py: listed under gate/util/, but it is not in that folder",
        "gate/run/cache.py: listed as pure core, but the contract does not hold it",
    ]


def test_every_package_of_gate_is_a_layer() -> None:
    """A new subpackage cannot escape the layering: the layers contract names every package of gate
    (and the top-level modules other packages import)."""
    layers = next(c for c in contracts() if c["type"] == "layers")["layers"]
    named = {name.strip() for layer in layers for name in layer.split("|")}
    packages = {_dotted(p.relative_to(ROOT).as_posix()) for p in (ROOT / "gate").glob("*/__init__.py")}
    assert packages <= named, sorted(packages - named)
