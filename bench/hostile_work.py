"""The hostile benchmark's unbounded-work classes (issue 35): what a hostile input can make the gate
do must stay bounded and grow with the input, not with a product of its parts.

- **Watch globs**: twelve ``**`` segments against a changed path 24 levels deep (a regex translation
  backtracked for hours), and a segment of twenty ``*`` against a long name that almost matches.
- **The recording proxy's memory**: a program posts bodies to the proxy; the gate's own peak memory
  (VmHWM of the gate process, not of its children) for a body dense in objects, which is refused, and
  for the largest bodies it accepts, against a run whose program posts a tiny one.
- **Tools defined in code**: placing the tools an MCP server lists in a repository of generated
  source files, 1 tool and 400 tools: the time should grow with the repository, not with tools x
  files (each description read every file word by word before).

Run by ``bench/run.py --only hostile``; each function prints its lines and returns its figures.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The program a suite runs: one request of the shape BODY names, then its answer.
PROGRAM = """\
import json, os, sys, urllib.request
url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
headers = {"content-type": "application/json", "authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}
shape, size = os.environ["BODY"].split(":")
size = int(float(size) * 1e6)
if shape in ("objects", "braces"):  # empty messages, or {}: as many objects as the bytes allow
    one = {"role": "user", "content": ""} if shape == "objects" else {}
    messages = [one] * (size // (len(json.dumps(one)) + 2))
elif shape == "dense":    # just under the bound of objects, the rest of the bytes text
    messages = [{"role": "user", "content": ""}] * 99_000
    messages.append({"role": "user", "content": "x" * (size - 3_000_000)})
else:                     # text: a few long messages
    messages = [{"role": "user", "content": "lorem ipsum " * (size // 120)} for _ in range(10)]
for line in sys.stdin:
    body = json.dumps({"model": "gpt-4o-mini", "messages": messages}).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, body, headers), timeout=300) as reply:
            reply.read()
        said = "accepted"
    except Exception as exc:
        said = "refused: " + str(getattr(exc, "code", exc))
    print(json.dumps({"content": said}), flush=True)
"""

PEAK = (
    "import os, sys\n"
    "from gate.cli import main\n"
    "try:\n"
    "    code = main(sys.argv[1:])\n"
    "finally:\n"
    "    with open('/proc/self/status') as status, open(os.environ['PEAK_FILE'], 'w') as peak:\n"
    "        peak.write(next(l.split()[1] for l in status if l.startswith('VmHWM:')))\n"
    "raise SystemExit(code)\n"
)


def globs() -> dict[str, Any]:
    """Bounded glob matching: the worst patterns of the class, each timed."""
    from gate.util.globs import matches

    deep = "/".join(["d"] * 24) + "/x.py"
    cases = {
        "12 ** segments, 24-deep path (no match)": ("/".join(["**"] * 12) + "/*.ts", deep),
        "12 ** segments, 24-deep path (match)": ("/".join(["**"] * 12) + "/*.py", deep),
        "20 * in a segment, 200-character name": ("*a" * 20 + "b", "a" * 200),
        "40 **/ then a class, 24-deep path": ("**/" * 40 + "[!d]*/**/y", deep),
    }
    figures: dict[str, float] = {}
    for label, (pattern, path) in cases.items():
        started = time.perf_counter()
        for _ in range(10):
            matches(pattern, path)
        figures[label] = (time.perf_counter() - started) / 10
        print(f"- glob, {label}: {figures[label] * 1000:.2f} ms")
    return {"glob_worst_ms": max(figures.values()) * 1000}


def _source_repository(files: int) -> dict[str, str]:
    """Generated Python modules, each with a few functions and docstrings (about 4 kB each)."""
    texts = {}
    for n in range(files):
        body = [f'"""Module {n}: helpers for the ledger, part {n}."""', ""]
        for k in range(8):
            body += [
                f"def helper_{n}_{k}(record, amount):",
                f'    """Adjust record {k} of part {n} by the amount, then store it in the ledger."""',
                "    return record, amount",
                "",
            ]
        texts[f"src/pkg{n % 50}/module_{n}.py"] = "\n".join(body) * 3
    return texts


def tool_sources(quick: bool) -> dict[str, Any]:
    """Placing 1 and 400 listed tools in the same repository; the 400 tools' descriptions are written
    in the server's file (found) or nowhere (looked for everywhere)."""
    from gate.assembly.tool_sources import place_tools
    from gate.suite.model import Source, ToolDef

    files = 500 if quick else 2000
    texts = _source_repository(files)
    server = []
    tools = []
    for t in range(400):
        description = f"Look up the balance of account {t} and say whether the ledger holds it."
        if t % 2:
            description = f"Nothing like this is written anywhere: token {t} zeta."
        else:
            server += [f"@app.tool()\ndef tool_{t}(account: str):", f'    """{description}"""', ""]
        parameters = {
            "type": "object",
            "properties": {"account": {"type": "string", "description": "The account id."}},
        }
        tools.append(ToolDef(f"tool_{t}", description, parameters, Source("")))
    texts["server/main.py"] = "\n".join(server)
    size = sum(map(len, texts.values())) / 1e6
    fallback = Source("s.suite.yaml", 7, 9)
    timing: dict[int, float] = {}
    for count in (1, 400):
        started = time.process_time()
        placed = place_tools(tools[:count], texts, ["server/main.py"], fallback)
        timing[count] = time.process_time() - started
        found = sum(1 for tool in placed if tool.source.path == "server/main.py")
        print(
            f"- {count} listed tool(s) placed in {files + 1} files ({size:.1f} MB): {timing[count]:.2f} s "
            f"CPU ({found} found in the server's file)"
        )
    growth = timing[400] / max(timing[1], 1e-3)
    print(f"- 400 tools cost {growth:.1f}x one tool (tools x files would be 400x)")
    return {"source_files": files + 1, "source_mb": size, "tools_1_s": timing[1], "tools_400_s": timing[400]}


def proxy_memory(
    work: Path, env: dict[str, str], gate_args: Callable[[list[str]], list[str]], interpreter: Path
) -> dict[str, Any]:
    """The gate's own peak memory while its proxy receives one body of each shape (the answer stored
    in a response cache of its own, as a CI run stores it). The suite's ``python3`` is ``interpreter``
    (one the program's own user can run where the gate runs as root)."""
    import subprocess

    work.mkdir(parents=True, exist_ok=True)
    for directory in (work.parent, work):  # where the gate, as root, runs the program as its own user
        directory.chmod(0o755)
    (work / ".git").mkdir(exist_ok=True)
    (work / "program.py").write_text(PROGRAM, encoding="utf-8")
    (work / "p.suite.yaml").write_text(
        "version: 1\nname: p\nagent:\n  command: [python3, program.py]\n"
        "  tools: [{name: t, description: d}]\ncases: [{id: a, input: hi}]\n",
        encoding="utf-8",
    )
    (work / "bin").mkdir(exist_ok=True)
    (work / "bin").chmod(0o755)
    if not (work / "bin" / "python3").is_symlink():
        (work / "bin" / "python3").symlink_to(interpreter)
    path = str(work / "bin") + os.pathsep + env.get("PATH", "")
    shapes = {
        "tiny": "text:0.001",
        "5 MB of {}": "braces:5",
        "5 MB of empty messages": "objects:5",
        "10 MB of empty messages": "objects:10",
        "30 MB of text": "text:30",
        "99,000 objects and 30 MB of text": "dense:30",
    }
    peaks: dict[str, tuple[float, str]] = {}
    for label, body in shapes.items():
        peak_file = work / "peak"
        results = work / "r.json"
        stored = ["--json", str(results), "--cache", str(work / f"cache-{len(peaks)}")]  # the answer stored
        ran = subprocess.run(
            [
                sys.executable,
                "-c",
                PEAK,
                *gate_args(["run", "p.suite.yaml", "--allow-commands", *stored]),
            ],
            cwd=work,
            env=dict(env, BODY=body, PEAK_FILE=str(peak_file), PATH=path),
            capture_output=True,
            timeout=600,
        )
        if not results.exists():  # the run stopped before its results: say why
            raise RuntimeError(f"the gate wrote no results for {label}: {ran.stderr.decode()[-2000:]}")
        said = json.loads(results.read_text())["suites"][0]["cases"][0]["trials"][0]["record"]["output"]
        peaks[label] = (int(peak_file.read_text()) / 1024, said)
    tiny = peaks["tiny"][0]
    figures: dict[str, Any] = {"tiny_mb": tiny}
    for label, (peak, said) in peaks.items():
        if label == "tiny":
            continue
        size = float(shapes[label].split(":")[1])
        print(
            f"- a program posts {label}: {said}; the gate's peak {peak:.0f} MB, {peak - tiny:.0f} MB above "
            f"a tiny body's ({(peak - tiny) / size:.1f} MB per MB of body)"
        )
        figures[label] = {"peak_mb": peak, "per_mb": (peak - tiny) / size, "said": said}
    return figures
