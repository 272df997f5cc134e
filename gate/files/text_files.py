"""Input files read: the text of a suite, prompt, tool, mock or data file with the guards every input
file gets (a regular file, its size bound, not binary, UTF-8), and a YAML or JSON file read and parsed
(:func:`gate.files.yaml_source.parse`)."""

from __future__ import annotations

from pathlib import Path

from gate import limits
from gate.errors import Problem
from gate.files.yaml_source import YamlDocument, YamlError, parse

MAX_FILE_BYTES = limits.MAX_FILE_BYTES  # 1 MiB: far more than any real suite, prompt or tool file


def _wide_encoding(raw: bytes) -> str:
    """ "UTF-16" / "UTF-32" when ``raw`` is text in one of them (a byte order mark, or the NUL byte
    every other byte that ASCII text in UTF-16 has); empty otherwise."""
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    head = raw[:200]
    if len(head) >= 4 and (head[1::2].count(0) == len(head) // 2 or head[0::2].count(0) == len(head) // 2):
        return "UTF-16"
    return ""


def read_text(file: Path, display_path: str, *, max_bytes: int = MAX_FILE_BYTES) -> str:
    """Read a text file with the guards every input file gets: exists, regular file, size limit,
    not binary, UTF-8 (a BOM is dropped). Raises :class:`YamlError`."""

    def fail(message: str, hint: str = "", line: int = 0, column: int = 0) -> YamlError:
        return YamlError([Problem(display_path, line, column, message, hint)])

    try:
        if not file.is_file():
            if file.exists():
                raise fail("not a regular file", "point at a file, not a directory")
            raise fail("file not found", "check the path; it is relative to the suite file's directory")
        size = file.stat().st_size
        if size > max_bytes:
            raise fail(
                f"file too large ({size} bytes, limit {max_bytes})",
                "split it into smaller files",
            )
        raw = file.read_bytes()
    except OSError as exc:
        raise fail(f"cannot read file: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:  # the file grew between stat and read
        raise fail(f"file too large (limit {max_bytes} bytes)", "split it into smaller files")
    encoding = _wide_encoding(raw)
    if encoding:
        raise fail(f"the file is {encoding} text, expected UTF-8", "save the file as UTF-8", 1, 1)
    if b"\x00" in raw:
        offset = raw.index(b"\x00")
        line = raw.count(b"\n", 0, offset) + 1
        raise fail("binary file (contains NUL bytes), expected UTF-8 text", "", line, 1)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise fail(
            f"not valid UTF-8 text (byte 0x{raw[exc.start]:02x})", "save the file as UTF-8", line, column
        ) from None
    return text.removeprefix("\ufeff")


def load_file(file: Path, display_path: str, *, max_bytes: int = MAX_FILE_BYTES) -> YamlDocument:
    """Read and parse a YAML or JSON file. Raises :class:`YamlError` with located problems."""
    text = read_text(file, display_path, max_bytes=max_bytes)
    return parse(text, display_path, json_fallback=file.suffix.lower() == ".json")
