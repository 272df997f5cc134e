"""Nothing an MCP server starts outlives it (issue 35, class 5; DESIGN section 10, "Contained"): a
server that leaves a process in a process group and session of its own, no longer its child (a double
fork with ``setsid``, as a server that daemonizes a backend does). The server that lists the tools
ends before the first trial, with what it left; each trial's ``calls: live`` server ends with its
trial, before the next trial starts its own; nothing is left when the run ends. Both ways commands
run: as a user of their own (the gate runs as root) and as the gate's user (under the supervisor).

Each server, as it starts, looks for the processes the servers before it left (their pids, written in
a shared directory) and writes down any it finds alive, so what outlived its listing or its trial is
seen from the next server, not only at the end of the run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gate.containment.users import COMMAND_USER_VARIABLE
from tests.support.model_server import ScriptedModelServer
from tests.support.users import as_root, reachable_python

ROOT = Path(__file__).resolve().parents[2]
MARK = "tool-eval-gate-test-child"

SERVER = r'''
"""An MCP server (tests/support/mcp_stdio_server.py) that first leaves a process of its own group."""
import os, runpy, sys, time

BOOK = os.environ["CHILDREN_BOOK"]
for name in sorted(os.listdir(BOOK)):
    if name.endswith(".pid"):
        pid = int(open(os.path.join(BOOK, name)).read())
        try:
            alive = b"MARK" in open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            alive = False
        if alive:
            with open(os.path.join(BOOK, f"alive-{name}-seen-by-{os.getpid()}"), "w") as handle:
                handle.write(str(pid))
reader, writer = os.pipe()
if os.fork() == 0:  # a grandchild in a session (and process group) of its own, its parent gone:
    os.setsid()     # no longer a child of the server, found by no walk of the server's children
    if os.fork() == 0:
        os.write(writer, str(os.getpid()).encode())
        for fd in (0, 1, 2):
            os.close(fd)
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", "MARK"])
    os._exit(0)
os.wait()
pid = os.read(reader, 32).decode()
with open(os.path.join(BOOK, f"{time.monotonic_ns()}-{os.getpid()}.pid"), "w") as handle:
    handle.write(pid)
here = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(here, "mcp_server.py"), run_name="__main__")
'''.replace("MARK", MARK)

SUITE = """\
version: 1
name: children
agent:
  provider: openai
  model: gpt-4o-mini
  tools:
    - mcp: {command: [children-python, server/server.py], calls: live}
cases:
"""
SCRIPT = {
    "rules": [
        {"when": {"after_tool": "get_weather"}, "text": "Done."},
        {
            "when": {"last_user": "weather in (?P<city>[A-Za-z]+)"},
            "tool_calls": [{"name": "get_weather", "arguments": {"city": "{city}"}}],
        },
    ]
}
CITIES = ("Paris", "Rome", "Oslo")


def _marked() -> list[int]:
    """Processes running a child of a test server (found by its command line)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if MARK.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                found.append(int(name))
        except (OSError, ValueError):
            continue
    return found


@pytest.fixture(params=[True, False], ids=["root: a user of its own", "the gate's user"])
def run(request: pytest.FixtureRequest) -> Iterator[tuple[subprocess.CompletedProcess[str], Path]]:
    own_user = request.param
    if own_user and os.geteuid() != 0 and shutil.which("sudo") is None:
        pytest.fail("a user of its own needs root (or sudo -n)")
    server = ScriptedModelServer(SCRIPT, 0.0, ())
    server.start()
    top = Path(tempfile.mkdtemp(prefix="tool-eval-gate-children-"))
    os.chmod(top, 0o755)
    try:
        repo = top / "repo"
        (repo / "server").mkdir(parents=True)
        (repo / "server" / "server.py").write_text(SERVER)
        shutil.copy(ROOT / "tests" / "support" / "mcp_stdio_server.py", repo / "server" / "mcp_server.py")
        cases = "".join(
            f"  - {{id: c{n}, input: What is the weather in {city}?, "
            f"expect: {{calls: [{{tool: get_weather, args: {{city: {city}}}}}]}}}}\n"
            for n, city in enumerate(CITIES)
        )
        (repo / "children.suite.yaml").write_text(SUITE + cases)
        (repo / ".git").mkdir()
        for name in ("bin", "book"):
            (top / name).mkdir()
        os.chmod(top / "book", 0o1777)
        os.symlink(reachable_python(), top / "bin" / "children-python")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GITHUB_"))}
        env.pop(COMMAND_USER_VARIABLE, None)
        if not own_user:
            env[COMMAND_USER_VARIABLE] = "gate"
        env.update(
            PATH=f"{top / 'bin'}{os.pathsep}{env.get('PATH', os.defpath)}",
            PYTHONPATH=str(ROOT),
            OPENAI_BASE_URL=server.openai_base_url,
            OPENAI_API_KEY="sk-children-test",
            CHILDREN_BOOK=str(top / "book"),
        )
        results = top / "results.json"
        command = [
            sys.executable, "-m", "gate", "run", "--root", str(repo), "--allow-commands", "--quiet",
            "--concurrency", "1", "--json", str(results), str(repo / "children.suite.yaml"),
        ]  # fmt: skip
        done = subprocess.run(as_root(command, env) if own_user else command, env=env, cwd=top,
                              capture_output=True, text=True, timeout=240)  # fmt: skip
        yield done, top
    finally:
        server.stop()
        for pid in _marked():
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        shutil.rmtree(top, ignore_errors=True)


def test_a_servers_child_in_a_group_of_its_own_ends_with_its_listing_and_with_each_trial(run) -> None:
    done, top = run
    assert done.returncode == 0, done.stdout + done.stderr  # every live call answered
    book = top / "book"
    started = sorted(p for p in os.listdir(book) if p.endswith(".pid"))
    assert len(started) == 1 + len(CITIES)  # the listing's server, then one per trial
    outlived = sorted(p for p in os.listdir(book) if p.startswith("alive-"))
    assert outlived == [], "a server's child was alive when the next server started: " + ", ".join(outlived)
    deadline = time.monotonic() + 5
    while _marked() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked() == [], "a server's child outlived the run"
