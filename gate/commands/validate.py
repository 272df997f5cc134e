"""``tool-eval-gate validate [PATH ...]``: offline, fast checking of suite, prompt, tool and mock files.

Prints every problem of every file as ``path:line:column: message (fix: hint)`` to stderr, sorted by
file and line, then a one-line summary. Exit 0 when everything is valid, 2 otherwise. Never imports
the provider SDKs or PyGithub (the pre-commit hook runs this on every commit).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gate.commands.arguments import Parser, nonempty
from gate.errors import EXIT_INVALID_INPUT, EXIT_PASSED, InputError, Problem
from gate.util.wording import plural


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tool-eval-gate validate",
        description="Validate suite files and the prompt, tool and mock files they use (offline).",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="suite files, directories (searched for *.suite.yaml), or prompt/tool/mock files "
        "(then the suites using them are checked); default: the repository root",
    )
    parser.add_argument(
        "--root", type=nonempty, metavar="DIR", help="repository root (default: nearest directory with .git)"
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="print problems only, no summary line")
    parser.add_argument(
        "--skip-unreferenced",
        action="store_true",
        help="pass over files that are neither suites nor referenced by one (the pre-commit hook hands "
        "over every staged file; only suites and the files they use are checked)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)  # a usage error is an InputError (exit 2), located at its option

    from gate.files.suite_loader import default_root, load_suites

    if args.root:
        root = Path(args.root)
        if not root.is_dir():
            raise InputError([Problem("--root", 0, 0, f"{args.root}: not a directory")])
    else:
        root = default_root(args.paths)
    paths = args.paths or [root]
    result = load_suites(paths, root=root, skip_unreferenced=args.skip_unreferenced)

    problems = sorted(result.problems, key=lambda p: (p.path, p.line, p.column, p.message))
    out = sys.stderr
    for problem in problems:
        print(problem.render(), file=out)
    if not args.quiet:
        for note in result.notes:  # e.g. tools that come from an MCP server validate does not start
            print(note)
    if not args.quiet:
        if problems:
            files = len({p.path for p in problems})
            print(f"{plural(len(problems), 'problem')} in {plural(files, 'file')}", file=out)
        else:
            suite_count = len(result.suites)
            cases = sum(len(s.cases) for s in result.suites)
            if suite_count:
                print(f"{plural(suite_count, 'suite file')}, {plural(cases, 'case')}: OK")
            elif args.skip_unreferenced:
                print("no suite, and no file a suite uses, among these files: nothing to check")
            elif result.checked_files:
                print(f"no suite uses them; {plural(len(result.checked_files), 'file')} checked alone: OK")
    if not problems and not result.suites and not result.checked_files and not args.skip_unreferenced:
        # A typo'd directory must not pass CI silently: validating nothing is an input error.
        where = ", ".join(args.paths) if args.paths else str(root)
        print(f"tool-eval-gate validate: no suite files (*.suite.yaml) found in {where}", file=out)
        return EXIT_INVALID_INPUT
    return EXIT_INVALID_INPUT if problems else EXIT_PASSED
