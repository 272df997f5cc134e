"""Re-record the bundled examples' cassettes (``examples/cassettes/``) against the scripted test model.

The examples run offline from these recorded responses (``tool-eval-gate run examples --replay
--cache examples/cassettes``). They were NOT recorded from a real provider: each example's model (and
its judge) is played by the project's scripted OpenAI/Anthropic-compatible test server
(``tests/support/model_server.py``) with the rules in ``examples/scripted/<example>.yaml``, on
127.0.0.1. The agent programs of ``examples/python-agent`` and ``examples/js-agent`` run for real
(``--allow-commands``); their model requests go through the gate's recording proxy to the same
scripted server. To record your own suites against a real provider, run
``tool-eval-gate run PATH --record --cache DIR`` with your API key instead.

    python examples/record.py               # every example, the cassettes written afresh
    python examples/record.py js-agent      # only these examples (the others' cassettes stay)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.model_server import Script, ScriptedModelServer  # noqa: E402

EXAMPLES = ("weather", "banking", "airline", "mcp_weather", "python-agent", "js-agent")
CASSETTES = ROOT / "examples" / "cassettes"


def main(argv: list[str]) -> int:
    names = argv or list(EXAMPLES)
    unknown = sorted(set(names) - set(EXAMPLES))
    if unknown:
        print(f"unknown example(s): {', '.join(unknown)} (one of: {', '.join(EXAMPLES)})", file=sys.stderr)
        return 2
    if not argv:
        shutil.rmtree(CASSETTES, ignore_errors=True)
    worst = 0
    for name in names:
        script = Script.load(str(ROOT / "examples" / "scripted" / f"{name}.yaml"))
        with ScriptedModelServer(script) as server:
            env = dict(
                os.environ,
                OPENAI_BASE_URL=server.openai_base_url,
                ANTHROPIC_BASE_URL=server.anthropic_base_url,
                OPENAI_API_KEY="scripted-test-model",
                ANTHROPIC_API_KEY="scripted-test-model",
            )
            command = [
                sys.executable,
                "-m",
                "gate",
                "run",
                f"examples/{name}",
                "--record",
                "--cache",
                str(CASSETTES.relative_to(ROOT)),
                "--allow-commands",
                "--quiet",
                "--allow-commands",  # the MCP example starts its server (python3 on PATH needs the mcp extra)
            ]
            code = subprocess.call(command, cwd=ROOT, env=env)
            print(f"{name}: exit {code}, {server.request_count} model requests recorded")
            worst = max(worst, code)
    return worst


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
