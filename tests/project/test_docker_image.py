"""The action's packaging, checked without Docker: action.yml agrees with the entrypoint, and the
Dockerfile / .dockerignore keep the image small and runnable."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest
import yaml

from gate.commands.plans import RunPlan
from gate.github.action_inputs import ActionInputs, read_inputs, run_options

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
DOCKERFILE = (ROOT / "Dockerfile").read_text()
INSTRUCTIONS = [
    line.strip()
    for line in re.sub(r"\\\n", " ", DOCKERFILE).splitlines()
    if line.strip() and not line.lstrip().startswith("#")
]


def test_action_is_a_docker_action_with_branding() -> None:
    assert ACTION["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert ACTION["branding"]["icon"] and ACTION["branding"]["color"]


def test_every_action_input_is_read_by_the_entrypoint_and_vice_versa() -> None:
    declared = set(ACTION["inputs"])
    own = {name for name, f in ActionInputs.__dataclass_fields__.items() if "description" in f.metadata}
    assert declared == own | {each.name for each in run_options()}
    for name, spec in ACTION["inputs"].items():
        assert name == name.lower() and "-" not in name, name  # underscore names, as GitHub passes them
        assert spec.get("description"), name
        assert "default" in spec, name
    assert ACTION["inputs"]["github_token"]["default"] == "${{ github.token }}"
    # The documented defaults are the entrypoint's defaults.
    env = {f"INPUT_{name.upper()}": str(spec["default"]) for name, spec in ACTION["inputs"].items()}
    env["INPUT_GITHUB_TOKEN"] = ""
    inputs, problems = read_inputs(env)
    assert problems == () and inputs.options == RunPlan()
    assert all(getattr(inputs, name) == getattr(ActionInputs(), name) for name in own)


def test_outputs_of_the_design_are_declared() -> None:
    for name in ("pass_rate", "passed", "failed", "errors", "junit_path", "results_path", "report_path"):
        assert ACTION["outputs"][name]["description"], name
    source = (ROOT / "gate/github/entrypoint.py").read_text()
    for name in ACTION["outputs"]:
        assert f'"{name}"' in source, f"output {name} is never written"


def test_dockerfile_is_small_and_runs_the_entrypoint() -> None:
    froms = [line for line in INSTRUCTIONS if line.startswith("FROM ")]
    assert froms and all(line.split()[1] == "${BASE}" for line in froms)
    assert INSTRUCTIONS[-1] == 'ENTRYPOINT ["python", "-m", "gate.github.entrypoint"]'
    runs = [line for line in INSTRUCTIONS if line.startswith("RUN ")]
    for run in runs:
        if "pip install" in run or "pip wheel" in run:
            assert "--no-cache-dir" in run, run
        if "apt-get install" in run:
            assert "--no-install-recommends" in run and "rm -rf /var/lib/apt/lists/*" in run, run
            assert "apt-get clean" in run and "/var/cache/apt/*.bin" in run, run  # ~70 MB of package caches
            assert " git" in run, "git is needed for change detection"
            assert not re.search(r"\b(gcc|build-essential|make)\b", run), run
    final_stage = DOCKERFILE.rsplit("FROM ", 1)[1]
    assert "compileall" in final_stage or "--compile" in final_stage
    assert "PYTHONDONTWRITEBYTECODE=1" in final_stage
    # The bytecode is compiled before PYTHONDONTWRITEBYTECODE is set (else nothing would be written).
    assert final_stage.index("compileall") < final_stage.index("PYTHONDONTWRITEBYTECODE=1")


def test_the_base_image_is_pinned_by_digest() -> None:
    (arg,) = [line for line in INSTRUCTIONS if line.startswith("ARG BASE=")]
    assert re.fullmatch(r"ARG BASE=python:3\.12-slim@sha256:[0-9a-f]{64}", arg)


def test_dependencies_come_from_the_hashed_lock_in_a_layer_of_their_own() -> None:
    final = [
        line
        for line in INSTRUCTIONS[
            INSTRUCTIONS.index(next(i for i in reversed(INSTRUCTIONS) if i.startswith("FROM "))) :
        ]
    ]
    lock_copy = final.index("COPY requirements.lock /tmp/requirements.lock")
    (lock_install,) = [i for i, line in enumerate(final) if "-r /tmp/requirements.lock" in line]
    (wheel_copy,) = [i for i, line in enumerate(final) if line.startswith("COPY --from=build")]
    (wheel_install,) = [
        i for i, line in enumerate(final) if "/wheels/*.whl" in line and "pip install" in line
    ]
    # The 87 MB dependency layer comes before (and does not depend on) the project's code.
    assert lock_copy < lock_install < wheel_copy < wheel_install
    assert "--require-hashes" in final[lock_install] and "--only-binary=:all:" in final[lock_install]
    assert "--no-deps" in final[wheel_install]  # nothing resolved at build time beyond the lock


def _lock() -> dict[str, list[str]]:
    entries: dict[str, list[str]] = {}
    name = ""
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if re.match(r"^[A-Za-z0-9]", line):
            name = re.split(r"==", line)[0].lower()
            assert "==" in line, line
            entries[name] = []
        elif "--hash=sha256:" in line:
            entries[name].append(line)
    return entries


def test_the_lock_pins_every_runtime_dependency_with_hashes() -> None:
    lock = _lock()
    assert lock and all(hashes for hashes in lock.values()), [n for n, h in lock.items() if not h]
    pyproject = (ROOT / "pyproject.toml").read_text()
    runtime = re.search(r"^dependencies = \[(.*?)^\]", pyproject, re.S | re.M)
    assert runtime is not None
    extras = re.search(r"^\[project.optional-dependencies\](.*?)^\[", pyproject, re.S | re.M)
    groups = re.findall(r"^(\w[\w-]*) = \[(.*?)\]", extras.group(1) if extras else "", re.S | re.M)
    # "examples" and "frameworks" hold what the example agents and adapters need, not the gate: the image
    # does not run them.
    texts = [runtime.group(1)] + [
        body for group, body in groups if group not in ("test", "dev", "examples", "frameworks")
    ]
    for text in texts:
        for requirement in re.findall(r'"([A-Za-z0-9_.-]+)', text):
            if requirement == "tool-eval-gate":
                continue
            assert requirement.lower().replace("_", "-") in lock, f"{requirement} is not in requirements.lock"


def test_the_release_points_action_yml_at_the_image_by_digest() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("pin", ROOT / ".ci/pin_action_image.py")
    assert spec is not None and spec.loader is not None
    pin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pin)
    image = "ghcr.io/acme/tool-eval-gate@sha256:" + "a" * 64
    pinned = yaml.safe_load(pin.pin((ROOT / "action.yml").read_text(), image))
    assert pinned["runs"] == {"using": "docker", "image": f"docker://{image}"}
    assert pinned["inputs"] == ACTION["inputs"]
    for bad in ("ghcr.io/acme/tool-eval-gate:v1", "ghcr.io/acme/x@sha256:abc"):
        with pytest.raises(SystemExit):
            pin.pin((ROOT / "action.yml").read_text(), bad)
    release = (ROOT / ".github/workflows/release.yml").read_text()
    assert 'python3 .ci/pin_action_image.py action.yml "$IMAGE"' in release
    assert "IMAGE: ${{ steps.name.outputs.image }}@${{ steps.build.outputs.digest }}" in release


def _ignored(path: str, patterns: list[str]) -> bool:
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pat = pattern[1:] if negate else pattern
        pat = pat.rstrip("/")
        if (
            fnmatch.fnmatch(path, pat)
            or fnmatch.fnmatch(path, pat + "/*")
            or ("**" in pat and fnmatch.fnmatch(path, pat.replace("**/", "*")))
        ):
            ignored = not negate
    return ignored


def test_dockerignore_sends_only_what_the_build_copies() -> None:
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    copied = re.findall(r"^COPY (?!--from)(.+?) \S+$", DOCKERFILE, re.M)
    sources = [src for line in copied for src in line.split()]
    for src in sources:
        assert not _ignored(src.rstrip("/"), patterns), f"{src} is copied but ignored"
    for path in (
        ".git/config",
        "tests/github/test_entrypoint.py",
        "bench/run.py",
        "gate/__pycache__/x.pyc",
        ".ci/venv/bin/python",
    ):
        assert _ignored(path, patterns), f"{path} would be sent to the Docker daemon"
    assert not _ignored("gate/github/entrypoint.py", patterns)
