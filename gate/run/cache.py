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

What a run reads is fixed when it opens the cache, before any command it starts can run (DESIGN
section 10, "Contained"): an answer comes from an entry that was there, unchanged, at that moment, or
from this run's own answers (kept in memory), never from a file that appeared or changed since. The
moment is the change time (ctime, which no unprivileged process can set back) of a marker file made
in the directory as it opens; before the first command starts, ``settle`` waits until the file
system's clock has moved past it (a few milliseconds at most), so that whatever a command writes is
stamped later. An entry is read only if its ctime is not later, it lies in a subdirectory that was
there then (the same inode: a directory renamed into place carries old entries, not old
subdirectories), through the directory opened then, and its ``key`` is its name.

Who could have written a cache directory (``provenance``: a symlink below the repository root on the
way to it, files git tracks in it) is a fact of the trust decision (``gate.trust.decision``), which
says how a run uses the directory: itself, or a temporary cache of the run's own (``open_cache``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import secrets
import shutil
import stat
import tempfile
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gate import CACHE_DIRECTORY, limits
from gate.files.links import first_link
from gate.git.tracked import GitUnavailable, tracked_under
from gate.providers.base import REPLAY_MISS_MESSAGE, ModelReply, ModelRequest, ProviderError
from gate.trust.decision import CacheUse
from gate.trust.facts import CacheFacts
from gate.util.redact import Redactor

CacheMode = Literal["use", "record", "replay"]
CACHE_FORMAT = 1
DEFAULT_DIRECTORY = CACHE_DIRECTORY  # under the root, when a run uses a cache without --cache


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def cache_key(request: ModelRequest, trial: int) -> str:
    material = {"request": request.cache_key_material(), "trial": trial}
    return hashlib.sha256(canonical_json(material).encode("utf-8")).hexdigest()


@dataclass
class _Readable:
    """What a run may read (see the module doc): the directory as opened (``top``, None when it did not
    exist: nothing in it is read), the moment it was opened (``fence_ns``, a ctime), its subdirectories
    then (name -> device and inode), and the answers the run got itself (key -> reply)."""

    top: int | None
    fence_ns: int
    subdirectories: dict[str, tuple[int, int]]
    own: dict[str, ModelReply] = field(default_factory=dict)

    @classmethod
    def open(cls, directory: Path) -> _Readable:
        try:
            top = os.open(directory, _DIRECTORY)
        except OSError:
            return cls(None, 0, {})
        subdirectories = {}
        for name in os.listdir(top):
            if len(name) == 2 and all(c in "0123456789abcdef" for c in name):
                with contextlib.suppress(OSError):
                    info = os.stat(name, dir_fd=top, follow_symlinks=False)
                    if stat.S_ISDIR(info.st_mode):
                        subdirectories[name] = (info.st_dev, info.st_ino)
        readable = cls(top, _stamp_now(top) or time.time_ns(), subdirectories)
        weakref.finalize(readable, os.close, top)
        return readable

    def settle(self) -> None:
        """Wait until what is written in the directory gets a change time later than the fence (at
        most ``SETTLE_S``; past it, an entry stamped at the fence itself is not read either)."""
        if self.top is None:
            return
        deadline = time.monotonic() + SETTLE_S
        while time.monotonic() < deadline:
            now = _stamp_now(self.top)
            if now is None or now > self.fence_ns:  # nothing can be written there, or the clock moved
                return
            time.sleep(0.001)
        self.fence_ns -= 1


SETTLE_S = 2.0  # the longest wait for the file system's clock to move (ext4, xfs, tmpfs: a tick or less)


def _stamp_now(top: int) -> int | None:
    """The change time the file system gives a file made now in the directory ``top`` (the clock
    entries are stamped with, at its granularity); None when nothing can be made there."""
    name = f".tool-eval-gate-fence-{secrets.token_hex(8)}"
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_LINK, 0o600, dir_fd=top)
    except OSError:
        return None
    try:
        return os.fstat(fd).st_ctime_ns
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=top)


