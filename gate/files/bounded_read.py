"""Read a file whole, but never more than a size bound: checked with ``fstat`` before reading a
regular file (a sparse 4 GiB file is refused at once) and by reading at most one byte more than the
bound from anything without a size (``/dev/zero``, a pipe, ``/dev/stdin``); a FIFO that nobody
writes to reads as empty instead of blocking."""

from __future__ import annotations

import os
import stat
from pathlib import Path


class TooLarge(Exception):
    """The file is larger than the bound; ``size`` is its size when known (regular files)."""

    def __init__(self, size: int | None, limit: int):
        self.size = size
        self.limit = limit
        shown = f"{size} bytes" if size is not None else "more than the limit"
        super().__init__(f"file too large ({shown}, limit {limit} bytes)")


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of ``path``; raises :class:`TooLarge` past ``limit`` bytes and ``OSError`` as
    ``open`` does (not found, a directory, no permission)."""
    # Opened without blocking: a FIFO nobody writes to then reads as empty instead of hanging.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise TooLarge(info.st_size, limit)
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = handle.read(min(1024 * 1024, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    if total > limit:
        raise TooLarge(None, limit)
    return b"".join(chunks)
