"""Command-line entry point: ``tool-eval-gate <command> ...``.

One module per command under ``gate.commands``, each exposing ``main(argv) -> int``. Commands are
imported lazily so that ``validate`` never pays for the provider SDKs or PyGithub.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping

from gate import __version__
from gate.errors import EXIT_INCOMPLETE, EXIT_INVALID_INPUT, GateError, InputError

COMMANDS = {
    "validate": "Validate suite, prompt and tool files (offline, fast).",
    "run": "Run the agent over the suites' cases and gate on the pass rate.",
    "report": "Re-render reports from saved results; merge shards.",
    "init": "Start the gate in a repository: a starter suite from your tool file, the workflow, pre-commit.",
}

USAGE = "usage: tool-eval-gate {validate,run,report,init} [options]\n\n" + "\n".join(
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
    tolerate_unencodable_output()
    # validate reads no keys: it masks only credential shapes, and neutralises workflow commands too
    restore = redact_stdio(os.environ if name != "validate" else {})
    try:
        return int(module.main(rest))
    except InputError as exc:
        for problem in exc.problems:  # a located one with its location first on its line
            text = problem.render().removeprefix("<input>: ")
            located = problem.path or text.startswith("usage: ")
            print(text if located else f"tool-eval-gate {name}: {text}", file=sys.stderr)
        return exc.exit_code
    except GateError as exc:
        print(f"tool-eval-gate {name}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"tool-eval-gate {name}: interrupted", file=sys.stderr)
        return EXIT_INCOMPLETE  # the contract's "could not be completed", as run's own handler returns
    finally:
        restore()


def tolerate_unencodable_output() -> None:
    """Model text can hold what the console cannot encode (a lone surrogate, or any non-ASCII
    character on an ASCII console): print it as an escape instead of failing after the run."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a stream that cannot change its error handler
                pass


def redact_stdio(env: Mapping[str, str]) -> Callable[[], None]:
    """Route stdout and stderr through a redactor while a command runs, so that nothing it prints
    (progress, summary, error messages, warnings) can show a key from ``env`` or be read as a
    workflow command. Returns the function that flushes and restores the original streams."""
    from gate.util.redact import RedactingStream, Redactor

    redactor = Redactor.from_env(env)
    saved = sys.stdout, sys.stderr
    sys.stdout = RedactingStream(saved[0], redactor)
    sys.stderr = RedactingStream(saved[1], redactor)

    def restore() -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stderr = saved

    return restore


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
