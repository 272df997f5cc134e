"""Prompt templates: ``{{ name }}`` placeholders filled from a case's variables.

Deliberately tiny: substitution only, no expressions, no code, so that a suite can never make the gate
execute anything. ``{{{{`` is not special; an unknown variable is an error found by ``validate``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def variables(template: str) -> list[str]:
    """The placeholder names of ``template`` in order of first appearance, without repeats."""
    seen: dict[str, None] = {}
    for match in PLACEHOLDER.finditer(template):
        seen.setdefault(match.group(1), None)
    return list(seen)


def missing(template: str, values: Mapping[str, object]) -> list[str]:
    """Placeholders of ``template`` that ``values`` does not provide."""
    return [name for name in variables(template) if name not in values]


def render(template: str, values: Mapping[str, object]) -> str:
    """Fill every placeholder; raises KeyError naming the first variable without a value."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(name)
        return str(values[name])

    return PLACEHOLDER.sub(fill, template)
