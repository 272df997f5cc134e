"""Secret redaction: every text the gate writes goes through a ``Redactor`` first.

A ``Redactor`` knows two kinds of secrets:

- the *values* of secret-looking environment variables (``*_API_KEY``, ``*_TOKEN``, ``*_SECRET*``,
  ``*_PASSWORD``, ``GITHUB_TOKEN``, the Action's ``INPUT_GITHUB_TOKEN`` / ``INPUT_*_API_KEY`` ...),
  given to ``Redactor.from_env`` as a mapping (the caller passes ``os.environ``; this module never
  reads the environment itself). Values shorter than 8 characters are ignored: they are not real
  credentials and redacting them would mangle ordinary text;
- well-known credential *shapes*, found by pattern even when they came from somewhere else (a key
  a model echoed back, a token pasted into a suite): OpenAI / Anthropic ``sk-...`` keys, GitHub
  ``ghp_`` / ``gho_`` / ``ghu_`` / ``ghs_`` / ``ghr_`` tokens and ``github_pat_...`` tokens, the
  token after ``Bearer``, and the password in ``scheme://user:password@host`` URLs.

Each known value is also matched in the forms it takes once serialised (JSON string escape, XML /
HTML escape, URL quoting), so that a value is caught whether it is redacted before or after it is
written into a report. The known values form one compiled alternation; it and each shape's pattern
run only when a fast substring test finds something to mask, so clean text costs a few ``in`` checks.

Pure: no I/O. ``RedactingStream`` only delegates to the stream it wraps.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from html import escape as html_escape
from typing import Any, TextIO, TypeVar
from urllib.parse import quote

from gate.util.escape import neutralise_commands
from gate.util.json_types import JsonObject

MASK = "***"
R = TypeVar("R")
MIN_SECRET_LENGTH = 8

# Names of environment variables whose values are secrets: every name that says key, token, secret,
# password, DSN or webhook anywhere (``AZURE_OPENAI_KEY``, ``SENTRY_DSN``, ``SLACK_WEBHOOK_URL``),
# plus the usual suffixes. ``TOKENIZER*`` names a tokenizer, not a token.
_SECRET_NAME = re.compile(
    r"""^(?:
        (?!TOKENIZERS?(?:_|$)).*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|DSN|WEBHOOK|CREDENTIAL).*
        | .*_PAT | .*_AUTH | .*_PASS
    )$""",
    re.IGNORECASE | re.VERBOSE,
)
# Query parameters whose values are credentials (``?api-key=...``, ``&sig=...``), wherever they appear.
_QUERY_SECRET = re.compile(
    r"([?&;](?:[A-Za-z0-9_.\-]*(?:key|token|secret|password|passwd|sig|signature|auth|credential|code)"
    r"[A-Za-z0-9_.\-]*)=)[^&#\s'\"<>]+",
    re.IGNORECASE,
)

# Credential shapes, redacted wherever they appear. Each is tried only when one of its trigger strings
# is in the text (a fast substring test), so clean text costs a few ``in`` checks, not a regex pass.
# The patterns start with a literal where possible (the regex engine then searches for it quickly);
# the lookbehinds make sure a key starts a word ("task-..." is not an "sk-" key).
_SHAPES: tuple[tuple[tuple[str, ...], re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    # OpenAI (sk-..., sk-proj-...) and Anthropic (sk-ant-api03-...) keys.
    (("sk-",), re.compile(r"sk(?<![A-Za-z0-9_]sk)-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}"), MASK),
    # GitHub personal, OAuth, user-to-server, server-to-server (Actions) and refresh tokens.
    (
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        re.compile(r"gh(?<![A-Za-z0-9_]gh)[pousr]_[A-Za-z0-9]{20,}"),
        MASK,
    ),
    # GitHub fine-grained personal access tokens.
    (("github_pat_",), re.compile(r"github_pat_(?<![A-Za-z0-9]github_pat_)[A-Za-z0-9_]{20,}"), MASK),
    # The credential of an HTTP Authorization header (the word "Bearer" stays).
    (("Bearer ", "bearer "), re.compile(r"([Bb])earer [A-Za-z0-9._~+/\-]{12,}=*"), rf"\1earer {MASK}"),
    # The credentials of a Basic Authorization header (base64 of user:password; "Basic" stays).
    (("Basic ", "basic "), re.compile(r"([Bb])asic ([A-Za-z0-9+/]{6,}={0,2})"), lambda m: _basic(m)),  # noqa: PLW0108 - defined below
    # The user info of a URL, https://user:PASSWORD@host (the rest of the URL stays).
    (("://",), re.compile(r"://[^/\s:@'\"<>]{1,256}:[^/\s@'\"<>]{1,256}@"), f"://{MASK}@"),
    # Credentials in a URL's query string (a base URL like https://proxy/v1?api-key=...).
    (("=",), _QUERY_SECRET, rf"\1{MASK}"),
)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable of this name holds a secret."""
    return bool(_SECRET_NAME.match(name))


