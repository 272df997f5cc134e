"""Checks for what a schema accepts but can never work (DESIGN.md section 9), each a pure function
returning ``(path, message, hint)`` triples that the loader reports at the path's line and column:

- a JSON Schema (a tool's parameters, a ``schema`` matcher) whose ``pattern`` or
  ``patternProperties`` key does not compile in the engine the run uses (``gate.util.bounded_regex``),
  whose local ``$ref`` points at nothing, or whose ``$ref`` chain loops without consuming any of the
  value (the validator would recurse forever);
- a ``{{ placeholder }}`` inside expected arguments (expectations are not templated);
- a mock condition (``when``) on a parameter the tool does not have;
- a count written as a fraction-free float (``trials: 2.0``): JSON Schema calls it an integer, the
  run needs one, so it is refused with the integer to write.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gate.assembly.checks.finding import Finding
from gate.suite import templating
from gate.suite.matcher_tree import Matcher
from gate.util import bounded_regex
from gate.util.json_types import JsonObject, PathKey

# Keywords whose values are schemas (or maps / lists of schemas) that apply to parts of the value.
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMAS = (
    "items",
    "additionalProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "unevaluatedItems",
)


def _pointer(root: Any, ref: str) -> tuple[bool, PathKey]:
    """Resolve a local ``#/a/b`` reference in ``root``: (found, path of the target)."""
    if ref == "#":
        return True, ()
    if not ref.startswith("#/"):
        return False, ()
    node: Any = root
    path: tuple[str | int, ...] = ()
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node, path = node[part], path + (part,)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node, path = node[int(part)], path + (int(part),)
        else:
            return False, ()
    return True, path


def _subschemas(node: JsonObject) -> Iterator[tuple[PathKey, Any]]:
    for key, value in node.items():
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            yield from (((key, name), sub) for name, sub in value.items())
        elif key in _SUBSCHEMAS or key in ("not", "if", "then", "else"):
            if isinstance(value, list):
                yield from (((key, i), sub) for i, sub in enumerate(value))
            else:
                yield (key,), value
        elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
            yield from (((key, i), sub) for i, sub in enumerate(value))


def _get(root: Any, path: PathKey) -> Any:
    node = root
    for part in path:
        node = node[part]
    return node


def schema_problems(schema: Any, at: PathKey = ()) -> list[Finding]:
    """Patterns that do not compile, dangling local ``$ref``s and ``$ref`` cycles in ``schema``."""
    found: list[Finding] = []
    stack: list[tuple[PathKey, Any]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            problem = bounded_regex.regex_problem(pattern)
            if problem:
                found.append(
                    ((*at, *path, "pattern"), f"the pattern {pattern!r} does not compile: {problem}", "")
                )
        for key in (
            node.get("patternProperties", {}) if isinstance(node.get("patternProperties"), dict) else ()
        ):
            problem = bounded_regex.regex_problem(key)
            if problem:
                found.append(
                    (
                        (*at, *path, "patternProperties", key),
                        f"the pattern {key!r} does not compile: {problem}",
                        "",
                    )
                )
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and not _pointer(schema, ref)[0]:
            found.append(
                ((*at, *path, "$ref"), f"the reference {ref!r} points at nothing", 'define it under "$defs"')
            )
        stack.extend(((*path, *where), sub) for where, sub in _subschemas(node))
    cycle = _ref_cycle(schema)
    if cycle is not None:
        found.append(
            (
                (*at, *cycle[0], "$ref"),
                f"the references {' -> '.join(cycle[1])} loop back without reaching a value",
                "a $ref must lead to a schema that checks something",
            )
        )
    return found


def _ref_cycle(schema: Any) -> tuple[PathKey, list[str]] | None:
    """A chain of ``$ref``s (through in-place keywords only) that comes back to where it started."""
    if not isinstance(schema, (dict, bool)):
        return None
    edges: dict[PathKey, list[tuple[PathKey, str]]] = {}
    stack: list[PathKey] = [()]
    seen: set[PathKey] = set()
    while stack:
        path = stack.pop()
        if path in seen:
            continue
        seen.add(path)
        node = _get(schema, path)
        if not isinstance(node, dict):
            continue
        targets: list[tuple[PathKey, str]] = []
        ref = node.get("$ref")
        if isinstance(ref, str):
            ok, target = _pointer(schema, ref)
            if ok:
                targets.append((target, ref))
        for key in ("allOf", "anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                targets += [((*path, key, i), "") for i in range(len(node[key]))]
        for key in ("not", "if", "then", "else"):
            if key in node:
                targets.append(((*path, key), ""))
        edges[path] = targets
        stack.extend(target for target, _ in targets)
        stack.extend((*path, *where) for where, _ in _subschemas(node))
    # Iterative depth-first search for a cycle in the in-place graph.
    state: dict[PathKey, int] = {}  # 1 on the current chain, 2 done
    for start in edges:
        if state.get(start):
            continue
        chain: list[tuple[PathKey, Iterator[tuple[PathKey, str]], str]] = [(start, iter(edges[start]), "")]
        state[start] = 1
        while chain:
            node, children, _ = chain[-1]
            step = next(children, None)
            if step is None:
                state[node] = 2
                chain.pop()
                continue
            target, ref = step
            if state.get(target) == 1:
                refs = [r for _, _, r in chain[1:] if r] + ([ref] if ref else [])
                origin = next((p for p, _, r in chain if r), node)
                return origin, refs or ["#"]
            if not state.get(target):
                state[target] = 1
                chain.append((target, iter(edges.get(target, [])), ref))
    return None


def placeholder_problems(args: Mapping[str, Matcher]) -> list[Finding]:
    """``{{ name }}`` placeholders inside expected arguments (they are compared as written): in every
    string value of each argument's matcher as written."""
    found: list[Finding] = []
    stack: list[tuple[PathKey, Any]] = [(matcher.at, matcher.json()) for matcher in args.values()]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            match = templating.PLACEHOLDER.search(node)
            if match:
                found.append(
                    (
                        path,
                        f"the template placeholder {match.group(0)} in an expected argument is never filled",
                        "expectations are not templated: write the value itself",
                    )
                )
        elif isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node))
    return sorted(found, key=lambda f: [str(p) for p in f[0]])


def unknown_when_parameters(
    tool_name: str, parameters: Mapping[str, Any], when: Mapping[str, Any], at: PathKey
) -> list[Finding]:
    """A mock's ``when`` conditions on parameters the tool does not have (they can never be met)."""
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return []
    return [
        (
            (*at, name),
            f"the mock condition is on {name!r}, which tool {tool_name!r} does not have",
            "use one of its parameters: " + ", ".join(sorted(properties)),
        )
        for name in when
        if name not in properties
    ]


def whole_number_problems(raw: Mapping[str, Any], keys: tuple[str, ...], at: PathKey) -> list[Finding]:
    """Counts written as floats (``trials: 2.0``)."""
    found: list[Finding] = []
    for key in keys:
        value = raw.get(key)
        values = value.items() if isinstance(value, dict) else [(None, value)]
        for sub, item in values:
            if isinstance(item, float):
                where = (*at, key) if sub is None else (*at, key, sub)
                label = key if sub is None else f"{key}.{sub}"
                found.append((where, f"{label} must be a whole number, got {item!r}", f"write {int(item)}"))
    return found
