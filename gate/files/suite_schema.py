"""The suite JSON Schema shipped with the package, and the schema problems of a document.

Reads ``gate/schemas/suite.schema.json`` once per process. Valid documents are recognised by the
compiled checker of :mod:`gate.util.schema_check` without importing jsonschema; only a document with a
problem is handed to jsonschema, whose errors :mod:`gate.assembly.checks.schema_messages` words and locates.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from gate.assembly.checks.schema_damage import Damage, damage_of
from gate.assembly.checks.schema_messages import Document, problems_of
from gate.errors import Problem
from gate.util import schema_check
from gate.util.json_types import JsonObject, PathKey

SCHEMA_FILE = Path(__file__).parents[1] / "schemas" / "suite.schema.json"


@lru_cache(maxsize=1)
def suite_schema() -> JsonObject:
    """The suite JSON Schema shipped with the package."""
    schema: JsonObject = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return schema


@lru_cache(maxsize=8)
def _validator(definition: str | None = None) -> Any:
    """A Draft 2020-12 validator for the whole suite, or for one ``$defs`` entry; built once."""
    from jsonschema import Draft202012Validator

    schema = suite_schema()
    if definition is not None:
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    return Draft202012Validator(schema)


def schema_findings(
    doc: Document, data: Any, definition: str | None = None, within: PathKey = ()
) -> tuple[list[Problem], Damage]:
    """Every schema violation of ``data`` (the whole suite, or one ``$defs`` entry: ``definition``),
    readable and located in ``doc``, and the damage they do to ``data`` (what the semantic checks
    skip; ``within``: where ``data`` stands in a suite, see
    :func:`gate.assembly.checks.schema_damage.damage_of`)."""
    fast = schema_check.checker(suite_schema(), definition)
    if fast is not None and fast(data):  # the common case: valid, and jsonschema is never imported
        return [], Damage()
    errors = list(_validator(definition).iter_errors(data))
    return problems_of(errors, doc, suite_schema()["$defs"]), damage_of(errors, within)
