"""Scoring + trial reduction alone, measured carefully: CPU time (``time.process_time``) of scoring
every trial of the ``score_bench`` workload and reducing it to case results, repeated and reported
as the median, with the cyclic garbage collector as the product runs it (on) and paused.

    python bench/score_profile.py --cases 10000 --repeat 5
    python bench/score_profile.py --cases 10000 --profile   # cProfile of one pass, top 25 by tottime
    python bench/score_profile.py --cases 10000 --digest    # a digest of every scored result, to
                                                          # compare two versions of the code

The inputs (suites and run records) are built once and stay alive during the timed passes, as they
do in a real run; each pass's results are dropped before the next. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))

from score_bench import record_for  # noqa: E402
from workload import Workload, write_suites  # noqa: E402


def build_inputs(cases: int, suites: int, root: Path) -> list:
    from gate.files.suite_loader import load_suites

    workload = Workload(suites, cases // suites, 1)
    write_suites(root / "suites", workload)
    loaded = load_suites([root / "suites"], root=root)
    if loaded.problems:
        raise SystemExit("\n".join(p.render() for p in loaded.problems))
    return [
        (suite, case, record_for(int(case.id[1:]), suite.agent.model))
        for suite in loaded.suites
        for case in suite.cases
    ]


def score_all(inputs: list) -> list:
    from gate.scoring.reducers import case_result
    from gate.scoring.trial import score_trial

    return [
        case_result(suite, case, (score_trial(suite, case, record, 0, {}),)) for suite, case, record in inputs
    ]


def timed(inputs: list, repeat: int, collector: bool) -> list[float]:
    times = []
    for _ in range(repeat):
        gc.collect()
        if collector:
            gc.enable()
        else:
            gc.disable()
        started = time.process_time()
        results = score_all(inputs)
        times.append(time.process_time() - started)
        gc.enable()
        del results
    return times


def digest(results: list) -> str:
    """A hash of every case result as the results file holds it (statuses, failures with messages,
    checks, metrics, and each trial's record), so two versions of the code that hold the same results
    in different Python objects agree."""
    from gate.results_json.codec import _case, _Offered

    h = hashlib.sha256()
    for result in results:
        h.update(json.dumps(_case(result, {}, _Offered()), sort_keys=True, default=repr).encode())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--suites", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--digest", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        inputs = build_inputs(args.cases, args.suites, Path(tmp))
    score_all(inputs[:200])  # warm caches and imports, as the first cases of a run would
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        score_all(inputs)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return 0
    report: dict = {"cases": len(inputs)}
    if args.digest:
        report["digest"] = digest(score_all(inputs))
    with_gc = timed(inputs, args.repeat, collector=True)
    without_gc = timed(inputs, args.repeat, collector=False)
    report.update(
        {
            "repeat": args.repeat,
            "cpu_seconds_median": round(statistics.median(with_gc), 3),
            "cpu_seconds_min": round(min(with_gc), 3),
            "cpu_seconds_median_gc_paused": round(statistics.median(without_gc), 3),
            "cpu_seconds_min_gc_paused": round(min(without_gc), 3),
        }
    )
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
