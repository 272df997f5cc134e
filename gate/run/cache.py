"""Response cache: zero model calls for work already done (DESIGN.md section 8).

The key is the SHA-256 of the canonical JSON (sorted keys, no white space) of the request's
``cache_key_material()`` plus the trial index, so that trials of one case get their own answers, a
reordered mapping gives the same key, and neither the API key nor the base URL ever enters it.
One file per reply, ``<dir>/<first two hex chars>/<key>.json``, written atomically.

Modes: ``use`` (hit: return it; miss: call and store), ``record`` (always call and store, refreshing
the recording), ``replay`` (a miss is an error for that trial, never a model call).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from gate.files.outputs import write_text_atomic
from gate.providers.base import REPLAY_MISS_MESSAGE, ModelReply, ModelRequest, ProviderError
from gate.util.redact import Redactor

CacheMode = Literal["use", "record", "replay"]
CACHE_FORMAT = 1
DEFAULT_DIRECTORY = ".tool-eval-gate/cache"  # under the root, when a run uses a cache without --cache


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def cache_key(request: ModelRequest, trial: int) -> str:
    material = {"request": request.cache_key_material(), "trial": trial}
    return hashlib.sha256(canonical_json(material).encode("utf-8")).hexdigest()


class ResponseCache:
    """A directory of recorded replies. Safe to share between concurrent tasks and threads:
    files are replaced atomically, and concurrent identical requests share one model call."""

    def __init__(self, directory: str | os.PathLike[str], mode: CacheMode = "use"):
        if mode not in ("use", "record", "replay"):
            raise ValueError(f"unknown cache mode {mode!r}")
        self.directory = Path(directory)
        self.mode: CacheMode = mode
        self.hits = 0
        self.misses = 0
        self.store_errors: list[str] = []  # entries that could not be written (the run goes on)
        self._pending: dict[str, asyncio.Future[ModelReply]] = {}
        # Cache files get committed and uploaded: a key the model echoed must not be stored.
        self._redactor = Redactor.from_env(os.environ)

    def path_for(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def load(self, key: str) -> ModelReply | None:
        """The stored reply for ``key``; None when absent or unreadable (a corrupt entry is a miss)."""
        try:
            with open(self.path_for(key), encoding="utf-8") as handle:
                data = json.load(handle)
            return ModelReply.from_dict(data["reply"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def store(self, key: str, request: ModelRequest, trial: int, reply: ModelReply) -> None:
        path = self.path_for(key)
        entry = {
            "format": CACHE_FORMAT,
            "key": key,
            "trial": trial,
            "reply": reply.to_dict(),
            "request": request.cache_key_material(),  # for debugging only; never read back
        }
        entry = self._redactor.redact_obj(entry)
        try:
            write_text_atomic(path, json.dumps(entry, ensure_ascii=False, indent=1, default=str))
        except OSError as exc:  # a full disk or a read-only cache never costs the answer just paid for
            self.store_errors.append(f"{path}: {exc.strerror or exc}")

    async def fetch(
        self,
        request: ModelRequest,
        trial: int,
        call: Callable[[ModelRequest], Awaitable[ModelReply]],
    ) -> ModelReply:
        """The reply to ``request`` for ``trial``: from the cache, or from ``call`` (then stored)."""
        key = cache_key(request, trial)
        if self.mode != "record":
            cached = self.load(key)
            if cached is not None:
                self.hits += 1
                return cached
        if self.mode == "replay":
            self.misses += 1
            raise ProviderError("replay_miss", REPLAY_MISS_MESSAGE)
        pending = self._pending.get(key)
        if pending is not None:  # an identical request is already on its way: share its answer
            self.hits += 1
            return await asyncio.shield(pending)
        self.misses += 1
        future: asyncio.Future[ModelReply] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            reply = await call(request)
            self.store(key, request, trial, reply)
            future.set_result(reply)
            return reply
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "exception was never retrieved" warning without waiters
            raise
        finally:
            del self._pending[key]
