"""The suite JSON Schema shipped with the package, and the schema problems of a document.

Reads ``gate/schemas/suite.schema.json`` once per process. Valid documents are recognised by the
compiled checker of :mod:`gate.schema_check` without importing jsonschema; only a document with a
problem is handed to jsonschema, whose errors :mod:`gate.schema_messages` words and locates.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from gate import schema_check
from gate.errors import Problem
from gate.schema_messages import Document, PathKey, problems_of

SCHEMA_FILE = Path(__file__).parent / "schemas" / "suite.schema.json"


@lru_cache(maxsize=1)
def suite_schema() -> dict[str, Any]:
    """The suite JSON Schema shipped with the package."""
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return schema


@lru_cache(maxsize=8)
def _validator(definition: str | None = None) -> Any:
    """A Draft 2020-12 validator for the whole suite, or for one ``$defs`` entry; built once."""
    from jsonschema import Draft202012Validator

    schema = suite_schema()
    if definition is not None:
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    return Draft202012Validator(schema)


def schema_problems(
    doc: Document, data: Any, definition: str | None = None, base: PathKey = ()
) -> list[Problem]:
    """Every schema violation of ``data`` (found at ``base`` in ``doc``), readable and located."""
    fast = schema_check.checker(suite_schema(), definition)
    if fast is not None and fast(data):  # the common case: valid, and jsonschema is never imported
        return []
    return problems_of(_validator(definition).iter_errors(data), doc, base, suite_schema()["$defs"])
