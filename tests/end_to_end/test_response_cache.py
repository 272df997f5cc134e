"""The response cache through the real CLI: entries are bounded and never read or written through a
link (DESIGN section 9), and a cached answer keeps the latency it had when it was recorded."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gate.commands.run import main as run_main
from tests.end_to_end.test_baseline_auto import git

ROOT = Path(__file__).resolve().parents[2]

SUITE = """\
version: 1
name: chat
agent: {provider: openai, model: test-model}
cases:
  - id: one
    input: first question
    expect: {no_calls: true, output: {contains: answer}}
  - id: two
    input: second question
    expect: {no_calls: true, output: {contains: answer}}
  - id: three
    input: third question
    expect: {no_calls: true, output: {contains: answer}}
"""
SCRIPT = {"rules": [], "default": {"text": "The answer."}}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / ".git").mkdir()  # the repository root, for the loader
    (root / "chat.suite.yaml").write_text(SUITE)
    return root


def run(repo: Path, server: Any, monkeypatch: pytest.MonkeyPatch, *extra: str) -> int:
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-response-cache")
    return run_main(["--root", str(repo), "--quiet", "--json", str(repo.parent / "r.json"), *extra])


def entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.json"))


def recorded(repo: Path, server: Any, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    cache = repo.parent / "recorded"
    assert run(repo, server, monkeypatch, "--cache", str(cache), "--record") == 0
    found = entries(cache)
    assert len(found) == 3  # one answer per case
    return found


def _limit_memory() -> None:
    limit = 2 * 1024**3
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_linked_device_fifo_and_giant_entries_are_misses_never_read(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A symlink to /dev/zero grew the gate past gigabytes; a sparse 64 GiB entry was read whole; a
    FIFO hung the run. Each is a miss now, read not at all, in a process capped at 2 GiB."""
    zero, fifo, sparse = recorded(repo, model_server(SCRIPT), monkeypatch)
    zero.unlink()
    os.symlink("/dev/zero", zero)
    fifo.unlink()
    os.mkfifo(fifo)
    with open(sparse, "r+b") as handle:
        handle.truncate(64 * 1024**3)
    cache = str(zero.parents[1])
    proc = subprocess.run(
        [sys.executable, "-m", "gate", "run", "--replay", "--cache", cache, "--root", str(repo)],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_memory,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 3, proc.stdout + proc.stderr  # nothing could be evaluated
    assert "cache (replay): 0 hits, 3 misses" in proc.stdout


def test_a_linked_subdirectory_or_entry_is_never_written_through(
    repo: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = model_server(SCRIPT)
    names = [p.relative_to(p.parents[1]) for p in recorded(repo, server, monkeypatch)]
    outside = repo.parent / "outside"
    outside.mkdir()
    (outside / "keep.json").write_text("keep")

    linked = repo / "cache-with-linked-dirs"
    for name in names:
        linked.mkdir(exist_ok=True)
        if not (linked / name.parent).is_symlink():
            os.symlink(outside, linked / name.parent)
    capsys.readouterr()
    assert run(repo, server, monkeypatch, "--cache", str(linked)) == 0
    assert sorted(p.name for p in outside.iterdir()) == ["keep.json"]
    assert "3 answer(s) could not be stored" in capsys.readouterr().out

    linked_entries = repo / "cache-with-linked-entries"
    for name in names:
        (linked_entries / name.parent).mkdir(parents=True, exist_ok=True)
        os.symlink(outside / "keep.json", linked_entries / name)
    assert run(repo, server, monkeypatch, "--cache", str(linked_entries), "--record") == 0
    assert (outside / "keep.json").read_text() == "keep"
    assert all(not (linked_entries / n).is_symlink() for n in names)
    assert all("The answer." in (linked_entries / n).read_text() for n in names)


LATENCY_SUITE = """\
version: 1
name: slow
agent: {provider: openai, model: test-model}
defaults: {latency_ms: 1000}
threshold: 0.5
cases:
  - id: slow
    input: a slow question
    expect: {no_calls: true}
  - id: quick
    input: a quick question
    expect: {no_calls: true}
"""
LATENCY_SCRIPT = {
    "rules": [{"when": {"last_user": "slow"}, "text": "Slowly.", "delay": 1.2}],
    "default": {"text": "Quickly."},
}


def statuses(path: Path) -> dict[str, tuple[str, float]]:
    cases = json.loads(path.read_text())["suites"][0]["cases"]
    return {c["case_id"]: (c["status"], c["trials"][0]["record"]["latency_ms"]) for c in cases}


def test_a_cached_answer_keeps_its_latency(
    tmp_path: Path, model_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text("cache/\n")
    (repo / "slow.suite.yaml").write_text(LATENCY_SUITE)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "pr")
    (repo / "slow.suite.yaml").write_text(LATENCY_SUITE.replace("threshold: 0.5", "threshold: 0.4"))
    git(repo, "commit", "-qam", "lower the threshold")  # the suite runs; its requests are unchanged
    server = model_server(LATENCY_SCRIPT)
    cache = str(repo / "cache")
    results = tmp_path / "r.json"
    live = ["--cache", cache, "--changed-since", "main", "--baseline", "auto", "--fail-on", "any-failure"]

    assert run(repo, server, monkeypatch, *live) == 1
    assert statuses(results)["slow"][0] == "failed"
    server.reset_stats()
    markdown = tmp_path / "r.md"
    assert run(repo, server, monkeypatch, *live, "--replay", "--markdown", str(markdown)) == 1
    assert server.request_count == 0
    (status, latency), (quick, _) = statuses(results)["slow"], statuses(results)["quick"]
    assert (status, quick) == ("failed", "passed") and latency >= 1200
    document = json.loads(results.read_text())
    failure = document["suites"][0]["cases"][0]["trials"][0]["failures"][0]
    assert failure["reason"] == "latency_exceeded"
    # base and head both came from the cache: the comparison shows the recorded mean latency per
    # case (the slow one's ~1.2 s and the quick one's), never "0.00 s -> 0.00 s"
    row = next(line for line in markdown.read_text().splitlines() if line.startswith("| `slow` |"))
    base, _, head = row.split("|")[-2].strip().partition(" → ")
    assert base == head.split(" (")[0] and float(base.removesuffix(" s")) >= 0.6
