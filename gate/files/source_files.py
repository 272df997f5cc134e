"""The repository's source files as texts, for finding where a definition that lives in code is written
(:mod:`gate.assembly.tool_sources`).

The files a server or program names come first (``watch`` globs, files in its argv), then every other
text file under the root that can hold source, documentation last. Hidden directories, virtualenvs,
``node_modules`` and build output are skipped; symlinks out of the repository are never read; each file
is bounded by ``MAX_FILE_BYTES`` and the whole by ``MAX_SOURCE_FILES`` files and ``MAX_SOURCE_BYTES``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gate.files.discovery import inside, walk_repository
from gate.limits import MAX_FILE_BYTES
from gate.util.globs import matches_any

MAX_SOURCE_FILES = 20_000
MAX_SOURCE_BYTES = 64 * 1024 * 1024
_CODE = frozenset(
    ".py .pyi .ts .tsx .mts .cts .js .jsx .mjs .cjs .go .rs .java .kt .kts .scala .rb .php .cs .swift .ex "
    ".exs .lua .json .yaml .yml .toml".split()
)
_DOCS = frozenset(".md .txt .rst".split())


@dataclass(frozen=True)
class Sources:
    """Repository-relative path -> text, and the files to look in first."""

    texts: dict[str, str]
    first: tuple[str, ...]


def read_source(path: Path) -> str | None:
    """The text of a regular file within the size bound (None: not one, too large, or not UTF-8)."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return None
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES or b"\0" in data:
            return None
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def glob_files(root: Path, real_root: Path, globs: Sequence[str]) -> list[str]:
    """The regular files inside the repository that the globs (:mod:`gate.util.globs`, as change
    detection reads them) match, sorted."""
    if not globs:
        return []
    found: list[str] = []
    for dirpath, _, filenames in walk_repository(root):
        for name in filenames:
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            if matches_any(globs, rel) and path.is_file() and inside(path.resolve(), real_root):
                found.append(rel)
    return sorted(found)


def read_sources(root: Path, real_root: Path, first: Sequence[str], *, only_first: bool = False) -> Sources:
    """The source files under ``root`` (``first`` ones first; with ``only_first``, those alone),
    bounded as the module doc says."""
    texts: dict[str, str] = {}
    total = 0
    for rel in [*first, *([] if only_first else _candidates(root))]:
        if rel in texts or len(texts) >= MAX_SOURCE_FILES:
            continue
        path = root / rel
        if not inside(path.resolve(), real_root):
            continue
        text = read_source(path)
        if text is None or total + len(text) > MAX_SOURCE_BYTES:
            continue
        total += len(text)
        texts[rel] = text
    return Sources(texts, tuple(r for r in first if r in texts))


def _candidates(root: Path) -> list[str]:
    code: list[str] = []
    docs: list[str] = []
    for dirpath, _, filenames in walk_repository(root):
        for name in filenames:
            suffix = os.path.splitext(name)[1].lower()
            if suffix in _CODE or suffix in _DOCS:
                rel = Path(dirpath, name).relative_to(root).as_posix()
                (code if suffix in _CODE else docs).append(rel)
                if len(code) + len(docs) >= MAX_SOURCE_FILES:
                    return code + docs
    return code + docs