class ResponseCache:
    """A directory of recorded replies. Safe to share between concurrent tasks and threads:
    files are replaced atomically, and concurrent identical requests share one model call."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        mode: CacheMode = "use",
        note: str = "",
        *,
        readable: _Readable | None = None,
    ):
        if mode not in ("use", "record", "replay"):
            raise ValueError(f"unknown cache mode {mode!r}")
        self.directory = Path(directory)
        self.mode: CacheMode = mode
        self.note = note  # where the answers come from, when the run should say it (open_cache)
        self.hits = 0
        self.misses = 0
        self.store_errors: list[str] = []  # entries that could not be written (the run goes on)
        self._pending: dict[str, asyncio.Future[ModelReply]] = {}
        # Cache files get committed and uploaded: a key the model echoed must not be stored.
        self._redactor = Redactor.from_env(os.environ)
        self._readable = readable if readable is not None else _Readable.open(self.directory)

    def settle(self) -> None:
        """Called before the first command starts: from then on whatever is written into the directory
        is stamped later than what this run may read (see the module doc)."""
        self._readable.settle()

    def counted_apart(self) -> ResponseCache:
        """The same cache (what it may read, the answers got so far) with counters of its own."""
        return ResponseCache(self.directory, self.mode, self.note, readable=self._readable)

    def path_for(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def load(self, key: str) -> ModelReply | None:
        """The reply for ``key``: this run's own, or the stored one; None when absent, written or
        changed since the cache was opened, unreadable, not a regular file reached without a link,
        larger than the bound, corrupt or another key's (each a miss)."""
        own = self._readable.own.get(key)
        if own is not None:
            return own
        raw = _read_entry(self._readable, key)
        if raw is None:
            return None
        try:
            data = json.loads(raw, parse_int=_bounded_int)
            return ModelReply.from_dict(data["reply"]) if data["key"] == key else None
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None

    def store(self, key: str, request: ModelRequest, trial: int, reply: ModelReply) -> None:
        self._readable.own[key] = reply  # this run's answer, read from memory from now on
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


def provenance(directory: Path, root: Path) -> CacheFacts:
    """Who could have written the answers in ``directory``: only the gate, unless it is reached
    through a symlink below the repository root, or holds files git tracks (a pull request can have
    written either), or git cannot tell."""
    where = str(directory)
    link = _linked_component(directory, root)
    if link:
        return CacheFacts(where, f"is reached through the symlink {link}")
    try:
        tracked = tracked_under(directory)
    except GitUnavailable as exc:
        return CacheFacts(where, f"cannot be checked for files tracked by git ({exc})")
    if tracked:
        return CacheFacts(where, f"holds files tracked by git (e.g. {tracked[0]})", committed=True)
    return CacheFacts(where)


def _linked_component(directory: Path, root: Path) -> str:
    """The first symlink on the way from ``root`` down to ``directory``, or ``directory`` itself when
    it lies outside the repository but a link leads it in; "" when there is none."""
    link = first_link(directory, root)
    if link is not None:
        return str(link)
    lexical, top = Path(os.path.abspath(directory)), Path(os.path.abspath(root))
    if lexical == top or top in lexical.parents:
        return ""
    real, real_top = Path(os.path.realpath(lexical)), Path(os.path.realpath(top))
    return str(lexical) if real == real_top or real_top in real.parents else ""


def _make_own_directory(directory: Path, root: Path) -> None:
    """When the cache is the default one and its ``.tool-eval-gate/`` does not exist yet: create it
    with a ``.gitignore`` that ignores it whole, so that a ``git add -A`` never commits the cache (a
    committed cache is not trusted in CI). Never through a link; a failure is left to the writes."""
    own = Path(os.path.abspath(root)) / Path(CACHE_DIRECTORY).parts[0]
    if Path(os.path.abspath(directory)) != own / Path(*Path(CACHE_DIRECTORY).parts[1:]):
        return
    try:
        os.mkdir(own)
    except OSError:  # it exists (or cannot be made): as it is
        return
    try:
        fd = os.open(own / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_LINK, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("# Created by tool-eval-gate: its response cache is never committed.\n*\n")
    except OSError:
        pass


def open_cache(directory: Path, mode: CacheMode, root: Path, use: CacheUse, note: str = "") -> ResponseCache:
    """The response cache of one run over ``root``, used as the trust decision says (``use``): the
    directory itself, or a temporary cache of the run's own, deleted with it (``private``: the
    directory is neither read nor written). ``note`` is what the run says of its answers."""
    if use == "private":
        private = tempfile.mkdtemp(prefix="tool-eval-gate-cache-")
        cache = ResponseCache(private, mode, note)
        weakref.finalize(cache, shutil.rmtree, private, True)
        return cache
    if mode != "replay":
        _make_own_directory(directory, root)
    return ResponseCache(directory, mode, note)


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


def _read_entry(readable: _Readable, key: str) -> bytes | None:
    """The bytes of ``key``'s entry, read through the directory and subdirectory that were there when
    the cache was opened, without following any link; None unless it is a regular file of at most
    ``MAX_CACHE_ENTRY_BYTES`` unchanged since then (see the module doc)."""
    expected = readable.subdirectories.get(key[:2])
    if readable.top is None or expected is None:
        return None
    try:
        sub = os.open(key[:2], _DIRECTORY | _NO_LINK, dir_fd=readable.top)
        try:  # without blocking: a FIFO placed there must not hang the run
            info = os.fstat(sub)
            same = (info.st_dev, info.st_ino) == expected
            fd = os.open(f"{key}.json", os.O_RDONLY | _NO_LINK | os.O_NONBLOCK, dir_fd=sub) if same else -1
        finally:
            os.close(sub)
    except OSError:
        return None
    if fd < 0:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limits.MAX_CACHE_ENTRY_BYTES:
            return None
        if info.st_ctime_ns > readable.fence_ns:  # written or changed since the cache was opened
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
