"""The base side of ``run --baseline auto``: the repository as it was at the merge base, read from git.

Nothing here touches the working tree or the index. ``merge_base`` names the commit;
``materialize`` writes that commit's files into a new temporary directory, so that the suite loader
reads the base's suites, prompts, tools and mocks exactly as it reads the head's, resolving every
file reference against the base tree and keeping the base files' own ``path:line`` positions (paths
are relative to the root on both sides). ``changed_lines`` gives the head-side line numbers each
changed file added or modified, so that reports can point at the line that explains a regression.

The tree is read as git stores it: ``git ls-tree`` lists it and ``git cat-file --batch`` streams the
blobs, so ``.gitattributes`` (``export-ignore``, ``export-subst``, filters) changes nothing, no
``tarfile`` (whose extraction filter older Python patch releases lack) is involved, and memory stays
flat whatever the size of the files. Symlinks are written as the symlinks they are (the loader then
treats them exactly as on the head side: one that leaves the tree is refused there, never followed);
every file is created through directory descriptors opened without following links, so no entry of
the tree, however crafted, makes the gate write outside the temporary directory. An absolute symlink
into the working tree points at the same place in the base tree instead (the base's file, not the
head's).

A submodule holds its files at the commit the merge base records, read from the submodule's checkout
in the working tree (its objects: a commit id names its content, whichever repository holds it), so
that a suite reading a file inside a submodule the pull request moved is compared with what it read
before. A submodule the working tree has not checked out stays an empty directory, as on the head
side; one whose checkout lacks that commit (a shallow clone of the submodule) is listed in
``BaseTree.missing_submodules``, so that a suite reading inside it is refused rather than compared
with nothing.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from gate.errors import GateError, InputError, Problem
from gate.git.changes import FETCH_HINT, run_git

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def _git(args: Sequence[str], root: Path) -> subprocess.CompletedProcess[bytes]:
    return run_git(args, root, "--baseline auto")


def _fail(message: str) -> InputError:
    return InputError([Problem("", 0, 0, message, hint=FETCH_HINT)])


def merge_base(ref: str, root: Path) -> str:
    """The commit SHA of the merge base of ``ref`` and HEAD."""
    if not ref or ref.startswith("-"):
        raise InputError(f"--baseline auto: invalid git reference {ref!r}")
    found = _git(["merge-base", "--end-of-options", ref, "HEAD"], root)
    if found.returncode != 0:
        detail = found.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = f" ({detail[-1]})" if detail else ""
        raise _fail(f"--baseline auto: no merge base of {ref!r} and HEAD in this clone{reason}")
    return found.stdout.decode().strip()


def _top_level_prefix(root: Path) -> str:
    inside = _git(["rev-parse", "--show-prefix"], root)
    return inside.stdout.decode("utf-8", "surrogateescape").strip() if inside.returncode == 0 else ""


@dataclass(frozen=True)
class BaseTree:
    """The merge base's files in ``directory`` (the caller cleans it up), and the submodules whose
    commit at the merge base is not in this clone: root-relative path -> that commit."""

    directory: tempfile.TemporaryDirectory[str]
    missing_submodules: Mapping[str, str] = field(default_factory=dict)


def materialize(commit: str, root: Path) -> BaseTree:
    """A temporary directory holding the files under ``root`` as they were at ``commit``, submodules
    included; the directory's path stands for ``root``."""
    prefix = _top_level_prefix(root)
    tree = f"{commit}:{prefix}" if prefix else commit
    listing = _git(["ls-tree", "-r", "-z", "--full-tree", tree], root)
    if listing.returncode != 0:
        detail = listing.stderr.decode("utf-8", "replace").strip().splitlines()
        raise _fail(f"--baseline auto: cannot read commit {commit[:12]} ({detail[-1] if detail else 'git'})")
    entries = list(_entries(listing.stdout))
    directory = tempfile.TemporaryDirectory(prefix="tool-eval-gate-base-")
    try:
        missing = _write_tree(entries, directory.name, root, _Relink.of(root, directory.name))
    except OSError as exc:  # a full disk, say: the base side cannot be read, and the run says why
        directory.cleanup()
        raise GateError(
            f"--baseline auto: cannot write the merge base's {len(entries)} file(s) to "
            f"{tempfile.gettempdir()} ({exc.strerror or exc}); free space there or point TMPDIR elsewhere"
        ) from None
    except BaseException:
        directory.cleanup()
        raise
    return BaseTree(directory, missing)


@dataclass(frozen=True)
class _Entry:
    """One entry of ``git ls-tree -r``: its mode, object id and path components (bytes, as stored)."""

    mode: str
    oid: str
    parts: tuple[bytes, ...]


_FILE_MODES = {"100644": 0o644, "100755": 0o755, "100664": 0o644}  # 100664: old git's group-writable
_SYMLINK, _SUBMODULE = "120000", "160000"


