"""The benchmark of DESIGN.md section 8, in one command:

    python bench/run.py            # the full version (several minutes)
    python bench/run.py --quick    # a short smoke version for CI
    python bench/run.py --only throughput,cache --json bench-results.json

The scripted model server (``tests/support/model_server.py``) runs as a separate process with a fixed
latency (300 ms); the gate runs as ``python -m gate ...`` child processes, one at a time, each measured
with ``os.wait4`` (wall, user+sys CPU, peak RSS of that process alone). Results are printed as ratios
next to their targets, with the workload that produced them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from workload import TOOLS, Workload, suite_text, write_suites  # noqa: E402

SERVER = ROOT / "tests" / "support" / "model_server.py"
SCRIPT = ROOT / "tests" / "support" / "scripts" / "bench.yaml"
LATENCY = 0.3
SECTIONS = (
    "throughput",
    "memory",
    "ratelimit",
    "cache",
    "baseline",
    "trials",
    "validate",
    "scoring",
    "html",
    "results_size",
    "hostile",
    "program",
    "http_paths",
    "reuse",
)


# --------------------------------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Child:
    returncode: int
    wall: float
    cpu: float  # user + sys seconds of the child (and its own waited children)
    max_rss_mb: float
    stdout: str
    stderr: str


def run_child(command: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Child:
    """Run one child to completion and measure it alone (``os.wait4`` gives that child's rusage)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Child(
            returncode=process.returncode,
            wall=wall,
            cpu=usage.ru_utime + usage.ru_stime,
            max_rss_mb=usage.ru_maxrss / 1024.0,  # kilobytes on Linux
            stdout=out.read(),
            stderr=err.read(),
        )


