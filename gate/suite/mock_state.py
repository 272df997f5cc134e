"""The state of a stateful mock backend: paths into it, templates over it, and the changes rules make.

Declarative only. A state is a JSON document (the suite's ``state``, with the case's ``state`` keys
replacing the suite's). Rules address it by *state paths*: dot-separated keys, a whole-number segment
indexing a list (``-1`` is the last item), e.g. ``bookings.BK-1.status`` or ``flights.0.seats``.
A segment may hold templates, so that a path can depend on the call (``bookings.{{ args.booking_id }}``).

Templates are ``{{ args.NAME }}`` (an argument of the call, dotted for nested values), ``{{ state.PATH }}``
(a value of the state), ``{{ call.index }}`` (1-based number of this tool call in the trial) and
``{{ call.count }}`` (1-based number of calls of this tool so far). A string that is exactly one
template takes the referenced value with its JSON type; a template inside longer text is replaced by
its text (strings as they are, other values as JSON). What is absent renders as null (empty inside text).

Pure: no I/O. Values are copied on every change, so a state seen by an earlier call never changes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

TEMPLATE = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
NAMESPACES = ("args", "state", "call")
CALL_FIELDS = ("index", "count")
_ABSENT = object()


class StateError(Exception):
    """A change the state cannot take (e.g. append to something that is not a list)."""


@dataclass(frozen=True)
class CallContext:
    """What templates may read: the call's arguments, the state, and the call's numbers."""

    args: Mapping[str, Any]
    state: Any
    index: int
    count: int


def template_references(text: str) -> list[str]:
    """The references inside ``{{ }}`` of ``text``, in order (e.g. ``["args.flight", "call.index"]``)."""
    return [m.group(1) for m in TEMPLATE.finditer(text)]


def reference_problem(reference: str) -> str | None:
    """Why a template reference can never resolve, or None when it is well formed."""
    head, _, rest = reference.partition(".")
    if head not in NAMESPACES:
        return f"unknown template {{{{ {reference} }}}}: use args.NAME, state.PATH, call.index or call.count"
    if head == "call":
        if rest not in CALL_FIELDS:
            return f"unknown template {{{{ {reference} }}}}: call has only index and count"
        return None
    if not rest or any(segment == "" for segment in rest.split(".")):
        return f"template {{{{ {reference} }}}} needs a {'name' if head == 'args' else 'path'} after {head}."
    return None


def path_problem(path: str) -> str | None:
    """Why a state path is malformed (empty segments), or None."""
    bare = TEMPLATE.sub("x", path)
    if bare == "" or any(segment == "" for segment in bare.split(".")):
        return f"state path {path!r} has an empty segment: write keys separated by single dots"
    return None


def split_path(path: str) -> list[str]:
    """The segments of a (rendered) state path."""
    return path.split(".")


def _step(node: Any, segment: str) -> Any:
    if isinstance(node, dict):
        return node.get(segment, _ABSENT)
    if isinstance(node, list) and re.fullmatch(r"-?\d+", segment):
        index = int(segment)
        return node[index] if -len(node) <= index < len(node) else _ABSENT
    return _ABSENT


def lookup(state: Any, path: str) -> tuple[bool, Any]:
    """(present, value) of ``path`` in ``state``."""
    node = state
    for segment in split_path(path):
        node = _step(node, segment)
        if node is _ABSENT:
            return False, None
    return True, node


def _reference_value(reference: str, context: CallContext) -> Any:
    head, _, rest = reference.partition(".")
    if head == "call":
        return context.index if rest == "index" else context.count
    root = context.args if head == "args" else context.state
    present, value = lookup(root, rest)
    return value if present else None


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def render_text(text: str, context: CallContext) -> Any:
    """``text`` with its templates filled: the value itself when ``text`` is exactly one template."""
    whole = TEMPLATE.fullmatch(text.strip()) if "{{" in text else None
    if whole is not None:
        return _copy(_reference_value(whole.group(1), context))
    if "{{" not in text:
        return text
    return TEMPLATE.sub(lambda m: _as_text(_reference_value(m.group(1), context)), text)


def render(value: Any, context: CallContext) -> Any:
    """A JSON value with every string (keys included) rendered by :func:`render_text`."""
    if isinstance(value, str):
        return render_text(value, context)
    if isinstance(value, dict):
        return {_as_text(render_text(k, context)): render(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, context) for v in value]
    return value


def render_path(path: str, context: CallContext) -> str:
    """A state path with the templates of its segments filled as text."""
    return TEMPLATE.sub(lambda m: _as_text(_reference_value(m.group(1), context)), path)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _parent(root: Any, path: str, create: bool) -> tuple[Any, str]:
    """The container holding the last segment of ``path`` (dicts created on the way when ``create``)."""
    segments = split_path(path)
    node = root
    for depth, segment in enumerate(segments[:-1]):
        child = _step(node, segment)
        if child is _ABSENT:
            if not (create and isinstance(node, dict)):
                where = ".".join(segments[: depth + 1])
                raise StateError(f"state path {path!r}: nothing at {where!r}")
            child = node[segment] = {}
        node = child
    return node, segments[-1]


def set_value(state: Any, path: str, value: Any) -> Any:
    """A copy of ``state`` with ``value`` at ``path`` (missing objects on the way are created)."""
    root = _copy(state)
    node, last = _parent(root, path, create=True)
    if isinstance(node, dict):
        node[last] = _copy(value)
    elif isinstance(node, list) and _step(node, last) is not _ABSENT:
        node[int(last)] = _copy(value)
    else:
        raise StateError(f"state path {path!r}: cannot set {last!r} in a {type(node).__name__}")
    return root


def append_value(state: Any, path: str, value: Any) -> Any:
    """A copy of ``state`` with ``value`` appended to the list at ``path`` (created when absent)."""
    root = _copy(state)
    node, last = _parent(root, path, create=True)
    target = _step(node, last)
    if target is _ABSENT and isinstance(node, dict):
        node[last] = target = []
    if not isinstance(target, list):
        raise StateError(f"state path {path!r} is not a list: cannot append")
    target.append(_copy(value))
    return root


def remove_value(state: Any, path: str) -> Any:
    """A copy of ``state`` without what is at ``path`` (nothing changes when it is absent)."""
    root = _copy(state)
    try:
        node, last = _parent(root, path, create=False)
    except StateError:
        return root
    if isinstance(node, dict):
        node.pop(last, None)
    elif isinstance(node, list) and _step(node, last) is not _ABSENT:
        del node[int(last)]
    return root


def initial_state(suite_state: Mapping[str, Any] | None, case_state: Mapping[str, Any] | None) -> Any:
    """The state a case starts from: the suite's, with the case's top-level keys replacing its keys;
    None when neither declares one (the mocks are then stateless)."""
    if suite_state is None and case_state is None:
        return None
    return _copy({**(suite_state or {}), **(case_state or {})})


def strings_in(value: Any, at: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every string inside a JSON value (keys too, reported at their own position), with its path."""
    if isinstance(value, str):
        yield at, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield (*at, key), key
            yield from strings_in(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings_in(item, (*at, index))
