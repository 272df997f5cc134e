"""Command-line entry point: ``tool-eval-gate <command> ...``.

One module per command under ``gate.commands``, each exposing ``main(argv) -> int``. Commands are
imported lazily so that ``validate`` never pays for the provider SDKs or PyGithub.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, TextIO

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
    restore = tolerate_closed_output()
    try:
        return _dispatch(list(sys.argv[1:] if argv is None else argv))
    finally:
        restore()


def _dispatch(args: list[str]) -> int:
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


class _ReaderMayLeave:
    """A standard stream whose reader may go away before the command ends (``tool-eval-gate --help |
    head -1``, ``run ... | head`` in a CI step): from then on what is written to it goes nowhere, and
    the command goes on to its own end and exit code (a run still writes its reports and gates)."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._discard()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._discard()

    def _discard(self) -> None:
        """Point the stream's descriptor at the null device: what it still buffers, and everything
        written later, is dropped there (the interpreter's last flush at exit included)."""
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, self._stream.fileno())
            finally:
                os.close(null)
        except (OSError, ValueError, AttributeError):  # not a stream with a descriptor
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def tolerate_closed_output() -> Callable[[], None]:
    """Put stdout and stderr behind ``_ReaderMayLeave`` while a command runs. Returns the function that
    flushes them (a reader gone by then is found here, not by the interpreter at exit, where it
    would print a traceback) and restores the original streams."""
    saved = sys.stdout, sys.stderr
    guarded = _ReaderMayLeave(saved[0]), _ReaderMayLeave(saved[1])
    sys.stdout, sys.stderr = guarded

    def restore() -> None:
        for stream in guarded:
            stream.flush()
        sys.stdout, sys.stderr = saved

    return restore


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
