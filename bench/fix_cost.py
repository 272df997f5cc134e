"""What a verified fix costs (DESIGN.md section 8, section 11): the requests ``run --suggest-fixes``
spends to suggest a rewording it verified, against re-running the whole suite once per candidate (what
a team does by hand: push a wording, let CI run the suite, read the verdict, try the next).

    python bench/fix_cost.py            # 3 failing cases, 50 passing, 5 trials each
    python bench/fix_cost.py --quick    # 3 failing, 12 passing

The workload is the degraded-description scenario of the end-to-end test
(``tests/end_to_end/test_verified_fixes.py``, whose scripted model it uses) at a realistic size: a pull
request shortens ``get_forecast``'s description, so the model calls ``get_weather`` for the questions
about tomorrow (the failing cases); the fix model proposes three wordings in this order: one that
changes nothing the model reads differently (it fixes nothing), one that fixes the failing cases but
draws the "right now" questions to ``get_forecast`` (it breaks passing cases), and one that fixes them
and breaks nothing. The scripted model server answers on loopback (requests are counted by the
server, not by the gate). Each way is run on a cold cache:

- the gate: one run with ``--suggest-fixes``; its search's requests (``fixes.requests`` of the
  results, counted apart from the run's; the server's count minus the run's own);
- by hand: for each candidate up to the verified one, the whole suite run with that wording on disk,
  every trial (``--trials-policy full``), and again with the default curtailed trials.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gate.commands.run import main as run_main  # noqa: E402
from tests.end_to_end.test_baseline_auto import git, tools  # noqa: E402
from tests.end_to_end.test_verified_fixes import (  # noqa: E402
    BREAKING,
    DEGRADED,
    FIX_MODEL_RULE,
    FIXING,
    GOOD,
    SCRIPT,
)
from tests.support.model_server import ScriptedModelServer  # noqa: E402

CANDIDATES = (
    "Forecast data for a city.",  # the model reads nothing new in it: fixes nothing
    BREAKING,  # fixes "tomorrow", draws the "right now" cases to get_forecast
    FIXING,
)
TRIALS = 5


def script() -> dict[str, Any]:
    """The end-to-end test's scripted model, its fix model proposing ``CANDIDATES``."""
    proposal = {
        **FIX_MODEL_RULE,
        "tool_calls": [{"arguments": {"candidates": [{"text": t} for t in CANDIDATES]}}],
    }
    return {**SCRIPT, "rules": [proposal, *SCRIPT["rules"][1:]]}


def suite(failing: int, now: int, hello: int) -> str:
    cases = [
        f"  - id: tomorrow-{i}\n    input: Do I need sunglasses tomorrow (question {i})?\n"
        "    expect: {calls: [{tool: get_forecast}]}\n"
        for i in range(failing)
    ]
    cases += [
        f"  - id: now-{i}\n    input: What's the weather right now (question {i})?\n"
        "    expect: {calls: [{tool: get_weather}]}\n"
        for i in range(now)
    ]
    cases += [
        f"  - id: hello-{i}\n    input: Hello there ({i})\n    expect: {{no_calls: true}}\n"
        for i in range(hello)
    ]
    return (
        "version: 1\nname: weather\nagent:\n  provider: openai\n  model: test-model\n"
        "  tools: [{file: tools/weather.json}]\njudge: {provider: openai, model: judge-model}\n"
        "mocks:\n  tools:\n    get_weather: [{returns: {temp_c: 18}}]\n"
        "    get_forecast: [{returns: {sky: sunny}}]\n"
        f"defaults: {{trials: {TRIALS}}}\ncases:\n" + "".join(cases)
    )


def gate(repo: Path, server: ScriptedModelServer, *args: str) -> dict[str, Any]:
    """One ``run`` in ``repo`` (quiet, its output swallowed): its results, and the requests it sent."""
    before = server.request_count
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = run_main(["--quiet", "--json", "out/r.json", "--concurrency", "8", *args])
    finally:
        os.chdir(cwd)
    results = json.loads((repo / "out/r.json").read_text())
    return {"exit": code, "results": results, "requests": server.request_count - before}


def measure(work: Path, failing: int, now: int, hello: int) -> dict[str, Any]:
    repo = work / "repo"
    (repo / "tools").mkdir(parents=True)
    (repo / ".gitignore").write_text(".tool-eval-gate/\nout/\n")
    (repo / "tools/weather.json").write_text(tools(GOOD))
    (repo / "weather.suite.yaml").write_text(suite(failing, now, hello))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "pr")
    (repo / "tools/weather.json").write_text(tools(DEGRADED))
    git(repo, "commit", "-qam", "degrade")
    out: dict[str, Any] = {"workload": f"{failing} failing + {now + hello} passing cases x {TRIALS} trials"}
    with ScriptedModelServer(script()) as server:
        os.environ.update(OPENAI_BASE_URL=server.openai_base_url, OPENAI_API_KEY="sk-bench")
        run = gate(repo, server, "--suggest-fixes", "--cache", str(work / "cache-gate"))
        fixes = run["results"]["fixes"]
        [definition] = fixes["definitions"]
        verified = next(c for c in definition["candidates"] if c["status"] == "verified")
        out["gate"] = {
            "search_requests": fixes["requests"],
            "run_requests": run["results"]["settings"]["requests"],
            "candidates": [(c["number"], c["status"], c["requests"]) for c in definition["candidates"]],
            "verified": verified["number"],
        }
        for policy in ("full", "curtailed"):
            total = 0
            for number, text in enumerate(CANDIDATES[: verified["number"]], 1):
                (repo / "tools/weather.json").write_text(tools(text))
                total += gate(
                    repo, server, "--trials-policy", policy, "--cache", str(work / f"cache-{policy}-{number}")
                )["requests"]
            out[f"by_hand_{policy}"] = total
        (repo / "tools/weather.json").write_text(tools(DEGRADED))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="12 passing cases instead of 50")
    args = parser.parse_args(argv)
    failing, now, hello = (3, 8, 4) if args.quick else (3, 40, 10)
    with tempfile.TemporaryDirectory() as directory:
        result = measure(Path(directory), failing, now, hello)
    gate_requests = result["gate"]["search_requests"]
    print(f"## What a verified fix costs: {result['workload']}")
    print(f"- the gate's search: {gate_requests} requests (the run itself: {result['gate']['run_requests']})")
    for number, status, requests in result["gate"]["candidates"]:
        print(f"  - candidate {number}: {status}, {requests} requests")
    for policy in ("full", "curtailed"):
        by_hand, tried = result[f"by_hand_{policy}"], result["gate"]["verified"]
        print(
            f"- the whole suite re-run per candidate ({policy} trials), candidates 1-{tried}: "
            f"{by_hand} requests; gate/by hand = {gate_requests / by_hand:.3f}"
        )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