# What the gate's own settings are, besides the secret-named: the model providers' settings (a base URL
# can carry credentials, and a started program must talk to the gate's proxy, not the provider), the
# action's inputs, and git settings given in the environment (their values can be credentials, such as
# an ``http.extraheader``; a count whose keys were dropped as secret-named would break every git call).
_GATE_SETTINGS = re.compile(r"^(?:OPENAI_|ANTHROPIC_|AZURE_OPENAI_|INPUT_|GIT_CONFIG_(?:COUNT$|KEY_|VALUE_))")


def environment_without_secrets(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment of every process the gate starts (an agent program, an MCP server): ``environ``
    without any secret-named variable (``is_secret_name``) and without the gate's own settings (the
    providers' ``OPENAI_*``, ``ANTHROPIC_*``, ``AZURE_OPENAI_*``, the action's ``INPUT_*``, git's
    ``GIT_CONFIG_COUNT`` / ``_KEY_n`` / ``_VALUE_n``). One rule: such a process may be a pull
    request's code."""
    return {
        name: value
        for name, value in environ.items()
        if not is_secret_name(name) and _GATE_SETTINGS.match(name) is None
    }


def url_credentials(url: str) -> list[str]:
    """The credentials a URL carries: its user name and password, and the values of its query
    parameters (``https://host/v1?api-key=...``); the host and path are not secrets."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    try:
        parts = urlsplit(url.strip())
        found = [parts.username or "", parts.password or ""]
        found += [value for _, value in parse_qsl(parts.query, keep_blank_values=False)]
    except ValueError:  # not a URL after all
        return []
    if parts.username is not None and parts.password is not None:
        # What a client sends for them: "Authorization: Basic base64(user:password)", the user
        # and password as written in the URL or decoded (however short each one is).
        for pair in {
            f"{parts.username}:{parts.password}",
            f"{unquote(parts.username)}:{unquote(parts.password)}",
        }:
            found += [pair, _base64(pair)]
    return [value for value in found if len(value) >= MIN_SECRET_LENGTH]


def _base64(text: str) -> str:
    """``text`` in base64 without its padding (found with or without it)."""
    return base64.b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def _basic(match: re.Match[str]) -> str:
    """A Basic credential masked, when it is one (base64 of text holding a colon); else as it was, so
    that "Basic information" stays text."""
    try:
        decoded = base64.b64decode(match.group(2) + "=" * (-len(match.group(2)) % 4), validate=True)
    except ValueError:
        return match.group(0)
    return f"{match.group(1)}asic {MASK}" if b":" in decoded else match.group(0)


def _variants(value: str) -> set[str]:
    """The forms a secret takes in the outputs: raw, JSON-escaped, XML-escaped, URL-quoted."""
    forms = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}
    forms.add(html_escape(value, quote=True))
    forms.add(html_escape(value, quote=False))
    forms.add(quote(value, safe=""))
    forms |= {_base64(value), _base64(value).replace("+", "-").replace("/", "_")}  # standard, URL-safe
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


def _forms(values: Iterable[str]) -> tuple[str, ...]:
    """Every serialised form of every value, longest first (a value containing another is masked whole)."""
    forms: set[str] = set()
    for value in values:
        forms |= _variants(value)
    return tuple(sorted(forms, key=lambda f: (-len(f), f)))


@dataclass(frozen=True)
class Redactor:
    """Replaces known secret values and credential shapes with ``***``.

    Build it with ``Redactor.from_env(os.environ)`` (or ``Redactor(secrets=(...))``); it is immutable
    and cheap to call. ``Redactor()`` still masks the credential shapes.
    """

    secrets: tuple[str, ...] = ()
    # Derived: the serialised forms of the secrets, and one alternation matching any of them.
    forms: tuple[str, ...] = field(init=False, repr=False, compare=False)
    pattern: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kept = tuple(sorted({s for s in self.secrets if len(s) >= MIN_SECRET_LENGTH}))
        forms = _forms(kept)
        object.__setattr__(self, "secrets", kept)
        object.__setattr__(self, "forms", forms)
        object.__setattr__(self, "pattern", re.compile("|".join(map(re.escape, forms))) if forms else None)

    @classmethod
    def from_env(cls, env: Mapping[str, str], extra: Iterable[str] = ()) -> Redactor:
        """A redactor for the secret-looking variables of ``env``, the credentials inside every URL
        the environment holds (``OPENAI_BASE_URL``'s user info and query values), plus ``extra``."""
        values = [value.strip() for name, value in env.items() if value and is_secret_name(name)]
        values += [part for value in env.values() if "://" in value for part in url_credentials(value)]
        values += [value.strip() for value in extra if value]
        # A multi-line value (a PEM key) is masked line by line as well as whole.
        lines = [line.strip() for value in values if "\n" in value for line in value.splitlines()]
        return cls(secrets=tuple(v for v in [*values, *lines] if len(v) >= MIN_SECRET_LENGTH))

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``***``."""
        if not text:
            return text
        if self.pattern is not None and any(form in text for form in self.forms):
            text = self.pattern.sub(MASK, text)
        for triggers, shape, replacement in _SHAPES:
            if any(trigger in text for trigger in triggers):
                text = shape.sub(replacement, text)
        return text

    def redact_obj(self, obj: Any) -> Any:
        """A copy of JSON-like data (dicts, lists, tuples, strings, scalars) with every string redacted.

        Dictionary keys are redacted too; other values (numbers, booleans, None, anything else) are
        returned unchanged."""
        if isinstance(obj, str):
            return self.redact(obj)
        if isinstance(obj, dict):
            return {(self.redact(k) if isinstance(k, str) else k): self.redact_obj(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.redact_obj(v) for v in obj]
        if isinstance(obj, tuple):
            return tuple(self.redact_obj(v) for v in obj)
        return obj

    def redact_results(self, results: R) -> R:
        """A ``gate.results.outcomes.RunResults`` with every secret masked, in every trial's run record,
        failure and check, and in the run's own texts (its base side's too). Each trial is probed with
        one JSON dump and one ``redact`` pass; only a trial that holds a secret is rebuilt, so a clean
        10,000-case result costs a fraction of a second and returns the very same object."""
        suites = []
        for suite in results.suites:  # type: ignore[attr-defined]
            cases = []
            for case in suite.cases:
                trials = tuple(self._redact_trial(trial) for trial in case.trials)
                if any(new is not old for new, old in zip(trials, case.trials, strict=True)):
                    case = dataclasses.replace(case, trials=trials)
                cases.append(case)
            if any(new is not old for new, old in zip(cases, suite.cases, strict=True)):
                suite = dataclasses.replace(suite, cases=tuple(cases))
            suites.append(suite)
        changes: JsonObject = {}
        if any(new is not old for new, old in zip(suites, results.suites, strict=True)):  # type: ignore[attr-defined]
            changes["suites"] = tuple(suites)
        for name in ("incomplete_reason", "unverified", "settings", "fixes"):  # fixes: --suggest-fixes's
            value = getattr(results, name, None)
            new_value = self._walk(value)
            if new_value is not value:
                changes[name] = new_value
        base = getattr(results, "base", None)  # the base side of --baseline auto, masked alike
        if base is not None and (new_base := self.redact_results(base)) is not base:
            changes["base"] = new_base
        return dataclasses.replace(results, **changes) if changes else results  # type: ignore[type-var]

    def _redact_trial(self, trial: Any) -> Any:
        record = trial.record
        probe = json.dumps(
            [
                record.input,
                record.output,
                record.error,
                record.log,
                record.messages,
                [
                    (c.id, c.name, c.raw_arguments, c.arguments, c.arguments_error, c.result)
                    for c in record.calls
                ],
                record.extra,
                [
                    (f.message, f.tool, f.argument, f.expected, f.actual, f.expected_tool)
                    for f in trial.failures
                ],
                [(c.detail, c.rationale) for c in trial.checks],
            ],
            ensure_ascii=False,
            default=_fields,
        )
        if self.redact(probe) == probe:
            return trial
        return self._walk(trial)

    def _walk(self, obj: Any) -> Any:
        if isinstance(obj, str):
            return self.redact(obj)
        if isinstance(obj, (int, float, bool)) or obj is None:
            return obj
        if isinstance(obj, dict):
            changed = False
            out = {}
            for key, value in obj.items():
                new_key = self.redact(key) if isinstance(key, str) else key
                new_value = self._walk(value)
                changed = changed or new_key is not key or new_value is not value
                out[new_key] = new_value
            return out if changed else obj
        if isinstance(obj, (list, tuple)):
            items = [self._walk(v) for v in obj]
            if all(a is b for a, b in zip(items, obj, strict=True)):
                return obj
            return items if isinstance(obj, list) else tuple(items)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            changes = {}
            for f in dataclasses.fields(obj):
                if not f.init:
                    continue
                value = getattr(obj, f.name)
                new_value = self._walk(value)
                if new_value is not value:
                    changes[f.name] = new_value
            return dataclasses.replace(obj, **changes) if changes else obj
        return obj


def _fields(value: Any) -> Any:
    """What JSON cannot hold, for the probe: a dataclass (a message, a tool call) as its fields."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    return str(value)