class ModelServer:
    """The scripted server as a separate process."""

    def __init__(self, *extra: str, latency: float = LATENCY, script: Path = SCRIPT):
        command = [
            sys.executable,
            str(SERVER),
            "--script",
            str(script),
            "--latency",
            str(latency),
            "--port",
            "0",
        ]
        self.process = subprocess.Popen([*command, *extra], stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().split() if self.process.stdout else []
        if len(line) != 2 or line[0] != "READY":
            self.process.kill()
            raise RuntimeError(f"the model server did not start: {line}")
        self.port = int(line[1])

    @property
    def openai_base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stats", timeout=10) as response:
            return json.load(response)

    def reset(self) -> None:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/_reset", data=b"", method="POST")
        urllib.request.urlopen(request, timeout=10).close()

    def __enter__(self) -> ModelServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def gate_env(server: ModelServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
    env.update(
        OPENAI_BASE_URL=server.openai_base_url,
        OPENAI_API_KEY="bench-key",
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
        CI="true",  # plain progress lines, no terminal redraws
    )
    return env


def gate(args: list[str], env: dict[str, str], cwd: Path) -> Child:
    return run_child([sys.executable, "-m", "gate", *args], env=env, cwd=cwd)


def case_counts(results_path: Path) -> dict[str, int]:
    data = json.loads(results_path.read_text(encoding="utf-8"))
    counts: dict[str, int] = {}
    for suite in data.get("suites", ()):
        for case in suite.get("cases", ()):
            counts[case["status"]] = counts.get(case["status"], 0) + 1
    return counts


def fail_text(child: Child) -> str:
    tail = (child.stderr or child.stdout).strip().splitlines()[-8:]
    return f"exit {child.returncode}: " + " | ".join(tail)


def ratio(value: float, target: float, lower_is_better: bool = True) -> str:
    ok = value <= target if lower_is_better else value >= target
    return f"{'OK  ' if ok else 'MISS'} (target {'<=' if lower_is_better else '>='} {target:g})"


# --------------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------------


def throughput(work: Path, quick: bool) -> dict[str, Any]:
    workload = Workload(suites=4, cases_per_suite=40, trials=1) if quick else Workload(10, 50, 3)
    levels = [32] if quick else [8, 32, 64]
    suites = work / "throughput"
    write_suites(suites, workload)
    print(f"\n## Throughput: {workload.describe()}, server latency {LATENCY * 1000:.0f} ms")
    rows = []
    startup = run_child([sys.executable, "-c", "import openai"])
    print(
        f"(a process that only imports openai costs {startup.cpu * 1000:.0f} ms CPU; 'net' figures "
        "subtract it)"
    )
    with ModelServer() as server:
        env = gate_env(server)
        for level in levels:
            server.reset()
            bare = run_child(
                [
                    sys.executable,
                    str(BENCH / "bare_loop.py"),
                    str(suites / "manifest.json"),
                    "--base-url",
                    server.openai_base_url,
                    "--concurrency",
                    str(level),
                ],
                env=env,
            )
            if bare.returncode != 0:
                raise RuntimeError("bare loop failed: " + fail_text(bare))
            bare_stats = server.stats()
            bare_report = json.loads(bare.stdout.strip().splitlines()[-1])
            server.reset()
            results = work / f"throughput-{level}.json"
            child = gate(["run", str(suites), "--concurrency", str(level), "--json", str(results)], env, work)
            gate_stats = server.stats()
            if child.returncode not in (0, 1) or not results.exists():
                raise RuntimeError(f"gate run failed at concurrency {level}: " + fail_text(child))
            ideal = workload.requests * LATENCY / level
            row = {
                "concurrency": level,
                "requests": workload.requests,
                "gate_requests": gate_stats["request_count"],
                "bare_requests": bare_stats["request_count"],
                "gate_wall": child.wall,
                "bare_wall": bare.wall,
                "bare_loop_wall": bare_report["wall"],
                "ideal_wall": ideal,
                "gate_vs_bare": child.wall / bare.wall,
                "gate_vs_ideal": child.wall / ideal,
                "bare_vs_ideal": bare.wall / ideal,
                "gate_cpu_ms_per_request": child.cpu * 1000 / max(1, gate_stats["request_count"]),
                "bare_cpu_ms_per_request": bare.cpu * 1000 / max(1, bare_stats["request_count"]),
                "gate_net_cpu_ms_per_request": (child.cpu - startup.cpu)
                * 1000
                / max(1, gate_stats["request_count"]),
                "bare_net_cpu_ms_per_request": (bare.cpu - startup.cpu)
                * 1000
                / max(1, bare_stats["request_count"]),
                "gate_max_rss_mb": child.max_rss_mb,
                "gate_max_in_flight": gate_stats["max_in_flight"],
                "cases": case_counts(results),
            }
            rows.append(row)
            print(
                f"- concurrency {level:>2}: gate {child.wall:6.2f} s, bare loop {bare.wall:6.2f} s, ideal "
                f"{ideal:6.2f} s"
                f" | gate/bare {row['gate_vs_bare']:.3f} "
                f"{ratio(row['gate_vs_bare'], 1.15) if level == 32 else ''}"
                f" gate/ideal {row['gate_vs_ideal']:.3f}"
            )
            print(
                f"  CPU per request: gate {row['gate_cpu_ms_per_request']:.2f} ms "
                f"{ratio(row['gate_cpu_ms_per_request'], 8)},"
                f" bare {row['bare_cpu_ms_per_request']:.2f} ms; net gate "
                f"{row['gate_net_cpu_ms_per_request']:.2f} ms,"
                f" bare {row['bare_net_cpu_ms_per_request']:.2f} ms | requests gate {row['gate_requests']}"
                f" bare {row['bare_requests']} | max in flight {row['gate_max_in_flight']}"
                f" | cases {row['cases']} | gate peak RSS {child.max_rss_mb:.0f} MB"
            )
    return {"workload": workload.describe(), "startup_cpu": startup.cpu, "rows": rows}


def memory(work: Path, quick: bool) -> dict[str, Any]:
    workload = Workload(suites=2, cases_per_suite=40, trials=1) if quick else Workload(8, 80, 1)
    suites = work / "memory"
    write_suites(suites, workload)
    print(f"\n## Peak memory: {workload.describe()}, concurrency 64")
    with ModelServer() as server:
        results = work / "memory.json"
        child = gate(
            ["run", str(suites), "--concurrency", "64", "--json", str(results)], gate_env(server), work
        )
    if child.returncode not in (0, 1):
        raise RuntimeError("gate run failed: " + fail_text(child))
    print(
        f"- gate peak RSS {child.max_rss_mb:.1f} MB {ratio(child.max_rss_mb, 150)} (wall {child.wall:.2f} s)"
    )
    return {"workload": workload.describe(), "max_rss_mb": child.max_rss_mb, "wall": child.wall}


def ratelimit(work: Path, quick: bool) -> dict[str, Any]:
    workload = Workload(suites=2, cases_per_suite=40, trials=1) if quick else Workload(4, 50, 1)
    every, retry_after, level = 10, 0.5, 32
    suites = work / "ratelimit"
    write_suites(suites, workload)
    print(
        f"\n## Rate limits: {workload.describe()}, concurrency {level},"
        f" every {every}th request answered 429 with retry-after {retry_after} s"
    )
    with ModelServer("--rate-limit-every", str(every), "--retry-after", str(retry_after)) as server:
        results = work / "ratelimit.json"
        child = gate(
            ["run", str(suites), "--concurrency", str(level), "--json", str(results)], gate_env(server), work
        )
        stats = server.stats()
    if child.returncode not in (0, 1) or not results.exists():
        raise RuntimeError("gate run failed: " + fail_text(child))
    counts = case_counts(results)
    sent = stats["request_count"]
    ok_answers = stats["status_counts"].get("200", 0)
    row = {
        "workload": workload.describe(),
        "cases": counts,
        "completed": counts.get("passed", 0) == workload.cases,
        "requests_needed": workload.requests,
        "requests_sent": sent,
        "answered_429": stats["status_counts"].get("429", 0),
        "answered_200": ok_answers,
        "max_in_flight": stats["max_in_flight"],
        "concurrency": level,
        "wall": child.wall,
        "ideal_wall_without_429": workload.requests * LATENCY / level,
    }
    print(
        f"- cases {counts} (all passed: {row['completed']}); requests sent {sent} for {workload.requests} "
        "needed"
        f" ({sent / workload.requests:.2f}x; 429s {row['answered_429']});"
        f" max in flight {row['max_in_flight']} {ratio(row['max_in_flight'], level)}; wall {child.wall:.2f} s"
    )
    return row


def cache(work: Path, quick: bool) -> dict[str, Any]:
    workload = Workload(suites=4, cases_per_suite=10, trials=1) if quick else Workload(4, 25, 1)
    suites = work / "cache"
    cache_dir = work / "cache-dir"
    write_suites(suites, workload)
    print(f"\n## Cache: {workload.describe()}, --cache DIR")
    rows = {}
    with ModelServer() as server:
        env = gate_env(server)
        for label in ("first run", "identical second run", "one suite's prompt changed"):
            if label == "one suite's prompt changed":
                write_suites(suites, workload, revision={0: "Be concise."})
            server.reset()
            results = work / "cache.json"
            child = gate(
                [
                    "run",
                    str(suites),
                    "--concurrency",
                    "32",
                    "--cache",
                    str(cache_dir),
                    "--json",
                    str(results),
                ],
                env,
                work,
            )
            if child.returncode not in (0, 1):
                raise RuntimeError("gate run failed: " + fail_text(child))
            sent = server.stats()["request_count"]
            rows[label] = {"requests": sent, "wall": child.wall, "cases": case_counts(results)}
    one_suite = workload.cases_per_suite * workload.trials * 2
    print(f"- first run: {rows['first run']['requests']} requests (needed {workload.requests})")
    print(
        f"- identical second run: {rows['identical second run']['requests']} requests (target 0)"
        f" in {rows['identical second run']['wall']:.2f} s"
    )
    print(
        f"- after changing suite 0's prompt: {rows[label]['requests']} requests (that suite alone needs "
        f"{one_suite})"
    )
    return {"workload": workload.describe(), "runs": rows, "one_suite_requests": one_suite}


def _git(repo: Path, *args: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.invalid")
    env.update(GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.invalid")
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def baseline(work: Path, quick: bool) -> dict[str, Any]:
    """``--baseline auto`` (DESIGN section 8: the base side costs nothing on a warm cache): a git
    repository whose PR branch rewords suite 0's prompt, run with the cache cold, again unchanged, with
    only the base branch's answers cached, and for a PR that touches no suite."""
    workload = Workload(suites=4, cases_per_suite=10, trials=1) if quick else Workload(4, 25, 3)
    repo = work / "baseline-repo"
    repo.mkdir()
    write_suites(repo / "suites", workload)
    (repo / "README.md").write_text("bench\n", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "checkout", "-q", "-b", "pr")
    write_suites(repo / "suites", workload, revision={0: "Be concise."})
    _git(repo, "commit", "-q", "-am", "reword suite 0's prompt")
    one_suite = workload.cases_per_suite * workload.trials * 2
    print(f"\n## --baseline auto: {workload.describe()}; the PR rewords suite 0's prompt")
    print(f"(one side of suite 0 needs {one_suite} requests)")
    rows: dict[str, dict[str, Any]] = {}
    with ModelServer() as server:
        env = gate_env(server)

        def run(label: str, cache_dir: Path, extra: list[str]) -> None:
            server.reset()
            results = work / "baseline.json"
            child = gate(
                [
                    "run",
                    "suites",
                    "--concurrency",
                    "32",
                    "--cache",
                    str(cache_dir),
                    "--json",
                    str(results),
                    *extra,
                ],
                env,
                repo,
            )
            if child.returncode not in (0, 1):
                raise RuntimeError(f"gate run failed ({label}): " + fail_text(child))
            settings = json.loads(results.read_text(encoding="utf-8")).get("settings", {})
            base = settings.get("baseline") if isinstance(settings.get("baseline"), dict) else {}
            rows[label] = {
                "sent": server.stats()["request_count"],
                "head": settings.get("requests", 0),
                "base": base.get("requests", 0) if base else 0,
                "wall": child.wall,
            }

        auto = ["--changed-since", "main", "--baseline", "auto"]
        run("cold cache", work / "baseline-cache-1", auto)
        run("same PR again", work / "baseline-cache-1", auto)
        _git(repo, "checkout", "-q", "main")
        run("base branch run (warms the cache)", work / "baseline-cache-2", [])
        _git(repo, "checkout", "-q", "pr")
        run("PR after the base branch ran", work / "baseline-cache-2", auto)
        _git(repo, "checkout", "-q", "-b", "docs-only", "main")
        (repo / "README.md").write_text("bench, reworded\n", encoding="utf-8")
        _git(repo, "commit", "-q", "-am", "docs only")
        run("PR touching only README", work / "baseline-cache-2", auto)
    for label, row in rows.items():
        print(
            f"- {label}: {row['sent']} requests sent (head {row['head']}, base {row['base']}) "
            f"in {row['wall']:.2f} s"
        )
    warm = rows["PR after the base branch ran"]["base"] + rows["same PR again"]["sent"]
    print(f"- base-side requests on a warm cache: {warm} (target 0)")
    return {"workload": workload.describe(), "one_suite_requests": one_suite, "runs": rows}


def _mixed_script(workload: Workload, path: Path) -> dict[str, list[int]]:
    """The benchmark's agent made realistic: case numbers ending in 0 are never answered with the tool
    (they fail every trial), those ending in 5 fail their first two trials and then pass (flaky), the
    rest pass every trial. Returns the cases of each kind."""
    failing = [n for n in range(workload.cases) if n % 10 == 0]
    flaky = [n for n in range(workload.cases) if n % 10 == 5]
    rules: list[dict[str, Any]] = [
        {"when": {"last_user": f"case {n}\\.", "turn": 1}, "text": "I cannot find it."} for n in failing
    ]
    rules += [
        {"when": {"last_user": f"case {n}\\.", "turn": 1}, "times": 2, "text": "I cannot find it."}
        for n in flaky
    ]
    rules += [
        {
            "when": {"last_user": "case (?P<n>\\d+)", "turn": 1},
            "tool_calls": [{"name": "lookup", "arguments": {"key": "k{n}"}}],
        },
        {"when": {"after_tool": "lookup"}, "text": "The value is {result.value}."},
    ]
    path.write_text(json.dumps({"rules": rules, "default": {"text": "done"}}), encoding="utf-8")
    return {"failing": failing, "flaky": flaky}


def trials(work: Path, quick: bool) -> dict[str, Any]:
    """Cost per verdict (DESIGN section 8): requests per PR check on a realistic mix (most cases pass
    every trial, one in ten fails every trial, one in ten is flaky), five trials a case, without and
    with a base side (a PR rewording every suite's prompt, so both sides are evaluated), each run on a
    cold cache: ``--trials-policy full`` against ``curtailed`` (the default)."""
    workload = Workload(suites=2, cases_per_suite=10, trials=5) if quick else Workload(4, 20, 5)
    repo = work / "trials-repo"
    repo.mkdir()
    write_suites(repo / "suites", workload)
    (repo / ".gitignore").write_text(".tool-eval-gate/\n", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "checkout", "-q", "-b", "pr")
    write_suites(repo / "suites", workload, revision={s: "Be concise." for s in range(workload.suites)})
    _git(repo, "commit", "-q", "-am", "reword every prompt")
    kinds = _mixed_script(workload, work / "trials-script.json")
    print(
        f"\n## Curtailed trials: {workload.describe()}; {len(kinds['failing'])} cases fail every trial, "
        f"{len(kinds['flaky'])} fail their first two (flaky), the rest pass"
    )
    rows: dict[str, dict[str, Any]] = {}
    for base_side in (False, True):
        for policy in ("full", "curtailed"):
            with ModelServer(script=work / "trials-script.json") as server:
                results = work / "trials.json"
                extra = ["--changed-since", "main", "--baseline", "auto"] if base_side else []
                cache = work / f"trials-cache-{base_side}-{policy}"
                child = gate(
                    ["run", "suites", "--concurrency", "8", "--cache", str(cache), "--json", str(results)]
                    + ["--trials-policy", policy, *extra],
                    gate_env(server),
                    repo,
                )
                if child.returncode not in (0, 1):
                    raise RuntimeError(f"gate run failed ({policy}): " + fail_text(child))
                data = json.loads(results.read_text(encoding="utf-8"))
                rows[f"{'with' if base_side else 'without'} base side, {policy}"] = {
                    "requests": server.stats()["request_count"],
                    "wall": child.wall,
                    "exit": child.returncode,
                    "statuses": case_counts(results),
                    "comparison": data.get("comparison", {}).get("counts", {}),
                }
    out: dict[str, Any] = {"workload": workload.describe(), "runs": rows}
    for side in ("without", "with"):
        full, curtailed = rows[f"{side} base side, full"], rows[f"{side} base side, curtailed"]
        same = (full["exit"], full["statuses"], full["comparison"]) == (
            curtailed["exit"],
            curtailed["statuses"],
            curtailed["comparison"],
        )
        requests = curtailed["requests"] / full["requests"]
        wall = curtailed["wall"] / full["wall"]
        print(
            f"- {side} a base side: {full['requests']} -> {curtailed['requests']} requests per PR check "
            f"(curtailed/full {requests:.3f}), wall {full['wall']:.2f} s -> {curtailed['wall']:.2f} s "
            f"(ratio {wall:.3f}); same verdicts and comparison: {'yes' if same else 'NO'}"
        )
        out[f"{side}_base_side"] = {"requests_ratio": requests, "wall_ratio": wall, "same_verdicts": same}
    return out


def validate(work: Path, quick: bool) -> dict[str, Any]:
    workload = Workload(suites=100, cases_per_suite=5, trials=1)
    suites = work / "validate"
    write_suites(suites, workload)
    print(f"\n## validate: 100 suite files ({workload.cases} cases), cold process each time")
    env = {k: v for k, v in os.environ.items()}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    walls = []
    for _ in range(1 if quick else 5):
        child = gate(["validate", str(suites)], env, work)
        if child.returncode != 0:
            raise RuntimeError("validate failed: " + fail_text(child))
        walls.append(child.wall)
    best, median = min(walls), sorted(walls)[len(walls) // 2]
    print(f"- wall: median {median:.3f} s, best {best:.3f} s, first {walls[0]:.3f} s {ratio(median, 0.5)}")
    return {"walls": walls, "median": median}


def scoring(work: Path, quick: bool) -> dict[str, Any]:
    cases = 2000 if quick else 10_000
    print(f"\n## Scoring, analysis and reports: {cases} case results (1 trial each), JSON + JUnit + Markdown")
    env = {k: v for k, v in os.environ.items()}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    child = run_child(
        [
            sys.executable,
            str(BENCH / "score_bench.py"),
            "--cases",
            str(cases),
            "--out",
            str(work / "scoring"),
        ],
        env=env,
    )
    if child.returncode != 0:
        raise RuntimeError("scoring benchmark failed: " + fail_text(child))
    report = json.loads(child.stdout.strip().splitlines()[-1])
    report["max_rss_mb"] = child.max_rss_mb
    print(
        f"- score + reduce {report['score_seconds']:.2f} s, outputs {report['outputs_seconds']:.2f} s,"
        f" total {report['total_seconds']:.2f} s {ratio(report['total_seconds'], 2.0)};"
        f" peak RSS {child.max_rss_mb:.0f} MB {ratio(child.max_rss_mb, 300)}"
        f" (building the synthetic inputs: {report['setup_seconds']:.2f} s, not counted)"
    )
    return report


def html(work: Path, quick: bool) -> dict[str, Any]:
    cases = 2000 if quick else 10_000
    print(f"\n## The HTML report of a pull-request check: {cases} cases, head and base side, in Chromium")
    env = {k: v for k, v in os.environ.items()}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = work / "html"
    out.mkdir(parents=True, exist_ok=True)
    child = run_child(
        [sys.executable, str(BENCH / "html_bench.py"), "--cases", str(cases), "--out", str(out)], env=env
    )
    if child.returncode != 0:
        raise RuntimeError("HTML benchmark failed: " + fail_text(child))
    report = json.loads(child.stdout.strip().splitlines()[-1])
    print(
        f"- page {report['html_bytes'] / 1e6:.1f} MB ({report['regressed']} regressed, {report['fixed']} "
        f"fixed), rendered in {report['render_seconds']:.2f} s; in Chromium (median of 3 loads): opens "
        f"in {report['open_seconds']:.2f} s {ratio(report['open_seconds'], 3.0)}, the failed filter "
        f"{report['filter_seconds']:.2f} s, a case's transcripts {report['open_case_seconds']:.2f} s"
    )
    return report


# --------------------------------------------------------------------------------------------------


def _expanded_size(results_path: Path) -> int:
    """The size the results would have with the system prompt copied into every trial (format 1)."""
    data = json.loads(results_path.read_text(encoding="utf-8"))
    for suite in data["suites"]:
        prompts = suite.pop("system_prompts", [])
        for case in suite["cases"]:
            for trial in case["trials"]:
                trial["record"]["messages"] = [
                    {"role": "system", "content": prompts[m["prompt"]]} if "prompt" in m else m
                    for m in trial["record"]["messages"]
                ]
    return len(json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8"))


def results_size(work: Path, quick: bool) -> dict[str, Any]:
    """DESIGN 8: a 100 kB system prompt over 1,000 cases stays under 5 MB of results, and ``report``
    re-renders them identically."""
    cases = 200 if quick else 1000
    workload = Workload(suites=1, cases_per_suite=cases, trials=1)
    prompt = ("Rules for this team: answer precisely, always call lookup first, never guess. " * 1300)[
        :100_000
    ]
    suites = work / "results_size"
    suites.mkdir()
    # Only the suite (write_suites' manifest would hold the prompt 1,000 times in this process, and a
    # child's peak RSS starts from its parent's at fork).
    (suites / "size.suite.yaml").write_text(suite_text(0, workload, prompt), encoding="utf-8")
    print(f"\n## Results size: a {len(prompt) // 1000} kB system prompt x {cases} cases")
    with ModelServer(latency=0.0) as server:
        results = work / "size.json"
        run = gate(
            ["run", str(suites), "--concurrency", "32", "--json", str(results)], gate_env(server), work
        )
    if run.returncode not in (0, 1):
        raise RuntimeError("gate run failed: " + fail_text(run))
    size_mb = results.stat().st_size / 1e6
    again = work / "size-again.json"
    report = gate(
        [
            "report",
            str(results),
            "--json",
            str(again),
            "--markdown",
            str(work / "size.md"),
            "--junit",
            str(work / "size.xml"),
        ],
        gate_env(server),
        work,
    )
    if report.returncode not in (0, 1):
        raise RuntimeError("gate report failed: " + fail_text(report))
    identical = again.read_bytes() == results.read_bytes()
    expanded_mb = _expanded_size(results) / 1e6  # last: the children above never inherit its memory
    target = 5.0 * cases / 1000
    print(
        f"- results JSON {size_mb:.2f} MB {ratio(size_mb, target)}; with the prompt in every trial: "
        f"{expanded_mb:.1f} MB"
    )
    print(
        f"- run peak RSS {run.max_rss_mb:.1f} MB; report peak RSS {report.max_rss_mb:.1f} MB (wall "
        f"{report.wall:.2f} s)"
    )
    print(f"- report re-renders the results byte-identically: {identical}")
    return {
        "cases": cases,
        "prompt_bytes": len(prompt),
        "results_mb": size_mb,
        "expanded_mb": expanded_mb,
        "run_max_rss_mb": run.max_rss_mb,
        "report_max_rss_mb": report.max_rss_mb,
        "identical": identical,
    }


def hostile(work: Path, quick: bool) -> dict[str, Any]:
    """DESIGN 9: the bad-input corpus is refused cleanly (exit 2, a located error, no traceback), and
    the worst user regex costs its time limit, not a hang."""
    corpus = ROOT / "tests" / "bad_inputs"
    repo = work / "hostile"
    shutil.copytree(corpus, repo / "bad_inputs")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    rows = re.findall(r"^\| `([^`]+\.suite\.yaml)` \| `([^`]+)` \|", (corpus / "README.md").read_text(), re.M)
    print(f"\n## Hostile input: {len(rows)} bad suite files of tests/bad_inputs, one validate each")
    clean, slowest = 0, 0.0
    for name, where in rows:
        child = gate(["validate", f"bad_inputs/{name}"], dict(os.environ, PYTHONPATH=str(ROOT)), repo)
        located = any(line.startswith(f"bad_inputs/{where}: ") for line in child.stderr.splitlines())
        if child.returncode == 2 and located and "Traceback" not in child.stderr:
            clean += 1
        slowest = max(slowest, child.wall)
    print(
        f"- refused cleanly (exit 2, error at the expected line:column, no traceback): {clean} of {len(rows)}"
    )
    print(f"- slowest validate of one bad file: {slowest:.2f} s wall")
    sys.path.insert(0, str(ROOT))
    from gate import limits
    from gate.util import bounded_regex

    text = "a" * 40 + "b"
    started = time.perf_counter()
    try:
        bounded_regex.search("^(a|aa)+$", text)
        outcome = "finished"
    except bounded_regex.RegexTimeout:
        outcome = "timed out"
    regex_s = time.perf_counter() - started
    print(
        f"- worst regex, ^(a|aa)+$ on 40 a's and a b: {regex_s:.3f} s ({outcome}; limit "
        f"{limits.REGEX_TIMEOUT_SECONDS} s) {ratio(regex_s, limits.REGEX_TIMEOUT_SECONDS * 1.5)}"
    )
    outputs = _hostile_results_and_logs(work / "hostile-results", quick)
    import hostile_work

    print("\n## Hostile input: unbounded work (issue 35)")
    work_figures = {**hostile_work.globs(), **hostile_work.tool_sources(quick)}
    with ModelServer(latency=0.0) as server:
        env = gate_env(server)
        work_figures["proxy"] = hostile_work.proxy_memory(
            work / "hostile-proxy", env, list, _program_interpreter(env)
        )
    return {
        "corpus": len(rows),
        "refused_cleanly": clean,
        "slowest_validate_s": slowest,
        "worst_regex_s": regex_s,
        **outputs,
        **work_figures,
    }


_FORGED = "x\n::error file=README.md,line=1::forged\r::warning::forged ##[stop-commands]STOP"
_MARKUP = "<img src=x> @org/team #42 org/repo#9 <!-- tool-eval-gate:default -->"


def _report_peak(work: Path, results: str, env: dict[str, str]) -> tuple[int, float]:
    """``report RESULTS``: its exit code and its own peak memory in MB (VmHWM, which a forked child's
    ``ru_maxrss`` is not: that starts from the benchmark's own size)."""
    from tests.hostile.test_bad_inputs import _PEAK_REPORTING

    peak = work / "peak"
    child = run_child(
        [sys.executable, "-c", _PEAK_REPORTING, "report", results],
        env=dict(env, PEAK_FILE=str(peak)),
        cwd=work,
    )
    return child.returncode, int(peak.read_text()) / 1024


def _hostile_results_and_logs(work: Path, quick: bool) -> dict[str, Any]:
    """Issue 25: hostile results files and options are refused cleanly (exit 2, the location first,
    no traceback), a dense results file in a small multiple of its size, and nothing printed becomes
    a workflow command, nothing in the report is live markup, no Basic credential shows."""
    sys.path.insert(0, str(ROOT))
    from gate.results_json.codec import to_json
    from tests.results_factory import case, failure, record, run, suite

    work.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    good = to_json(run(suite("s", cases=[case("a"), case("b", status="failed")])))
    data = json.loads(good)
    data["suites"][0]["cases"].append(dict(data["suites"][0]["cases"][0]))
    files = {
        "nan.json": good.replace('"threshold": 0.9', '"threshold": NaN', 1),
        "infinity.json": good.replace('"threshold": 0.9', '"threshold": 1e999', 1),
        "huge_integer.json": good.replace('"threshold": 0.9', '"threshold": ' + "9" * 5000, 1),
        "duplicate_case.json": json.dumps(data),
    }
    commands = [(["report", name], name) for name in files]
    commands += [
        (["report", "good.json", "--baseline", "huge_integer.json"], "huge_integer.json"),
        (["report", "good.json", "--markdown-limit", "-1"], "--markdown-limit"),
        (["run", ".", "--shard", "1/99999999999999999999999"], "--shard"),
        (["run", ".", "--rerun-failed", "nan.json"], "nan.json"),
    ]
    for name, text in {**files, "good.json": good}.items():
        (work / name).write_text(text, encoding="utf-8")
    (work / "s.suite.yaml").write_text(
        "version: 1\nname: s\nagent: {provider: openai, model: gpt-4o-mini}\ncases: [{id: a, input: hi}]\n",
        encoding="utf-8",
    )
    refused = 0
    for command, location in commands:
        child = gate(command, env, work)
        first = next((line for line in child.stderr.splitlines() if line.strip()), "")
        located = first.startswith((f"{location}:", f"{location} "))
        refused += child.returncode == 2 and "Traceback" not in child.stderr and located
    print(
        f"- hostile results files and options refused cleanly (exit 2, located first): {refused} of "
        f"{len(commands)}"
    )
    dense = work / "dense.json"
    count = 9_000_000  # 27 MB of {}: decoded, it took 717 MB before issue 25
    text = json.loads(good)
    text["suites"][0]["cases"][0]["trials"] = "TRIALS"
    dense.write_text(
        json.dumps(text).replace('"TRIALS"', "[" + ",".join(["{}"] * count) + "]"), encoding="utf-8"
    )
    tiny = _report_peak(work, "good.json", env)[1]
    code, peak = _report_peak(work, "dense.json", env)
    size_mb = dense.stat().st_size / 1e6
    factor = (peak - tiny) / size_mb
    print(
        f"- a {size_mb:.0f} MB results file dense in objects: exit {code}, peak RSS {peak:.0f} MB "
        f"({factor:.1f}x its size above a tiny file's {tiny:.0f} MB; 717 MB, 26x, before issue 25)"
    )
    bad = failure("wrong_tool", message=_FORGED + _MARKUP, tool=_FORGED, expected_tool="t")
    forged = case("c" + _FORGED, status="failed", failures=[bad], rec=record(output=_FORGED + _MARKUP))
    forged_results = run(suite("s" + _FORGED, [forged], path="p" + _FORGED))
    (work / "forged.json").write_text(to_json(forged_results), encoding="utf-8")
    child = gate(["report", "forged.json", "--markdown", "forged.md"], env, work)
    lines = re.split(r"[\r\n]", child.stdout + child.stderr)
    live = [line for line in lines if line.lstrip().startswith("::") or "##[" in line]
    from tests.reports.test_markdown import outside_code  # where Markdown is live

    markdown = outside_code((work / "forged.md").read_text(encoding="utf-8"))
    markup = sum(markdown.count(m) for m in ("<img", "@org/team", "<!-- tool-eval-gate:default -->")) - 1
    print(
        f"- workflow commands printed from a forged results file: {len(live)}; live markup in its "
        f"report: {markup}"
    )
    return {
        "results_and_options": len(commands),
        "results_and_options_refused": refused,
        "dense_results_mb": size_mb,
        "dense_results_factor": factor,
        "workflow_commands_printed": len(live),
        "live_markup": markup,
    }


def program_suite(cases: int, interpreter: str) -> str:
    """A suite whose agent is ``bench/program_agent.py`` run by ``interpreter`` (a name on PATH): the
    workload's cases, its mocks unused (the program answers ``lookup`` with its own code, as it does
    when it talks to the model directly)."""
    lines = [
        "version: 1",
        "name: bench-program",
        "agent:",
        f"  command: [{json.dumps(interpreter)}, {json.dumps(str(BENCH / 'program_agent.py'))}]",
        f"  tools: {json.dumps(TOOLS)}",
        "threshold: 0.9",
        "cases:",
    ]
    for n in range(cases):
        lines += [f"  - id: c{n:05d}", f"    input: Please look up case {n}.", "    expect:"]
        lines += [
            "      calls: [{tool: lookup, args: {key: " + f"k{n}" + "}}]",
            '      output: {contains: "42"}',
        ]
    return "\n".join(lines) + "\n"


def _program_interpreter(env: dict[str, str]) -> Path:
    """The interpreter both sides run the program with: the benchmark's own, unless the gate gives
    commands a user of their own (it runs as root) and that user cannot reach it (a Python under a home
    only root may enter): then the first of the system's that it can."""
    sys.path.insert(0, str(ROOT))
    from gate.containment.reach import unreachable
    from gate.containment.users import command_user

    mine = Path(sys.executable)
    if command_user(env) == "gate" or not unreachable(mine, execute=True):
        return mine
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if Path(candidate).exists() and not unreachable(candidate, execute=True):
            return Path(candidate)
    raise RuntimeError(f"the gate runs commands as users of their own, and none can run {mine}")


# What the gate sides of the program's measurement change (``http_paths``): each leaves one of the
# gate's own HTTP paths out, so its cost shows beside the gate as it is.
GATE_SIDES = {
    "gate": "the gate as it is",
    "gate-sdk": "every program request through the openai SDK (OPENAI_CUSTOM_HEADERS set: the "
    "gate's own client, gate/providers/upstream_http.py, steps aside)",
    "gate-threaded": "its loopback server on the standard library's http.server threads "
    "(bench/threaded_loopback.py) instead of gate/programs/loopback_http.py",
}


def _program_side(
    side: str, directory: Path, env: dict[str, str], cases: int, level: int, python: Path
) -> Child:
    """One run of the program's cases: ``direct`` (bench/program_direct.py) or through the gate (a
    side of ``GATE_SIDES``)."""
    if side == "direct":
        command = [str(python), str(BENCH / "program_direct.py"), str(cases), "--concurrency", str(level)]
        child = run_child(command, env=env)
        answered = (
            json.loads(child.stdout.strip().splitlines()[-1])["answered"] if child.returncode == 0 else 0
        )
        if answered != cases:
            raise RuntimeError(f"direct run failed ({answered}/{cases} answered): {fail_text(child)}")
        return child
    results = directory / "results.json"
    args = ["run", str(directory), "--root", str(directory), "--allow-commands", "--concurrency", str(level)]
    args += ["--json", str(results)]
    if side == "gate-threaded":
        child = run_child([sys.executable, str(BENCH / "threaded_loopback.py"), *args], env, directory)
    else:
        extra = {"OPENAI_CUSTOM_HEADERS": "x-bench: sdk"} if side == "gate-sdk" else {}
        child = gate(args, {**env, **extra}, directory)
    if child.returncode != 0 or case_counts(results) != {"passed": cases}:
        raise RuntimeError(f"program run failed ({side}): {fail_text(child)}")
    return child


@dataclass(frozen=True)
class _Rounds:
    """Each side's wall and CPU per round, and the requests the model server received from it."""

    sides: tuple[str, ...]
    walls: dict[str, list[float]]
    cpu: dict[str, list[float]]
    requests: dict[str, int]
    row: dict[str, Any]

    def ratio(self, side: str) -> float:
        """The median over the rounds of ``side``'s wall over the direct side's in the same round."""
        ratios = sorted(g / d for g, d in zip(self.walls[side], self.walls["direct"], strict=True))
        return ratios[len(ratios) // 2]

    def cpu_over_direct(self, side: str) -> float:
        """The median over the rounds of ``side``'s CPU (the programs' with it) less the direct side's."""
        extra = sorted(g - d for g, d in zip(self.cpu[side], self.cpu["direct"], strict=True))
        return extra[len(extra) // 2]


def _program_rounds(work: Path, quick: bool, sides: tuple[str, ...]) -> _Rounds:
    """The program's cases run by each of ``sides`` (``direct`` first among them), round after round,
    each round starting one side further on, after a warm-up case."""
    sys.path.insert(0, str(ROOT))
    from gate.containment.users import command_user

    cases, level, rounds = (32, 8, 1) if quick else (96, 16, 3)
    directory = work / "program"
    (directory / "bin").mkdir(parents=True, exist_ok=True)
    for path in (work, directory, directory / "bin"):
        path.chmod(0o755)  # where a command's own user runs the program
    (directory / "program.suite.yaml").write_text(program_suite(cases, "bench-python"), encoding="utf-8")
    with ModelServer() as server:
        env = gate_env(server)
        interpreter = _program_interpreter(env)
        link = directory / "bin" / "bench-python"
        if not link.is_symlink():
            os.symlink(interpreter, link)
        env["PATH"] = str(directory / "bin") + os.pathsep + env.get("PATH", "")
        user = command_user(env)
        print(
            f"\n## Agent program: {cases} cases x 2 model turns, a process per case, concurrency {level}, "
            f"server latency {LATENCY * 1000:.0f} ms, {rounds} round(s), program run by {interpreter}, "
            f"as {'users of their own' if user == 'own' else 'the gate user, under its supervisor'}"
        )
        walls: dict[str, list[float]] = {side: [] for side in sides}
        cpu: dict[str, list[float]] = {side: [] for side in sides}
        requests: dict[str, int] = {}
        _program_side("direct", directory, env, 1, 1, link)  # warm-up
        for number in range(rounds):
            order = sides[number % len(sides) :] + sides[: number % len(sides)]
            load = os.getloadavg()[0]
            for side in order:
                server.reset()
                child = _program_side(side, directory, env, cases, level, link)
                walls[side].append(child.wall)
                cpu[side].append(child.cpu)
                requests[side] = server.stats()["request_count"]
            shown = ", ".join(
                f"{side} {walls[side][-1]:6.2f} s (CPU {cpu[side][-1]:.2f} s)" for side in sides
            )
            print(f"- round {number + 1} ({order[0]} first, load average {load:.1f} before it): {shown}")
    row = {"cases": cases, "concurrency": level, "interpreter": str(interpreter), "command_user": user}
    return _Rounds(sides, walls, cpu, requests, row)


def program(work: Path, quick: bool) -> dict[str, Any]:
    """DESIGN section 8: the team's own agent program through the gate (recording proxy, mock MCP
    server, scoring) within 10% of the wall time of the same program talking to the model directly,
    at the same concurrency.

    Both sides run the program with the same interpreter (``_program_interpreter``: the benchmark's
    own where it can), found first on PATH as ``bench-python`` (a link to it), so the suite's command
    finds that very file (else it finds whatever ``python`` PATH holds, e.g. a version manager's shim,
    which costs a shell start per process, or another Python). The gate starts the programs as it
    would here: as users of their own when it runs as root, else under its supervisor (or as
    ``TOOL_EVAL_GATE_COMMAND_USER`` says). A warm-up case goes first (the model server's first
    connection, the page cache), then rounds that alternate which side runs first; the ratio is the
    median of the rounds' ratios."""
    measured = _program_rounds(work, quick, ("direct", "gate"))
    median = measured.ratio("gate")
    walls, cpu, requests = measured.walls, measured.cpu, measured.requests
    row = {
        **measured.row,
        "gate_walls": walls["gate"],
        "direct_walls": walls["direct"],
        "gate_cpu": cpu["gate"],
        "direct_cpu": cpu["direct"],
        "gate_vs_direct": median,
        "gate_requests": requests["gate"],
        "direct_requests": requests["direct"],
    }
    print(
        f"- gate/direct (median of {len(walls['gate'])}) {median:.3f} {ratio(median, 1.10)} | requests per "
        f"run: gate {requests['gate']}, direct {requests['direct']} | every case passed"
    )
    return row


def http_paths(work: Path, quick: bool) -> dict[str, Any]:
    """Why the gate has HTTP code of its own beside the SDK's (issue 37, "built twice"): the program
    measurement of ``program`` with two more gate sides (``GATE_SIDES``), each without one of them:
    every program request through the openai SDK instead of ``gate/providers/upstream_http.py``, and
    the loopback server on ``http.server`` threads instead of ``gate/programs/loopback_http.py``. Each
    is reported against the direct side of the same round (wall ratio, median) and by the CPU it
    spends beyond the direct side's."""
    sides = ("direct", *GATE_SIDES)
    measured = _program_rounds(work, quick, sides)
    row: dict[str, Any] = {**measured.row, "walls": measured.walls, "cpu": measured.cpu}
    for side, what in GATE_SIDES.items():
        row[f"{side}_vs_direct"] = wall = measured.ratio(side)
        row[f"{side}_cpu_over_direct"] = extra = measured.cpu_over_direct(side)
        print(
            f"- {side}/direct {wall:.3f}, CPU over direct {extra:.2f} s "
            f"({measured.requests[side]} requests): {what}"
        )
    return row


REUSE_STARTUP_S = 3.0  # CPU seconds the program spends starting, as LangGraph's import does


def _reuse_side(side: str, directory: Path, env: dict[str, str], cases: int, python: Path) -> Child:
    """One replayed run of the reused program's cases through the gate (``reuse: true``, or ``fresh``:
    a process per trial), or the same cases in one process of the program with no gate (``direct``)."""
    if side == "direct":
        command = [str(python), str(BENCH / "program_direct.py"), str(cases), "--one-process"]
        child = run_child([*command, "--startup", str(REUSE_STARTUP_S)], env=env)
        if child.returncode != 0 or json.loads(child.stdout.strip().splitlines()[-1])["answered"] != cases:
            raise RuntimeError(f"direct run failed: {fail_text(child)}")
        return child
    suite = "reuse.suite.yaml" if side == "gate" else "fresh.suite.yaml"
    results = directory / f"{side}.json"
    args = ["run", str(directory / suite), "--root", str(directory), "--allow-commands", "--replay"]
    child = gate([*args, "--cache", str(directory / "cache"), "--json", str(results)], env, directory)
    if child.returncode != 0 or case_counts(results) != {"passed": cases}:
        raise RuntimeError(f"{side} run failed: {fail_text(child)}")
    return child


def reuse(work: Path, quick: bool) -> dict[str, Any]:
    """DESIGN section 8: in persistent mode (``reuse: true``) a program suite replayed from the cache
    takes at most 1.3x the time of the same cases run in one process without the gate. The program
    (``bench/program_agent.py --startup 3``) spends 3 s of CPU starting, as LangGraph's import does;
    the cache is recorded once first (the model server answers at once), then rounds alternate the
    replayed gate run and the direct one (one process, every case in turn, talking to the model
    itself); the ratio is the median of the rounds'; each round says how many processes the gate
    ran. The same replay with a process per trial (``reuse: false``) is shown beside, once (not with
    ``--quick``: its 15 start-ups cost 45 s of CPU)."""
    sys.path.insert(0, str(ROOT))
    from gate.containment.users import command_user

    cases, rounds = (15, 1) if quick else (15, 5)
    directory = work / "reuse"
    (directory / "bin").mkdir(parents=True, exist_ok=True)
    for path in (work, directory, directory / "bin"):
        path.chmod(0o755)  # where a command's own user runs the program
    with ModelServer(latency=0.0) as server:
        env = gate_env(server)
        del env["CI"]  # in CI a replay-only run of a checkout's program is not verified (DESIGN 6)
        interpreter = _program_interpreter(env)
        os.symlink(interpreter, directory / "bin" / "bench-python")
        env["PATH"] = str(directory / "bin") + os.pathsep + env.get("PATH", "")
        python = directory / "bin" / "bench-python"
        for name, reused in (("reuse", True), ("fresh", False)):
            text = program_suite(cases, "bench-python").replace("name: bench-program", f"name: {name}")
            text = text.replace('program_agent.py"]', f'program_agent.py", "--startup", "{REUSE_STARTUP_S}"]')
            text = text.replace("agent:\n", f"agent:\n  reuse: {json.dumps(reused)}\n")
            (directory / f"{name}.suite.yaml").write_text(text, encoding="utf-8")
        record = ["run", str(directory / "reuse.suite.yaml"), "--root", str(directory), "--allow-commands"]
        child = gate([*record, "--record", "--cache", str(directory / "cache")], env, directory)
        if child.returncode != 0:
            raise RuntimeError(f"recording failed: {fail_text(child)}")
        print(
            f"\n## Reused agent program: {cases} cases replayed from the cache, a {REUSE_STARTUP_S:g} s "
            f"start-up (CPU), {rounds} round(s), as "
            f"{'users of their own' if command_user(env) == 'own' else 'the gate user, under its supervisor'}"
        )
        walls: dict[str, list[float]] = {"gate": [], "direct": []}
        cpus: dict[str, list[float]] = {"gate": [], "direct": []}  # with the program's
        for number in range(rounds):
            order = ("direct", "gate") if number % 2 == 0 else ("gate", "direct")
            said = ""
            for side in order:
                child = _reuse_side(side, directory, env, cases, python)
                walls[side].append(child.wall)
                cpus[side].append(child.cpu)
                said = said or " ".join(line for line in child.stderr.splitlines() if ", reused: " in line)
            print(
                f"- round {number + 1} ({order[0]} first): gate (reuse: true, replayed) "
                f"{walls['gate'][-1]:6.2f} s, one process without the gate {walls['direct'][-1]:6.2f} s, "
                f"gate/direct {walls['gate'][-1] / walls['direct'][-1]:.3f} "
                f"({said.split(', reused: ')[-1]}); CPU with the program's "
                f"{cpus['gate'][-1]:.2f} s / {cpus['direct'][-1]:.2f} s"
            )
        fresh = 0.0 if quick else _reuse_side("fresh", directory, env, cases, python).wall
    ratios = sorted(g / d for g, d in zip(walls["gate"], walls["direct"], strict=True))
    median = ratios[len(ratios) // 2]
    beside = (
        f" | the same replay with a process per trial (reuse: false): {fresh:.2f} s, "
        f"{fresh / walls['direct'][-1]:.2f}x"
        if fresh
        else ""
    )
    print(f"- gate/direct (median of {rounds}) {median:.3f} {ratio(median, 1.30)}{beside}")
    return {
        "cases": cases,
        "gate_walls": walls["gate"],
        "direct_walls": walls["direct"],
        "gate_cpus": cpus["gate"],
        "direct_cpus": cpus["direct"],
        "gate_vs_direct": median,
        "fresh_wall": fresh,
    }


def machine() -> dict[str, str]:
    model = ""
    try:
        text = Path("/proc/cpuinfo").read_text()
        found = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
        model = found.group(1) if found else ""
    except OSError:
        pass
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "nproc": str(os.cpu_count()),
        "cpu": model or platform.processor(),
        "python": platform.python_version(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="short smoke version (CI)")
    parser.add_argument(
        "--only", default=",".join(SECTIONS), help=f"comma-separated sections of {', '.join(SECTIONS)}"
    )
    parser.add_argument("--json", help="also write the measurements to this file")
    parser.add_argument("--keep", action="store_true", help="keep the generated work directory")
    args = parser.parse_args(argv)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(chosen) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    info = machine()
    print(f"# tool-eval-gate benchmark ({'quick' if args.quick else 'full'})")
    print(f"{info['date']}, {info['nproc']} CPUs ({info['cpu']}), Python {info['python']}")
    work = Path(tempfile.mkdtemp(prefix="gate-bench-"))
    results: dict[str, Any] = {"machine": info, "quick": args.quick}
    failed = []
    try:
        for name in chosen:
            try:
                results[name] = globals()[name](work, args.quick)
            except Exception as exc:  # one section failing must not hide the others
                failed.append(name)
                results[name] = {"error": str(exc)}
                print(f"\n## {name}: FAILED: {exc}")
    finally:
        if args.keep:
            print(f"\n(work directory kept: {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
