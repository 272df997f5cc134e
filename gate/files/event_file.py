"""The GitHub Actions event file (``GITHUB_EVENT_PATH``): the payload of the event that started the
job, read within a size bound. What it says is read by ``gate.trust.facts`` (whose commits the run
holds) and ``gate.github.action_settings`` (the pull request the action publishes to)."""

from __future__ import annotations

import json

from gate import limits
from gate.files.bounded_read import TooLarge, read_bounded
from gate.util.json_types import JsonObject


class EventFileError(Exception):
    """The event file could not be read, or holds no JSON object."""


def read_event_payload(path: str) -> JsonObject:
    """The payload at ``path``. Raises ``EventFileError`` (no path, unreadable, too large, not a JSON
    object)."""
    if not path:
        raise EventFileError("no event file (GITHUB_EVENT_PATH is not set)")
    try:
        payload = json.loads(read_bounded(path, limits.MAX_EVENT_BYTES))
    except (OSError, TooLarge, ValueError, RecursionError) as exc:
        raise EventFileError(f"could not read the event file {path}: {exc}") from None
    if not isinstance(payload, dict):
        raise EventFileError(f"the event file {path} holds no JSON object")
    return payload