def _entries(listing: bytes) -> Iterator[_Entry]:
    """The entries of ``ls-tree -r -z`` output; paths with a component no checkout would write
    (empty, ``.``, ``..``, ``.git``) are left out (git's own fsck refuses such trees)."""
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        fields = meta.decode("ascii", "replace").split()
        if len(fields) != 3 or not path:
            continue
        parts = tuple(path.split(b"/"))
        if any(part in (b"", b".", b"..") or part.lower() == b".git" for part in parts):
            continue
        yield _Entry(fields[0], fields[2], parts)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW


# What a name of the tree that no checkout could write either gets from the system: the entry is
# left out. Anything else (a full disk, too many open files) stops the base side with its reason.
_UNWRITABLE_NAME = (errno.EEXIST, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG, errno.EINVAL, errno.EILSEQ)


class _Directories:
    """Descriptors of the directories on the way from the destination to the last one used: the
    listing is in tree order, so at most the tree's depth is open at once, however many directories
    it has (one descriptor per directory ran out at the process's limit, 1,024 or 256 on many
    machines, and every later directory was silently left out). A directory is made with ``mkdir``
    and opened without following a link, so an entry whose parent is not a real directory of this
    tree (a symlink written by an earlier entry, say) is skipped, never followed."""

    def __init__(self, top: str | int):
        self._top = os.dup(top) if isinstance(top, int) else os.open(top, _DIR_FLAGS)
        self._chain: list[tuple[bytes, int]] = []  # (name, descriptor) from below the top down

    def parent_of(self, parts: tuple[bytes, ...]) -> int | None:
        """The descriptor of the directory ``parts[:-1]``, made as needed; None when it cannot be."""
        return self.directory(parts[:-1])

    def directory(self, parts: tuple[bytes, ...]) -> int | None:
        kept = 0
        while kept < min(len(self._chain), len(parts)) and self._chain[kept][0] == parts[kept]:
            kept += 1
        self._close_from(kept)
        for name in parts[kept:]:
            above = self._chain[-1][1] if self._chain else self._top
            try:
                os.mkdir(name, 0o755, dir_fd=above)
            except FileExistsError:
                pass
            except OSError as exc:
                _left_out(exc)
                return None
            try:
                self._chain.append((name, os.open(name, _DIR_FLAGS, dir_fd=above)))
            except OSError as exc:  # a symlink or a file already stands there
                _left_out(exc)
                return None
        return self._chain[-1][1] if self._chain else self._top

    def _close_from(self, depth: int) -> None:
        for _, fd in self._chain[depth:]:
            os.close(fd)
        del self._chain[depth:]

    def close(self) -> None:
        self._close_from(0)
        os.close(self._top)


def _left_out(exc: OSError) -> None:
    """Leave the entry out when no checkout could write it either; raise ``exc`` otherwise."""
    if exc.errno in _UNWRITABLE_NAME:
        return None
    raise exc


@dataclass(frozen=True)
class _Relink:
    """Where an absolute symlink into the working tree (``roots``: its path as written and its real
    path) points in the base tree (``base``): at the same file there, never at the working tree's."""

    roots: tuple[bytes, ...]
    base: bytes

    @staticmethod
    def of(root: Path, base: str) -> _Relink:
        written, real = os.fsencode(os.path.abspath(root)), os.fsencode(os.path.realpath(root))
        return _Relink((written, real), os.fsencode(base))

    def target(self, target: bytes) -> bytes:
        for root in self.roots:
            if target == root or target.startswith(root.rstrip(b"/") + b"/"):
                return self.base + target[len(root.rstrip(b"/")) :]
        return target


def _write_tree(
    entries: Sequence[_Entry], destination: str | int, root: Path, relink: _Relink, where: str = ""
) -> dict[str, str]:
    """Write ``entries`` (read from the repository at ``root``) under ``destination`` (a path, or a
    directory descriptor): blobs as files (streamed from ``git cat-file``), symlinks as symlinks,
    submodules as directories holding their files (:func:`_write_submodule`). Returns the submodules
    whose commit is not in this clone (``where``: the path of ``root`` in the tree)."""
    blobs = [e for e in entries if e.mode in _FILE_MODES or e.mode == _SYMLINK]
    submodules = [e for e in entries if e.mode == _SUBMODULE]
    directories = _Directories(destination)
    missing: dict[str, str] = {}
    try:
        for entry in submodules:
            directories.directory(entry.parts)
        with _BlobStream([e.oid for e in blobs], root) as stream:
            for entry in blobs:
                content = stream.next_blob()
                parent = directories.parent_of(entry.parts)
                if parent is None:
                    content.skip()
                elif entry.mode == _SYMLINK:
                    _symlink(relink.target(content.read_all()), entry.parts[-1], parent)
                else:
                    _write_file(content, entry.parts[-1], _FILE_MODES[entry.mode], parent)
        for entry in submodules:
            inside = directories.directory(entry.parts)
            if inside is not None:
                missing.update(_write_submodule(entry, inside, root, relink, where))
    finally:
        directories.close()
    return missing


