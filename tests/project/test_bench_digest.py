"""bench/score_profile.py's digest is how a change to scoring shows it scores the same (bench/score_ab.py
compares two checkouts' digests): it reads the results codec's own per-case form, so a change to that
codec must keep it working."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def digest(cases: int) -> str:
    argv = [sys.executable, "bench/score_profile.py", "--cases", str(cases), "--repeat", "1", "--digest"]
    out = subprocess.run(argv, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return str(json.loads(out.strip().splitlines()[-1])["digest"])


def test_the_scoring_digest_is_computed_and_depends_on_the_results() -> None:
    first = digest(40)
    assert len(first) == 64 and int(first, 16) >= 0
    assert digest(40) == first  # the same workload scores the same
    assert digest(80) != first  # more cases are other results
