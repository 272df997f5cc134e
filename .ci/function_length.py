"""Function length check: no function in ``gate/`` longer than ``LIMIT`` lines without a written reason.

A function (or method) whose span, from ``def`` to its last line, exceeds the limit must carry a comment
line starting ``# long:`` directly above its ``def`` (or above its decorators) saying why it stays whole.
Run from the repository root: ``python .ci/function_length.py``; exit 1 lists the offenders.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

LIMIT = 80
MARK = "# long:"


def _has_reason(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    above = first - 2  # 0-based index of the line above
    while above >= 0 and lines[above].strip().startswith("#"):
        if lines[above].strip().startswith(MARK) and len(lines[above].strip()) > len(MARK) + 3:
            return True
        above -= 1
    return False


def offenders(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > LIMIT and not _has_reason(lines, node):
                found.append(f"{path}:{node.lineno}: {node.name} is {length} lines (limit {LIMIT})")
    return found


def main() -> int:
    found = offenders(Path("gate"))
    for line in found:
        print(line)
    if found:
        print(
            f"{len(found)} function(s) over {LIMIT} lines: split them by phase, or write why one stays "
            f"whole in a '{MARK} ...' comment directly above its def."
        )
        return 1
    print(f"function length: every function in gate/ is at most {LIMIT} lines or says why")
    return 0


if __name__ == "__main__":
    sys.exit(main())
