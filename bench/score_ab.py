"""A/B of scoring + reduction CPU time between two checkouts, alternating runs so that the load of a
shared machine hits both alike.

    git archive <REF> | tar -x -C /tmp/before          # the code to compare against
    python bench/score_ab.py /tmp/before . --rounds 5 --cases 10000

Each round runs each tree's own ``bench/score_profile.py`` (copied from this checkout into a tree
that lacks it), which imports ``gate`` from that tree (A then B, then B then A in the next round); prints
per tree the median over rounds of each figure, and whether the digests of the scored results agree.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

PROFILE = Path(__file__).resolve().parent / "score_profile.py"
FIGURES = (
    "cpu_seconds_median",
    "cpu_seconds_min",
    "cpu_seconds_median_gc_paused",
    "cpu_seconds_min_gc_paused",
)


def run(tree: Path, cases: int, repeat: int, digest: bool) -> dict:
    script = tree / "bench" / "score_profile.py"
    if not script.exists():  # an older tree: bring this measurement script along
        shutil.copy(PROFILE, script)
    argv = [sys.executable, str(script), "--cases", str(cases), "--repeat", str(repeat)]
    if digest:
        argv.append("--digest")
    out = subprocess.run(argv, check=True, capture_output=True, text=True, cwd=tree).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    results: dict[str, list[dict]] = {"a": [], "b": []}
    for round_ in range(args.rounds):
        order = ("a", "b") if round_ % 2 == 0 else ("b", "a")
        for name in order:
            tree = args.a if name == "a" else args.b
            results[name].append(run(tree, args.cases, args.repeat, digest=round_ == 0))
    summary = {
        name: {figure: round(statistics.median(r[figure] for r in runs), 3) for figure in FIGURES}
        for name, runs in results.items()
    }
    summary["same_digest"] = results["a"][0]["digest"] == results["b"][0]["digest"]
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