def _write_submodule(
    entry: _Entry, destination: int, root: Path, relink: _Relink, where: str
) -> dict[str, str]:
    """Fill the directory of the submodule ``entry`` with its files at the commit the tree records,
    read from its checkout below ``root``; {its path: that commit} when the checkout lacks it or git
    cannot read the checkout."""
    path = "/".join(os.fsdecode(part) for part in entry.parts)
    checkout = root / path
    if not _checked_out(checkout):  # empty on the head side too
        return {}
    if not _own_work_tree(root, checkout):
        return {where + path: entry.oid}
    listing = _git(["ls-tree", "-r", "-z", "--full-tree", f"{entry.oid}^{{tree}}"], checkout)
    if listing.returncode != 0:
        return {where + path: entry.oid}
    return _write_tree(list(_entries(listing.stdout)), destination, checkout, relink, f"{where}{path}/")


def _checked_out(path: Path) -> bool:
    """Whether ``path`` is a directory (not a symlink) with something in it."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode) and any(os.scandir(path))
    except OSError:
        return False


def _own_work_tree(root: Path, path: Path) -> bool:
    """Whether ``path``, inside ``root``, is the top of a work tree git can read: a submodule's
    checkout (not a directory of the repository around it)."""
    real = os.path.realpath(path)
    if not real.startswith(os.path.realpath(root).rstrip(os.sep) + os.sep):
        return False
    top = _git(["rev-parse", "--show-toplevel"], path)
    return (
        top.returncode == 0
        and os.path.realpath(top.stdout.decode("utf-8", "surrogateescape").strip()) == real
    )


def _symlink(target: bytes, name: bytes, parent: int) -> None:
    try:
        os.symlink(target, name, dir_fd=parent)
    except ValueError:  # a target with a NUL byte: left out
        pass
    except OSError as exc:  # a name already taken: left out
        _left_out(exc)


def _write_file(content: _Blob, name: bytes, mode: int, parent: int) -> None:
    try:
        fd = os.open(name, _NEW_FILE_FLAGS, mode, dir_fd=parent)
    except OSError as exc:  # a name already taken (by a symlink, say): left out, never written through
        _left_out(exc)
        content.skip()
        return
    with os.fdopen(fd, "wb") as handle:
        for chunk in content.chunks():
            handle.write(chunk)


_CHUNK = 1024 * 1024


class _Blob:
    """The content of one blob on the ``cat-file --batch`` stream, ``size`` bytes long; it must be
    consumed (``chunks``, ``read_all`` or ``skip``) before the next one is read."""

    def __init__(self, stream: IO[bytes], size: int):
        self._stream, self._left = stream, size

    def chunks(self) -> Iterator[bytes]:
        while self._left > 0:
            chunk = self._stream.read(min(_CHUNK, self._left))
            if not chunk:
                raise _fail("--baseline auto: git cat-file ended early")
            self._left -= len(chunk)
            yield chunk
        self._stream.read(1)  # the newline after each object

    def read_all(self) -> bytes:
        return b"".join(self.chunks())

    def skip(self) -> None:
        for _ in self.chunks():
            pass


class _BlobStream:
    """``git cat-file --batch`` fed with object ids by a thread (so that neither pipe can fill up
    and stall the other), read one blob at a time."""

    def __init__(self, oids: Sequence[str], root: Path):
        self._oids = oids
        self._root = root
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> _BlobStream:
        self._process = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=self._root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        threading.Thread(target=self._feed, daemon=True).start()
        return self

    def _feed(self) -> None:
        assert self._process is not None and self._process.stdin is not None
        try:
            with self._process.stdin as stdin:
                for oid in self._oids:
                    stdin.write(oid.encode("ascii") + b"\n")
        except OSError:  # git ended early: the reader says why
            pass

    def next_blob(self) -> _Blob:
        assert self._process is not None and self._process.stdout is not None
        header = self._process.stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            missing = header[0].decode("ascii", "replace")[:12] if header else "?"
            raise _fail(f"--baseline auto: git cannot read object {missing} of the merge base")
        return _Blob(self._process.stdout, int(header[2]))

    def __exit__(self, *exc: object) -> None:
        assert self._process is not None
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._process.kill()
        self._process.wait()


def changed_lines(commit: str, root: Path, paths: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """Path (relative to ``root``) -> the head-side lines added or modified since ``commit``
    (the working tree included); a changed submodule among ``paths`` gives the lines of the files
    that changed inside it (``vendor/tools/forecast.json``). Files whose changes are only deletions
    map to the line after."""
    if not paths:
        return {}
    diff = _git(
        [
            *("diff", "--no-color", "--no-renames", "--relative", "-U0", "--no-ext-diff", "--no-textconv"),
            *("--ignore-submodules=none", "--submodule=diff", commit, "--", *paths),
        ],
        root,
    )
    if diff.returncode != 0:
        return {}
    result: dict[str, list[int]] = {}
    current: list[int] | None = None
    for raw in diff.stdout.decode("utf-8", "replace").splitlines():
        if raw.startswith("+++ "):
            name = raw[4:]
            current = result.setdefault(name[2:], []) if name.startswith("b/") else None
            continue
        header = _HUNK.match(raw)
        if header and current is not None:
            start = int(header.group(1))
            count = int(header.group(2)) if header.group(2) is not None else 1
            current.extend(range(start, start + count) if count else [start + 1])
    return {path: tuple(sorted(set(lines))) for path, lines in result.items() if lines}
