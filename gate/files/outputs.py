"""Write every requested output of a run (JSON results, JUnit XML, Markdown, HTML), rendered from its
conclusion.

The one place of the report side that writes files. Output paths are checked *before* the run
(:func:`check_outputs`, called by ``run`` and ``report`` before the first model request), so that
a path that can never be written is an input error (exit 2) and not a failure after the paid work:

- a path that does not exist yet, or a regular file: written to a temporary file in the same
  directory and renamed over it (a reader never sees half a report). A symlink is written through:
  the file it points at is replaced, the link stays. A regular file in a directory we may not write
  (no temporary file possible) is overwritten in place;
- ``-`` (standard output), a character device, a FIFO or a pipe (``/dev/stdout``, ``/dev/null``,
  ``>(cat)`` process substitution, a named pipe), and a descriptor's link under ``/dev/`` or ``/proc/``
  whatever it points at: opened for writing at check time and written through at the end, never replaced
  (``--json /dev/stdout > out.txt`` appends to ``out.txt``);
- a directory, a block device, a socket, a symlink loop, a path with a NUL byte, a name too long,
  a parent that is not a directory or not writable, the same file for two outputs: refused;
- in CI (``no_links_below``, the repository root): a path inside the repository reached through a
  symlink is refused. A pull request can commit one (``out/junit.xml -> ~/.local/lib/...``), and the
  gate would write its report through it, outside the checkout, for a later step to run.

Writing at the end never loses the run: each output is rendered and written on its own; if one
cannot be, the others are still written, the JSON results are saved to a rescue file when they were
not written themselves, and :class:`OutputsNotWritten` (exit 3) says where. Text that cannot be
encoded as UTF-8 (a lone surrogate a model produced) is written as a ``\\udXXX`` escape, which in
the JSON results is the JSON escape of the very same string.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from gate.errors import EXIT_INCOMPLETE, GateError, InputError, Problem
from gate.files.links import first_link
from gate.reports.markdown import SUMMARY_LIMIT
from gate.verdict.conclusion import Conclusion

_STREAM_PREFIXES = ("/dev/", "/proc/")

WriteMode = Literal["replace", "in_place", "stream"]


@dataclass(frozen=True)
class OutputTarget:
    """A checked output path: ``path`` as the user gave it, ``file`` where the text goes (symlinks
    followed), ``mode`` how it is written, and ``fd`` the descriptor opened at check time (streams)."""

    path: str
    file: Path
    mode: WriteMode
    fd: int | None = None

    def write(self, text: str) -> None:
        data = text.encode("utf-8", "backslashreplace")
        if self.mode == "stream":
            assert self.fd is not None
            for stream in (sys.stdout, sys.stderr):  # what was printed before comes first
                stream.flush()
            _write_all(self.fd, data)
        elif self.mode == "in_place":
            with open(self.file, "wb") as handle:
                handle.write(data)
        else:
            _replace(self.file, data)

    def close(self) -> None:
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass


class OutputsNotWritten(GateError):
    """Some outputs could not be written after the run; the rest were, and the results were rescued."""

    exit_code = EXIT_INCOMPLETE


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _replace(target: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file next to ``target`` and rename it over ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=".tmp", dir=str(target.parent))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _open_stream(path: str, what: str) -> int:
    """Open a device, FIFO or /dev, /proc path for writing now (a FIFO without a reader is refused
    instead of blocking the run)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOCTTY | os.O_NONBLOCK
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise _refused(path, f"{what} has no reader", "start the reading process first") from None
        raise _refused(path, f"cannot open {what} for writing: {exc.strerror or exc}") from None
    os.set_blocking(fd, True)
    return fd


def _refused(path: str, message: str, hint: str = "") -> InputError:
    return InputError([Problem(path, 0, 0, f"cannot write output here: {message}", hint)])


