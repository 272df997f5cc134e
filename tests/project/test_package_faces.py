"""Each package of ``gate`` has a face: its ``__init__.py`` lists in ``__all__`` what other packages may
import from it (its public modules, and the names its ``__init__`` defines), an import contract of
``pyproject.toml`` holds it (the rest of the package is protected: only the package imports it), and
docs/architecture.md lists it. The three stay equal."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.project.test_architecture_map import ROOT, _section, contracts

FACE_ROW = re.compile(r"^\|\s*`gate/([a-z_]+)/`\s*\|(.*)\|\s*$")
PREFIX = "The face of "


def _all_of(init: Path) -> list[str]:
    tree = ast.parse(init.read_text(encoding="utf-8"))
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            return [ast.literal_eval(e) for e in node.value.elts]  # type: ignore[attr-defined]
    raise AssertionError(f"{init.relative_to(ROOT)}: no __all__ (list what other packages may import)")


def _defined(init: Path) -> set[str]:
    """The names an ``__init__.py`` defines or imports."""
    names: set[str] = set()
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname or a.name for a in node.names}
    return names


def declared_faces(root: Path = ROOT) -> dict[str, list[str]]:
    """package -> its ``__all__``, for every package of gate (``gate.assembly.checks`` too)."""
    return {
        ".".join(init.parent.relative_to(root).parts): _all_of(init)
        for init in sorted((root / "gate").glob("**/__init__.py"))
        if init.parent != root / "gate" and _is_declared(init.parent, root)
    }


def _is_declared(folder: Path, root: Path) -> bool:
    """A top-level package declares its face; a subpackage does when its parent lists it."""
    parent = folder.parent
    if parent == root / "gate":
        return True
    return folder.name in _all_of(parent / "__init__.py") and _is_declared(parent, root)


def public_modules(package: str, faces: Mapping[str, Sequence[str]], root: Path = ROOT) -> list[str]:
    """The modules of ``package`` other packages may import: those its ``__all__`` lists, and through
    a listed subpackage the ones that subpackage lists."""
    found = []
    for name in faces[package]:
        dotted = f"{package}.{name}"
        path = root.joinpath(*dotted.split("."))
        if path.with_suffix(".py").is_file():
            found.append(dotted)
        elif (path / "__init__.py").is_file():
            found += [dotted, *public_modules(dotted, faces, root)]
    return found


def face_problems(
    faces: Mapping[str, Sequence[str]], stated: Sequence[Mapping[str, Any]], doc: str, root: Path = ROOT
) -> list[str]:
    """What is untrue between the packages' ``__all__`` (``faces``), the face contracts among
    ``stated`` and the faces table of ``doc``."""
    problems = []
    by_package = {c["name"][len(PREFIX) :].split(":")[0]: c for c in stated if c["name"].startswith(PREFIX)}
    documented = {
        f"gate.{m.group(1)}": re.findall(r"`([^`]+)`", m.group(2))
        for line in _section(doc).splitlines()
        if (m := FACE_ROW.match(line))
    }
    top = [p for p in faces if p.count(".") == 1]
    for package in top:
        init = root.joinpath(*package.split(".")) / "__init__.py"
        for name in faces[package]:
            path = root.joinpath(*f"{package}.{name}".split("."))
            if not (
                path.with_suffix(".py").is_file()
                or (path / "__init__.py").is_file()
                or name in _defined(init)
            ):
                problems.append(f"{package}.__all__ lists {name!r}: no module, subpackage or name of it")
        contract = by_package.get(package)
        if contract is None:
            problems.append(f"{package}: no contract '{PREFIX}{package}: ...' holds its face")
        else:
            problems += _contract_problems(package, contract, public_modules(package, faces, root))
        if documented.get(package) != list(faces[package]):
            problems.append(f"{package}: docs/architecture.md lists its face as {documented.get(package)}")
    problems += [f"{p}: a face contract for no package of gate" for p in sorted(set(by_package) - set(top))]
    return problems


def _contract_problems(package: str, contract: Mapping[str, Any], public: Sequence[str]) -> list[str]:
    expected = {
        "type": "protected",
        "protected_modules": [f"{package}.**"],
        "allowed_importers": [package],
        "ignore_imports": sorted(f"gate.** -> {m}" for m in public),
    }
    found = {**contract, "ignore_imports": sorted(contract.get("ignore_imports", ()))}
    return [
        f"{package}: its contract's {key} is {found.get(key)}, its __all__ makes it {value}"
        for key, value in expected.items()
        if found.get(key) != value
    ]


def root_imports(root: Path = ROOT) -> list[tuple[str, str, str]]:
    """(importing module, package, name) for each ``from gate.X import name`` of a name (not a module)
    by a module of another package."""
    found = []
    for path in sorted((root / "gate").rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").count(".") == 1:
                package = node.module or ""
                folder = root.joinpath(*package.split("."))
                if not (folder / "__init__.py").is_file() or module.startswith(f"{package}."):
                    continue
                found += [
                    (module, package, a.name)
                    for a in node.names
                    if not (folder / f"{a.name}.py").is_file()
                    and not (folder / a.name / "__init__.py").is_file()
                ]
    return found


def _doc() -> str:
    return (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_every_package_face_is_declared_held_and_documented() -> None:
    assert face_problems(declared_faces(), contracts(), _doc()) == []


def test_a_name_taken_from_a_package_root_is_on_its_face() -> None:
    faces = declared_faces()
    assert [(m, p, n) for m, p, n in root_imports() if n not in faces[p]] == []


def test_a_module_made_public_without_its_contract_or_docs_fails() -> None:
    faces = {**declared_faces()}
    faces["gate.reports"] = [*faces["gate.reports"], "transcript"]
    problems = face_problems(faces, contracts(), _doc())
    assert len(problems) == 2
    assert problems[0].startswith("gate.reports: its contract's ignore_imports is")
    assert problems[1].startswith("gate.reports: docs/architecture.md lists its face as")


def test_a_contract_opening_a_private_module_fails() -> None:
    stated = [
        {**c, "ignore_imports": [*c["ignore_imports"], "gate.** -> gate.run.agent_loop"]}
        if c["name"].startswith(f"{PREFIX}gate.run:")
        else c
        for c in contracts()
    ]
    assert [p.split(":")[0] for p in face_problems(declared_faces(), stated, _doc())] == ["gate.run"]


def test_a_package_without_a_face_contract_or_a_listing_of_nothing_fails() -> None:
    stated = [c for c in contracts() if not c["name"].startswith(f"{PREFIX}gate.episode:")]
    assert face_problems(declared_faces(), stated, _doc()) == [
        f"gate.episode: no contract '{PREFIX}gate.episode: ...' holds its face"
    ]
    faces = {**declared_faces(), "gate.episode": ["simulated_user", "nothing_here"]}
    assert face_problems(faces, contracts(), _doc())[0] == (
        "gate.episode.__all__ lists 'nothing_here': no module, subpackage or name of it"
    )
