"""What every part of the builder shares while it reads one suite: the document, the problems found so
far, the damage the schema errors did, the tools the agent defines, and the checks used by several
parts (unknown tools, matchers, regexes, schemas, judged checks without a judge).

Pure: positions come from a :class:`SuiteDocument` (a :class:`gate.files.yaml_source.YamlDocument`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from gate.assembly.checks import cannot_work, impossible_matchers, matcher_specs
from gate.assembly.checks.finding import Finding
from gate.assembly.checks.schema_damage import Damage
from gate.assembly.checks.schema_messages import QUOTED_CHARS, Document
from gate.errors import Problem
from gate.suite import matcher_tree as mt
from gate.suite.matcher_tree import Matcher, MatcherError, parse_matcher, walk
from gate.suite.model import Source, ToolDef
from gate.util import bounded_regex, schema_check
from gate.util.escape import truncate
from gate.util.json_types import JsonObject, PathKey
from gate.util.wording import closest


class SuiteDocument(Document, Protocol):
    """A parsed suite or mock file: its data and where each value was written."""

    @property
    def data(self) -> Any: ...

    def position(self, path: PathKey) -> tuple[int, int]: ...

    def key_position(self, path: PathKey) -> tuple[int, int]: ...

    def file_of(self, path: PathKey) -> str: ...


class BuildContext:
    """One suite being built: ``data`` is the document without its damaged parts (all of it when the
    schema found nothing), ``problems`` what the semantic checks found."""

    def __init__(self, doc: SuiteDocument, damage: Damage):
        self.doc, self.damage = doc, damage
        self.data: Any = damage.prune(doc.data) if damage else doc.data
        self.problems: list[Problem] = []
        # Every tool name the agent's definitions name (parsed or not) and the parsed definitions;
        # tools_known is False when some definition's name cannot be read (then no tool is "unknown").
        self.tool_names: set[str] = set()
        self.tools: dict[str, ToolDef] = {}
        self.tools_known = True
        self.has_judge = False
        # The state keys mock rules may refer to where they are being read (None: no state declared);
        # state_known is False when a state is damaged (then state keys are not checked).
        self.state_keys: frozenset[str] | None = None
        self.state_known = True
        # The initial states the mock rules being read start from: (where a case's state is written,
        # None for the suite's own; the state; the top-level keys that case writes itself).
        self.states: list[tuple[PathKey | None, Any, frozenset[str]]] = []
        # The state paths the rules read so far set or remove (gate.assembly.checks.state_shapes).
        self.changed_paths: set[tuple[str | None, ...]] = set()

    def damaged(self, path: PathKey) -> bool:
        """Whether a schema error damaged the node at ``path`` (see
        :mod:`gate.assembly.checks.schema_damage`)."""
        return bool(self.damage) and self.damage.hit(path, self.doc.data)

    def err(
        self,
        path: PathKey,
        message: str,
        hint: str = "",
        *,
        at_key: bool = False,
        doc: SuiteDocument | None = None,
    ) -> None:
        doc = doc or self.doc
        where = doc.render_path(path)
        self.problems.append(
            doc.problem(path, f"{where}: {message}" if where else message, hint, at_key=at_key)
        )

    def report(self, found: list[Finding], doc: SuiteDocument | None = None) -> None:
        """Report what ``gate.assembly.checks.cannot_work`` (or ``gate.assembly.checks.state``) found, each at
        its path."""
        for path, message, hint in found:
            self.err(path, message, hint, doc=doc)

    def source(self, path: PathKey) -> Source:
        line, column = self.doc.position(path)
        return Source(self.doc.file_of(path), line, column)

    def check_tool(self, name: Any, at: PathKey, extra: Sequence[str] = ()) -> None:
        """``name`` must be a tool the agent defines."""
        if not self.tools_known or not isinstance(name, str) or name in self.tool_names:
            return
        self.err(at, f"unknown tool {name!r}", self.unknown_tool_hint(name, extra))

    def unknown_tool_hint(self, name: str, extra: Sequence[str] = ()) -> str:
        """The fix for a tool name the agent does not define: the close name, else the defined ones."""
        names = sorted(self.tool_names)
        close = closest(name, names + list(extra))
        if close is not None:
            return f"did you mean {close!r}?"
        return "defined tools: " + ", ".join(names) if names else "the agent defines no tools"

    def need_judge(self, at: PathKey, what: str) -> None:
        self.err(
            at,
            f"{what} needs a judge, but the suite has none",
            "add judge: {provider: openai, model: gpt-4o-mini} at the top of the suite",
        )

    def read_matchers(
        self,
        value: Any,
        at: PathKey,
        has_judge: bool,
        doc: SuiteDocument | None = None,
        *,
        parameters: JsonObject | None = None,
        tool: str = "",
        never_judged: str = "",
    ) -> dict[str, Matcher]:
        """The matchers of ``value`` (name -> expected value, written at ``at``) as typed trees, each
        checked (:meth:`check_matchers`); what cannot be read is reported at its place and left out."""
        matchers: dict[str, Matcher] = {}
        for name, written in value.items() if isinstance(value, dict) else ():
            try:
                matchers[name] = parse_matcher(written, (*at, name))
            except MatcherError as exc:
                self.err(exc.at, exc.message, exc.hint, doc=doc)
        self.check_matchers(
            matchers, has_judge, doc, parameters=parameters, tool=tool, never_judged=never_judged
        )
        return matchers

    def check_matchers(
        self,
        matchers: dict[str, Matcher],
        has_judge: bool,
        doc: SuiteDocument | None = None,
        *,
        parameters: JsonObject | None = None,
        tool: str = "",
        never_judged: str = "",
    ) -> None:
        """Matchers (name -> matcher): specs no one can mean (gate.assembly.checks.matcher_specs, with the
        ``parameters`` schema of ``tool``), matchers no value can satisfy
        (gate.assembly.checks.impossible_matchers), patterns, schemas, ranges, and judge matchers where
        no judge is configured or, ``never_judged`` naming the place, where none is ever asked."""
        specs = matcher_specs.arguments_problems(matchers, parameters)
        self.report(specs, doc)
        said = {path for path, _, _ in specs}  # one problem per place: a misspelt key is not also a type
        impossible = impossible_matchers.matcher_problems(tool, parameters, matchers)
        self.report([f for f in impossible if not any(f[0][: len(p)] == p for p in said)], doc)
        for node in (node for matcher in matchers.values() for node in walk(matcher)):
            if isinstance(node, mt.Judge) and never_judged:
                self.err(node.at, *matcher_specs.never_judged(never_judged), doc=doc)
            elif isinstance(node, mt.Judge) and not has_judge:
                self.need_judge(node.at, "a judge matcher")
            elif isinstance(node, mt.Regex):
                self.check_regex(node.pattern, (*node.at, "regex"), doc)
            elif isinstance(node, mt.Schema):
                self.check_schema(node.schema, (*node.at, "schema"), doc)
            elif isinstance(node, mt.Range) and node.min is not None and node.max is not None:
                if node.min > node.max:
                    self.err(
                        (*node.at, "range"),
                        f"range.min ({node.min}) is greater than range.max ({node.max})",
                        doc=doc,
                    )

    def check_regex(self, pattern: str, at: PathKey, doc: SuiteDocument | None = None) -> None:
        problem = bounded_regex.regex_problem(pattern)  # the engine the run uses
        if problem is not None:
            self.err(
                at,
                f"invalid regular expression {pattern!r}: {problem}",
                "check the escaping (in YAML, prefer single quotes)",
                doc=doc,
            )

    def check_schema(self, schema: Any, at: PathKey, doc: SuiteDocument | None = None) -> None:
        from gate.assembly.tool_formats import REMOTE_REF_HINT, remote_refs

        for where, ref in remote_refs(schema, at):
            self.err(where, f"a remote schema reference {ref!r} is not allowed", REMOTE_REF_HINT, doc=doc)
        self.report(cannot_work.schema_problems(schema, at), doc)
        if schema_check.is_valid_schema(schema):
            return
        from gate.assembly.tool_formats import meta_validator

        for error in meta_validator().iter_errors(schema):
            self.err(
                (*at, *error.absolute_path),
                f"not a valid JSON Schema: {truncate(error.message, QUOTED_CHARS, brief=True)}",
                doc=doc,
            )