class RedactingStream:
    """A text stream wrapper that redacts what is written to the stream it wraps, and keeps it from
    ever being read as a workflow command (``gate.util.escape.neutralise_commands``): the gate's own
    commands go through :meth:`write_command`.

    Text is held back until a line ends (``\\n`` or ``\\r``, so a live progress line still shows)
    or ``flush`` is called, so that a secret written in several pieces is still caught whole."""

    def __init__(self, stream: TextIO, redactor: Redactor):
        self._stream = stream
        self._redactor = redactor
        self._pending = ""
        self._line_start = True  # whether what is written next starts a line

    def write(self, text: str) -> int:
        self._pending += text
        cut = max(self._pending.rfind("\n"), self._pending.rfind("\r"))
        if cut >= 0:
            ready, self._pending = self._pending[: cut + 1], self._pending[cut + 1 :]
            self._emit(ready)
        return len(text)

    def _emit(self, text: str) -> None:
        self._stream.write(neutralise_commands(self._redactor.redact(text), at_line_start=self._line_start))
        self._line_start = text.endswith(("\n", "\r"))

    def write_command(self, command: str) -> None:
        """One workflow command of the gate's own (already escaped), on a line of its own: redacted
        (but a mask command, which is how the runner learns the secret), never neutralised."""
        self.flush()
        if not self._line_start:
            self._stream.write("\n")
        masking = command.startswith("::add-mask::")
        self._stream.write((command if masking else self._redactor.redact(command)) + "\n")
        self._line_start = True

    def writelines(self, lines: Iterable[str]) -> None:
        """Part of the stream interface ``sys.stdout`` / ``sys.stderr`` offer to any code (the CLI puts
        this stream there): lines written this way are redacted too."""
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._pending:
            self._emit(self._pending)
            self._pending = ""
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    def __getattr__(self, name: str) -> Any:  # encoding, errors, buffer, ...
        return getattr(self._stream, name)
