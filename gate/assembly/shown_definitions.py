"""Whether an agent program showed its model the tool definitions its code holds (DESIGN section 10,
"The gate sees the model, not the agent"; issue: the model was shown what the PR ships).

A program under test can offer the model another definition than the one it ships: a framework that
loads "the MCP tools" from the gate's mock MCP server (the suite's copies of every tool) next to its
own tools keeps one definition per name, and it may keep the suite's copy. The run then judges a text
nobody ships, and a pull request that degrades a docstring passes. Two findings say so:

- **not the code's** (``not_the_code_s``): a tool the model was offered has a definition in the
  program's code (``gate.assembly.code_definitions``) and the text the model was shown is not in it;
- **unchanged for the model** (``unchanged_for_the_model``, with a base side): the pull request
  changed the description a definition in the program's code gives a tool (its words, not its
  layout), and the model was shown the same definitions of it on both sides.

Either makes the run not verified: its verdict would be about another text than the one the pull
request ships. Pure: the program's files come in as texts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from gate.assembly.code_definitions import CodeDefinition, code_definitions
from gate.results.run_record import OfferedTool, distinct_tools, tool_key
from gate.util.escape import truncate
from gate.util.source_text import Place, SourceIndex, is_written_in

QUOTED = 80  # characters of a description quoted in a finding


@dataclass(frozen=True)
class ProgramCode:
    """The program's files (its command's and ``watch``'s, none of the suite's own) and the texts of
    ``sources``: the program's files, and the repository's others where a finding must say where the
    text the model was shown is written."""

    files: tuple[str, ...]
    sources: Mapping[str, str]
    suite_files: frozenset[str] = frozenset()  # the suite file and its tool files

    def definitions(self, name: str) -> tuple[CodeDefinition, ...]:
        return code_definitions(name, self.sources, self.files)

    @cached_property
    def _index(self) -> SourceIndex:
        """The sources searched once for every finding's text (not once per finding)."""
        return SourceIndex(self.sources, self.files)

    def written_at(self, text: str) -> Place | None:
        return self._index.find([text])[0] if text.strip() else None


@dataclass(frozen=True)
class Unshown:
    """A tool whose definition in the program's code did not reach the model: what the model was
    shown (``shown``, written at ``shown_at``) and the code's definition (``code``); ``changed``: the
    pull request changed the code's (the ``unchanged_for_the_model`` finding)."""

    suite: str
    shown: OfferedTool
    shown_at: Place | None
    code: CodeDefinition
    changed: bool = False
    suite_copy: bool = False  # ``shown_at`` is one of the suite's own files (the mock MCP server lists it)

    def located(self, code: ProgramCode) -> Unshown:
        """This finding with where the text shown is written among ``code``'s sources."""
        at = code.written_at(self.shown.description)
        return replace(self, shown_at=at, suite_copy=_in(at, code.suite_files))

    def sentence(self) -> str:
        code = self.code
        where = f"{code.path}:{code.start}"
        shown = f'"{_quoted(self.shown.description)}"' if self.shown.description.strip() else "none"
        if self.shown_at is None:
            origin = "written nowhere in the repository"
        elif self.suite_copy:
            at = f"{self.shown_at.path}:{self.shown_at.line}"
            origin = f"the suite's copy at {at}, which the mock MCP server lists"
        else:
            origin = f"written at {self.shown_at.path}:{self.shown_at.line}"
        name = self.shown.name
        if self.changed:
            return (
                f"suite {self.suite!r}: this change rewrites the description of {name} at {where}, but the "
                f"model was shown the same definition on both sides (description {shown}, {origin})"
            )
        return (
            f"suite {self.suite!r}: the model was shown a description of {name} ({shown}, {origin}) that "
            f'is not the one the program\'s code gives it at {where} ("{_quoted(code.text)}")'
        )


HINT = (
    "the program must offer its model the definitions its code holds: take from TOOL_EVAL_GATE_MCP_URL "
    "only the tools your MCP servers serve (filter them by name), and for a tool of your code send only "
    "its calls to the mock server (docs/agent-programs.md, 'Tools in your code')"
)


def not_verified(findings: Sequence[Unshown]) -> str:
    """Why a run with ``findings`` is not verified ("" without any)."""
    if not findings:
        return ""
    return "not verified: " + "; ".join(f.sentence() for f in findings) + f" (fix: {HINT})"


def not_the_code_s(suite: str, offered: Sequence[OfferedTool], code: ProgramCode) -> tuple[Unshown, ...]:
    """The definitions the model was offered that the program's code defines otherwise."""
    found: list[Unshown] = []
    for tool in distinct_tools(offered):
        definitions = code.definitions(tool.name)
        if not definitions or any(_holds(d, tool.description) for d in definitions):
            continue
        found.append(Unshown(suite, tool, None, definitions[0]).located(code))
    return tuple(found)


def unchanged_for_the_model(
    suite: str,
    head: Sequence[OfferedTool],
    base: Sequence[OfferedTool],
    head_code: ProgramCode,
    base_code: ProgramCode,
) -> tuple[Unshown, ...]:
    """The tools whose description in the program's code the change rewrote while the model was
    shown the same definitions of them on both sides."""
    found: list[Unshown] = []
    for name in dict.fromkeys(t.name for t in head):
        shown = _definitions_of(name, head)
        if not shown or shown != _definitions_of(name, base):
            continue
        now, before = head_code.definitions(name), base_code.definitions(name)
        if not now or not before or _words(now) == _words(before):
            continue
        tool = next(t for t in head if t.name == name)
        found.append(Unshown(suite, tool, None, now[0], changed=True).located(head_code))
    return tuple(found)


def _quoted(text: str) -> str:
    return truncate(" ".join(text.split()), QUOTED, brief=True)


def _holds(definition: CodeDefinition, text: str) -> bool:
    """Whether ``text`` (what the model was shown) is written in the definition's description."""
    return is_written_in(text, definition.text)


def _in(place: Place | None, files: frozenset[str]) -> bool:
    return place is not None and place.path in files


def _definitions_of(name: str, tools: Sequence[OfferedTool]) -> frozenset[str]:
    return frozenset(tool_key(t) for t in tools if t.name == name)


def _words(definitions: Sequence[CodeDefinition]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(d.main_text.casefold().split()) for d in definitions)
