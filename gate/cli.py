"""Command-line entry point: ``tool-eval-gate <command> ...``.

One module per command under ``gate.commands``, each exposing ``main(argv) -> int``. Commands are
imported lazily so that ``validate`` never pays for the provider SDKs or PyGithub.
"""

from __future__ import annotations

import importlib
import sys

from gate import __version__
from gate.errors import EXIT_INVALID_INPUT, GateError

COMMANDS = {
    "validate": "Validate suite, prompt and tool files (offline, fast).",
    "run": "Run the agent over the suites' cases and gate on the pass rate.",
    "report": "Re-render reports from saved results; merge shards.",
}

USAGE = "usage: tool-eval-gate {validate,run,report} [options]\n\n" + "\n".join(
    f"  {name:<10} {text}" for name, text in COMMANDS.items()
)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if args else EXIT_INVALID_INPUT
    if args[0] == "--version":
        print(f"tool-eval-gate {__version__}")
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"tool-eval-gate: unknown command {name!r}\n\n{USAGE}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    module = importlib.import_module(f"gate.commands.{name}")
    try:
        return int(module.main(rest))
    except GateError as exc:
        print(f"tool-eval-gate {name}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"tool-eval-gate {name}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
