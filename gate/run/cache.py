"""Response cache: zero model calls for work already done (DESIGN.md section 8).

The key is the SHA-256 of the canonical JSON (sorted keys, no white space) of the request's
``cache_key_material()`` plus the trial index, so that trials of one case get their own answers, a
reordered mapping gives the same key, and neither the API key nor the base URL ever enters it.
One file per reply, ``<dir>/<first two hex chars>/<key>.json``, written atomically.

Entries are read and written without following links below the cache directory: an entry that is a
symlink, a device, a FIFO or larger than ``limits.MAX_CACHE_ENTRY_BYTES`` (checked before reading,
so a sparse giant costs nothing) is a miss, never read; a subdirectory that is a symlink is never
written through (the answer is then not stored, and the run says so); an entry that is a symlink is
replaced, never written through.

Modes: ``use`` (hit: return it; miss: call and store), ``record`` (always call and store, refreshing
the recording), ``replay`` (a miss is an error for that trial, never a model call).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import secrets
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from gate import limits
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
        """The stored reply for ``key``; None when absent, unreadable, not a regular file reached
        without a link, larger than the bound or corrupt (each a miss)."""
        raw = _read_entry(self.directory, key)
        if raw is None:
            return None
        try:
            data = json.loads(raw, parse_int=_bounded_int)
            return ModelReply.from_dict(data["reply"])
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None

    def store(self, key: str, request: ModelRequest, trial: int, reply: ModelReply) -> None:
        entry = {
            "format": CACHE_FORMAT,
            "key": key,
            "trial": trial,
            "reply": reply.to_dict(),
            "request": request.cache_key_material(),  # for debugging only; never read back
        }
        data = _encode(self._redactor.redact_obj(entry))
        if len(data) > limits.MAX_CACHE_ENTRY_BYTES:  # too big to be read back: keep the answer alone
            data = _encode(self._redactor.redact_obj({k: v for k, v in entry.items() if k != "request"}))
        where = self.path_for(key)
        if len(data) > limits.MAX_CACHE_ENTRY_BYTES:
            self.store_errors.append(f"{where}: larger than {limits.MAX_CACHE_ENTRY_BYTES} bytes")
            return
        try:
            _write_entry(self.directory, key, data)
        except _LinkedDirectory:
            self.store_errors.append(
                f"{where.parent}: a symlink, not a directory; nothing is written through it"
            )
        except OSError as exc:  # a full disk or a read-only cache never costs the answer just paid for
            self.store_errors.append(f"{where}: {exc.strerror or exc}")

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


def _encode(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry, ensure_ascii=False, indent=1, default=str).encode("utf-8", "backslashreplace")


def _bounded_int(text: str) -> int:
    """An integer of a cache entry; digits beyond any real count are refused (``int()`` of a huge
    digit string is quadratic where Python does not bound it, as on 3.10 before 3.10.7)."""
    if len(text) > 40:
        raise ValueError("an integer too long for a cache entry")
    return int(text)


_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY
_NO_LINK = getattr(os, "O_NOFOLLOW", 0)


class _LinkedDirectory(OSError):
    """A subdirectory of the cache is a symlink (or not a directory)."""


def _read_entry(directory: Path, key: str) -> bytes | None:
    """The bytes of ``key``'s entry, read through the real subdirectory without following any link;
    None unless it is a regular file of at most ``MAX_CACHE_ENTRY_BYTES``."""
    try:
        top = os.open(directory, _DIRECTORY)
    except OSError:
        return None
    try:
        sub = os.open(key[:2], _DIRECTORY | _NO_LINK, dir_fd=top)
        try:  # without blocking: a FIFO placed there must not hang the run
            fd = os.open(f"{key}.json", os.O_RDONLY | _NO_LINK | os.O_NONBLOCK, dir_fd=sub)
        finally:
            os.close(sub)
    except OSError:
        return None
    finally:
        os.close(top)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limits.MAX_CACHE_ENTRY_BYTES:
            return None
        data = handle.read(limits.MAX_CACHE_ENTRY_BYTES + 1)
    return data if len(data) <= limits.MAX_CACHE_ENTRY_BYTES else None


def _write_entry(directory: Path, key: str, data: bytes) -> None:
    """Write ``data`` as ``key``'s entry atomically: a temporary file in the real subdirectory
    (never a symlink: ``_LinkedDirectory``), renamed over the entry (a symlink there is replaced,
    never written through)."""
    directory.mkdir(parents=True, exist_ok=True)
    top = os.open(directory, _DIRECTORY)
    try:
        try:
            os.mkdir(key[:2], 0o755, dir_fd=top)
        except FileExistsError:
            pass
        try:
            sub = os.open(key[:2], _DIRECTORY | _NO_LINK, dir_fd=top)
        except OSError as exc:
            raise _LinkedDirectory(exc.errno, exc.strerror) from None
        try:
            _replace_in(sub, f"{key}.json", data)
        finally:
            os.close(sub)
    finally:
        os.close(top)


def _replace_in(directory_fd: int, name: str, data: bytes) -> None:
    temporary = f".{name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_LINK, 0o644, dir_fd=directory_fd)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, name, src_dir_fd=directory_fd, dst_dir_fd=directory_fd)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=directory_fd)
        except OSError:
            pass
        raise
