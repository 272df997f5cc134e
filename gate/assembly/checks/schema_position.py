"""Where a value sits in a tool's parameter schema: the subschema of a property or of a list item,
the JSON types and property names the schema declares there (local ``$ref``s followed, one level of
``anyOf`` / ``oneOf`` / ``allOf`` branches read). Used by the validate-time checks that compare what a
suite writes with what the tool can ever send. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def resolve(schema: Any, root: Mapping[str, Any] | None) -> Any:
    """A local ``$ref`` (``#/$defs/x``) followed in the tool's parameter schema (a few hops)."""
    for _ in range(8):
        ref = schema.get("$ref") if isinstance(schema, Mapping) else None
        if not (isinstance(ref, str) and ref.startswith("#/") and root is not None):
            return schema
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, Mapping) else None
        schema = node
    return schema


def branches(schema: Any, root: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The schema and its anyOf / oneOf / allOf branches (one level), resolved."""
    schema = resolve(schema, root)
    if not isinstance(schema, Mapping):
        return []
    found = [schema]
    for key in ("anyOf", "oneOf", "allOf"):
        written = schema.get(key)
        if isinstance(written, list):
            found += [b for b in (resolve(b, root) for b in written) if isinstance(b, Mapping)]
    return found


def declared(schema: Any, root: Mapping[str, Any] | None) -> set[str]:
    """The property names the schema declares for an object at this position."""
    names: set[str] = set()
    for branch in branches(schema, root):
        properties = branch.get("properties")
        if isinstance(properties, Mapping):
            names.update(str(k) for k in properties)
    return names


def types(schema: Any, root: Mapping[str, Any] | None) -> set[str]:
    """The JSON types the schema names at this position (empty: not said)."""
    named: set[str] = set()
    for branch in branches(schema, root):
        kind = branch.get("type")
        named.update([kind] if isinstance(kind, str) else kind if isinstance(kind, list) else [])
    return named


def property_schema(schema: Any, name: Any, root: Mapping[str, Any] | None) -> Any:
    """The subschema of property ``name`` (None: not declared and no ``additionalProperties`` schema)."""
    for branch in branches(schema, root):
        properties = branch.get("properties")
        if isinstance(properties, Mapping) and name in properties:
            return properties[name]
    for branch in branches(schema, root):
        extra = branch.get("additionalProperties")
        if isinstance(extra, Mapping):
            return extra
    return None


def item_schema(schema: Any, index: int, root: Mapping[str, Any] | None) -> Any:
    """The subschema of list item ``index`` (None: not said)."""
    for branch in branches(schema, root):
        prefix = branch.get("prefixItems")
        if isinstance(prefix, list) and index < len(prefix):
            return prefix[index]
        items = branch.get("items")
        if isinstance(items, Mapping):
            return items
    return None
