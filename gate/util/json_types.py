"""What JSON holds, as types: the values the results file, the suites' documents (YAML read as its
JSON subset), tool schemas, provider payloads and transcripts are made of.

``JsonValue`` is one JSON value: null, a boolean, a number, a string, an array or an object;
``JSON_SCALARS`` the exact Python types of its scalars as ``json.loads`` makes them.
``JsonObject`` is a JSON object. ``PathKey`` is where a value sits in a document: the keys and
indexes from its root (``("cases", 2, "expect")``). Their items are typed ``Any``: a document's
shape is checked where it is read (the JSON Schemas, ``isinstance`` at each step), not by the type
checker.
"""

from __future__ import annotations

from typing import Any, TypeAlias

JsonObject: TypeAlias = "dict[str, Any]"
JsonValue: TypeAlias = "None | bool | int | float | str | list[Any] | JsonObject"
PathKey: TypeAlias = "tuple[Any, ...]"
JSON_SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})
