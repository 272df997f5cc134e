"""The one error base class of the project and the located error used for every file problem."""

from __future__ import annotations

from dataclasses import dataclass

# Exit codes of the CLI contract (DESIGN.md section 4).
EXIT_PASSED = 0
EXIT_GATE_FAILED = 1
EXIT_INVALID_INPUT = 2
EXIT_INCOMPLETE = 3


class GateError(Exception):
    """Base of every expected error. The CLI prints it and exits with ``exit_code``, never a traceback."""

    exit_code = EXIT_INCOMPLETE


class InputError(GateError):
    """Invalid input: usage, or suite/tool files that fail validation. Carries every problem found."""

    exit_code = EXIT_INVALID_INPUT

    def __init__(self, problems: list[Problem] | str):
        if isinstance(problems, str):
            problems = [Problem(path="", line=0, column=0, message=problems)]
        self.problems = problems
        super().__init__("\n".join(p.render() for p in problems))


@dataclass(frozen=True, order=True)
class Problem:
    """One problem in one file, rendered as ``path:line:column: message`` (line and column 1-based)."""

    path: str
    line: int
    column: int
    message: str
    hint: str = ""

    def render(self) -> str:
        where = self.path or "<input>"
        if self.line:
            where += f":{self.line}:{self.column or 1}"
        text = f"{where}: {self.message}"
        if self.hint:
            text += f" (fix: {self.hint})"
        return text