def _new_file(path: str, file: Path) -> OutputTarget:
    name_max = 255
    if any(len(part.encode("utf-8", "surrogateescape")) > name_max for part in file.parts):
        raise _refused(path, "the file name is too long", f"choose a name of at most {name_max} bytes")
    ancestor = file.parent
    try:
        while not ancestor.exists() and ancestor != ancestor.parent:
            if ancestor.is_symlink():
                raise _refused(path, f"{ancestor} is a broken symlink")
            ancestor = ancestor.parent
    except OSError as exc:  # e.g. a path the system refuses to look at
        raise _refused(path, exc.strerror or str(exc)) from None
    if not ancestor.is_dir():
        raise _refused(path, f"{ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise _refused(path, f"the directory {ancestor} is not writable")
    return OutputTarget(path, file, "replace")


def _refuse_links(path: str, no_links_below: Path | None) -> None:
    link = first_link(Path(path), no_links_below) if no_links_below is not None else None
    if link is not None:
        raise _refused(
            path,
            f"{link} is a symlink inside the repository, and in CI the gate never writes through one "
            "(a pull request can commit one to make the gate write outside the checkout)",
            "write to a path without links (remove the link from the repository)",
        )


def check_option_output(option: str, path: str, no_links_below: Path | None = None) -> OutputTarget:
    """``check_output`` of the path an option (``--json``) names; its problems say the option."""
    try:
        return check_output(path, no_links_below)
    except InputError as exc:
        raise InputError(
            [Problem(p.path, 0, 0, f"{option}: {p.message}", p.hint) for p in exc.problems]
        ) from None


def check_output(path: str, no_links_below: Path | None = None) -> OutputTarget:
    """Check one output path before the run (see the module doc). Raises ``InputError``."""
    if not path:
        raise _refused(path, "the path is empty")
    if path == "-":  # the usual name of standard output
        return OutputTarget(path, Path("/dev/stdout"), "stream", os.dup(sys.stdout.fileno()))
    if "\x00" in path:
        raise _refused(path.replace("\x00", "\\0"), "the path contains a NUL character")
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        raise _refused(
            path.encode("utf-8", "backslashreplace").decode(), "the path cannot be a file name"
        ) from None
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refused(path, "a symlink loop") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise _refused(path, "the file name is too long", "choose a shorter name") from None
        if exc.errno == errno.ENOTDIR:
            raise _refused(path, "a parent of it is not a directory") from None
        if exc.errno != errno.ENOENT:
            raise _refused(path, exc.strerror or str(exc)) from None
        _refuse_links(path, no_links_below)
        return _new_file(path, Path(os.path.realpath(path)))
    _refuse_links(path, no_links_below)
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise _refused(path, "it is a directory", "give a file name, e.g. DIR/results.json")
    if stat.S_ISBLK(mode):
        raise _refused(path, "it is a block device")
    if stat.S_ISSOCK(mode):
        raise _refused(path, "it is a socket")
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        what = "the device" if stat.S_ISCHR(mode) else "the FIFO"
        return OutputTarget(path, Path(path), "stream", _open_stream(path, what))
    if os.path.abspath(path).startswith(_STREAM_PREFIXES) and os.path.islink(path):
        # /dev/stdout, /dev/fd/N, /proc/self/fd/N: the descriptor's file, written through (appended)
        return OutputTarget(path, Path(path), "stream", _open_stream(path, "the file"))
    file = Path(os.path.realpath(path))
    if os.access(file.parent, os.W_OK | os.X_OK):
        return OutputTarget(path, file, "replace")
    if os.access(file, os.W_OK):
        return OutputTarget(path, file, "in_place")
    raise _refused(path, "the file and its directory are not writable")


def clear_outputs(
    paths: Iterable[str | None],
    *,
    keep: Iterable[str | None] = (),
    links_below: Path | None = None,
    brought: Callable[[str], bool] = lambda path: True,
) -> None:
    """Before anything else, also before an exit on invalid input: remove from the output paths what
    the checkout brought there, so that what a later step uploads from them is never a file a pull
    request committed (a passing ``results.json`` made elsewhere, beside a suite that cannot load, is
    what the workflow's ``if: always()`` upload would take as the gate's). A regular file is removed
    when ``brought`` says the checkout brought it (``run`` and ``report``: git tracks it; the action:
    every file of its own output directory); with ``links_below`` (the action's workspace) a symlink on
    the way to the path below it is removed too (the link itself, never its target: such a path is
    refused anyway, and the upload would follow the link). Streams (``-``, devices, FIFOs, ``/dev/``,
    ``/proc/``) and the command's inputs (``keep``: ``--rerun-failed out/results.json --json
    out/results.json`` reads what it then replaces) are left alone."""
    kept = {os.path.realpath(path) for path in keep if path}
    for path in paths:
        if not path or path == "-" or "\x00" in path or os.path.abspath(path).startswith(_STREAM_PREFIXES):
            continue
        link = first_link(Path(path), links_below) if links_below is not None else None
        try:
            if link is not None:
                os.unlink(link)
            elif (
                stat.S_ISREG(os.lstat(path).st_mode) and os.path.realpath(path) not in kept and brought(path)
            ):
                os.unlink(path)
        except (OSError, ValueError):
            pass  # nothing there, or nothing we may remove: the checks before the run say what is wrong


def check_directory(path: Path, option: str, *, writable: bool = True) -> None:
    """A directory the run will write into (the response cache): it exists as a directory, or can
    be created, and (``writable``) can be written. Raises ``InputError`` before the run."""
    text = str(path)
    if "\x00" in text:
        raise _refused(text.replace("\x00", "\\0"), f"{option}: the path contains a NUL character")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if writable:  # its parent chain must allow creating it
            _new_file(text, Path(os.path.realpath(path)) / "entry")
        return
    except OSError as exc:
        raise _refused(text, f"{option}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise _refused(text, f"{option}: it is not a directory")
    if writable and not os.access(path, os.W_OK | os.X_OK):
        raise _refused(text, f"{option}: the directory is not writable")


@dataclass(frozen=True)
class OutputPlan:
    """The checked outputs of one command; ``close`` releases the streams opened for them."""

    json: OutputTarget | None = None
    junit: OutputTarget | None = None
    markdown: OutputTarget | None = None
    html: OutputTarget | None = None
    fix_patch: OutputTarget | None = None

    def targets(self) -> list[OutputTarget]:
        return [t for t in (self.json, self.junit, self.markdown, self.html, self.fix_patch) if t is not None]

    def close(self) -> None:
        for target in self.targets():
            target.close()


class ReportPaths(Protocol):
    """Where a command writes its reports, as ``run``'s and ``report``'s plans say (None: not asked)."""

    @property
    def json(self) -> str | None: ...
    @property
    def junit(self) -> str | None: ...
    @property
    def markdown(self) -> str | None: ...
    @property
    def html(self) -> str | None: ...
    @property
    def fix_patch(self) -> str | None: ...


def check_outputs(paths: ReportPaths, *, no_links_below: Path | None = None) -> OutputPlan:
    """Check every output path of ``paths`` before any work; ``InputError`` lists every path that
    cannot work. ``no_links_below``: the repository root in CI (see the module doc)."""
    targets: dict[str, OutputTarget | None] = {}
    problems: list[Problem] = []
    seen: dict[Path, str] = {}
    asked = (
        ("--json", paths.json),
        ("--junit", paths.junit),
        ("--markdown", paths.markdown),
        ("--html", paths.html),
        ("--fix-patch", paths.fix_patch),
    )
    for option, path in asked:
        targets[option] = None
        if path is None:
            continue
        try:
            target = check_option_output(option, path, no_links_below)
        except InputError as exc:
            problems += exc.problems
            continue
        if target.mode != "stream" and target.file in seen:
            problems.append(Problem(path, 0, 0, f"{option}: the same file as {seen[target.file]}"))
            target.close()
            continue
        seen[target.file] = option
        targets[option] = target
    plan = OutputPlan(
        targets["--json"],
        targets["--junit"],
        targets["--markdown"],
        targets["--html"],
        targets["--fix-patch"],
    )
    if problems:
        plan.close()
        raise InputError(problems)
    return plan


def _as_target(path: str | Path | OutputTarget | None) -> OutputTarget | None:
    if path is None or isinstance(path, OutputTarget):
        return path
    return check_output(str(path))


def write_outputs(
    conclusion: Conclusion,
    *,
    json_path: str | Path | OutputTarget | None = None,
    junit_path: str | Path | OutputTarget | None = None,
    markdown_path: str | Path | OutputTarget | None = None,
    html_path: str | Path | OutputTarget | None = None,
    patch_path: str | Path | OutputTarget | None = None,
    marker: str = "default",
    markdown_limit: int = SUMMARY_LIMIT,
    full_report_hint: str = "",
) -> None:
    """Render ``conclusion`` into the requested files.

    Paths not checked beforehand are checked here. The Markdown file is the job-summary form
    (``markdown_limit``, 1 MiB by default), and names the HTML report when there is one. The patch
    holds the verified edits the results carry (``--fix-patch``), empty when none was verified. Raises
    :class:`OutputsNotWritten` after writing all it could when an output could not be written."""
    from gate.results_json.codec import gc_paused, to_json
    from gate.util.escape import md_inline_code

    results = conclusion.results
    json_target, junit_target, markdown_target, html_target = (
        _as_target(json_path),
        _as_target(junit_path),
        _as_target(markdown_path),
        _as_target(html_path),
    )
    html_report = md_inline_code(html_target.path) if html_target is not None else ""

    def junit() -> str:
        from gate.reports.junit import render as render_junit

        return render_junit(conclusion)

    def markdown() -> str:
        from gate.reports.markdown import render as render_markdown

        return render_markdown(
            conclusion,
            limit=markdown_limit,
            full_report_hint=full_report_hint,
            marker=marker,
            html_report=html_report,
        )

    def html() -> str:
        from gate.reports.html import render as render_html

        return render_html(conclusion)

    jobs: list[tuple[OutputTarget, Callable[[], str]]] = []
    if json_target is not None:
        jobs.append((json_target, lambda: to_json(results, conclusion.comparison, conclusion.verdict)))
    if junit_target is not None:
        jobs.append((junit_target, junit))
    if markdown_target is not None:
        jobs.append((markdown_target, markdown))
    if html_target is not None:
        jobs.append((html_target, html))
    patch_target = _as_target(patch_path)
    if patch_target is not None:
        jobs.append((patch_target, lambda: results.fixes.patch if results.fixes is not None else ""))
    failed: list[str] = []
    with gc_paused():  # rendering allocates millions of short-lived containers and no cycles
        for target, render in jobs:
            try:
                target.write(render())
            except Exception as exc:  # noqa: BLE001 - one output failing must not lose the others
                failed.append(f"{target.path}: {type(exc).__name__}: {exc}")
        if failed:
            rescued = ""
            if json_target is None or any(f.startswith(f"{json_target.path}:") for f in failed):
                rescued = _rescue(to_json(results))
            raise OutputsNotWritten(_not_written_message(failed, rescued))


def _rescue(text: str) -> str:
    """Save the JSON results to a new file in the working directory (or the temporary directory)."""
    for directory in (os.getcwd(), tempfile.gettempdir()):
        try:
            fd, name = tempfile.mkstemp(prefix="tool-eval-gate-results-", suffix=".json", dir=directory)
            with os.fdopen(fd, "wb") as handle:
                handle.write(text.encode("utf-8", "backslashreplace"))
            return name
        except OSError:
            continue
    return ""


def _not_written_message(failed: list[str], rescued: str) -> str:
    lines = ["could not write every output:", *(f"  {line}" for line in failed)]
    if rescued:
        lines.append(
            f"the results are saved in {rescued}; re-render them with: tool-eval-gate report {rescued}"
        )
    return "\n".join(lines)
