"""The redactor: secret env values and credential shapes never survive, ordinary text does."""

from __future__ import annotations

import io
import json
import time
from xml.sax.saxutils import escape as xml_escape

import pytest

from gate.results_json.codec import to_json
from gate.util.redact import MASK, RedactingStream, Redactor, environment_without_secrets, is_secret_name

OPENAI_KEY = "sk-proj-Abc123Def456Ghi789Jkl012Mno345"
ANTHROPIC_KEY = "sk-ant-api03-ZZZyyyXXXwww-vvvUUUttt_sss"
GITHUB_TOKEN = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"
ODD_SECRET = 'pa"ss<w>rd&more/slashes+and=signs'


def env() -> dict[str, str]:
    return {
        "OPENAI_API_KEY": OPENAI_KEY,
        "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
        "INPUT_GITHUB_TOKEN": GITHUB_TOKEN,
        "MY_SERVICE_SECRET_VALUE": ODD_SECRET,
        "DB_PASSWORD": "correct-horse-battery",
        "SHORT_TOKEN": "abc",  # too short to be a credential: ignored
        "HOME": "/home/runner/work",  # not secret-looking
        "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1",
        "MODEL": "gpt-4o-mini-long-name",
    }


@pytest.mark.parametrize(
    "name,secret",
    [
        ("OPENAI_API_KEY", True),
        ("ANTHROPIC_API_KEY", True),
        ("AZURE_OPENAI_API_KEY", True),
        ("GITHUB_TOKEN", True),
        ("GH_TOKEN", True),
        ("INPUT_GITHUB_TOKEN", True),
        ("INPUT_OPENAI_API_KEY", True),
        ("ACTIONS_RUNTIME_TOKEN", True),
        ("CLIENT_SECRET", True),
        ("MY_SECRET_THING", True),
        ("DB_PASSWORD", True),
        ("HOME", False),
        ("OPENAI_BASE_URL", False),
        ("GITHUB_REPOSITORY", False),
        ("INPUT_THRESHOLD", False),
        ("TOKENIZER_PATH", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_from_env_masks_secret_values_and_keeps_ordinary_text() -> None:
    redactor = Redactor.from_env(env())
    text = (
        f"key={OPENAI_KEY} ant={ANTHROPIC_KEY} gh={GITHUB_TOKEN} odd={ODD_SECRET} "
        "db=correct-horse-battery model gpt-4o-mini-long-name at /home/runner/work abc"
    )
    out = redactor.redact(text)
    for secret in (OPENAI_KEY, ANTHROPIC_KEY, GITHUB_TOKEN, ODD_SECRET, "correct-horse-battery"):
        assert secret not in out
    assert out.count(MASK) == 5
    # Non-secret values and values too short to be credentials stay.
    assert "gpt-4o-mini-long-name" in out and "/home/runner/work" in out and out.endswith(" abc")


def test_secret_values_are_masked_in_their_serialised_forms() -> None:
    from urllib.parse import quote

    redactor = Redactor.from_env(env())
    forms = {
        "json": json.dumps(ODD_SECRET)[1:-1],
        "xml": xml_escape(ODD_SECRET, {'"': "&quot;"}),
        "url": quote(ODD_SECRET, safe=""),
    }
    for kind, form in forms.items():
        assert form != ODD_SECRET, kind
        out = redactor.redact(f"<x a='{form}'/>")
        assert out == f"<x a='{MASK}'/>", kind


@pytest.mark.parametrize(
    "shape",
    [
        "sk-abcdefghijklmnopqrstuvwxyz0123456789",
        "sk-proj-abcdefghijklmnop_qrstu-vwxyz0123",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyzABCDEF",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "gho_abcdefghijklmnopqrstuvwxyz0123456789",
        "ghs_abcdefghijklmnopqrstuvwxyz0123456789",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    ],
)
def test_known_shapes_are_masked_without_any_env(shape: str) -> None:
    out = Redactor().redact(f"the model said: {shape}.")
    assert shape not in out
    assert out == f"the model said: {MASK}."


def test_bearer_and_url_credentials_are_masked_but_context_kept() -> None:
    redactor = Redactor()
    assert redactor.redact("Authorization: Bearer abcdef0123456789xyz") == "Authorization: Bearer ***"
    assert (
        redactor.redact("proxy https://alice:s3cr3tpassw0rd@proxy.example/v1 failed")
        == "proxy https://***@proxy.example/v1 failed"
    )
    # Ordinary URLs and words are untouched.
    plain = "see https://example.com:8443/path?q=1 and task-list skills sk-8 ghp_short"
    assert redactor.redact(plain) == plain


def test_longer_secret_containing_a_shorter_one_is_masked_whole() -> None:
    redactor = Redactor(secrets=("abcdefgh", "abcdefgh-and-more"))
    assert redactor.redact("x abcdefgh-and-more y abcdefgh z") == "x *** y *** z"


def test_redact_obj_walks_json_like_data_and_keeps_types() -> None:
    redactor = Redactor.from_env(env())
    data = {
        "output": f"your key is {OPENAI_KEY}",
        "calls": [{"args": {"token": GITHUB_TOKEN, "n": 5, "ok": True, "none": None}}],
        "tuple": (ANTHROPIC_KEY, 1.5),
        OPENAI_KEY: "as a key",
    }
    out = redactor.redact_obj(data)
    assert OPENAI_KEY not in json.dumps(out)
    assert GITHUB_TOKEN not in json.dumps(out)
    assert out["calls"][0]["args"] == {"token": MASK, "n": 5, "ok": True, "none": None}
    assert out["tuple"] == (MASK, 1.5)
    assert out[MASK] == "as a key"
    # The input is not modified.
    assert data["calls"][0]["args"]["token"] == GITHUB_TOKEN


def test_multiline_secret_is_masked_line_by_line() -> None:
    pem = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nabcdefghijklmnopqrstuvwx\n-----END KEY-----"
    redactor = Redactor.from_env({"DEPLOY_PRIVATE_KEY": pem})
    out = redactor.redact("line: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")
    assert "MIIEvQ" not in out


def test_redacting_stream_catches_a_secret_written_in_pieces() -> None:
    sink = io.StringIO()
    stream = RedactingStream(sink, Redactor(secrets=(OPENAI_KEY,)))
    stream.write("error: key ")
    stream.write(OPENAI_KEY[:10])
    stream.write(OPENAI_KEY[10:])
    assert sink.getvalue() == ""  # held until the line ends
    stream.write(" rejected\nnext")
    assert sink.getvalue() == "error: key *** rejected\n"
    stream.flush()
    assert sink.getvalue().endswith("next")
    assert OPENAI_KEY not in sink.getvalue()


def test_redacting_stream_redacts_writelines_too() -> None:
    sink = io.StringIO()
    stream = RedactingStream(sink, Redactor(secrets=(OPENAI_KEY,)))
    stream.writelines(["key: ", OPENAI_KEY[:5], OPENAI_KEY[5:], "\n"])
    assert sink.getvalue() == f"key: {MASK}\n"


def test_redacting_stream_passes_progress_lines_at_carriage_return() -> None:
    sink = io.StringIO()
    stream = RedactingStream(sink, Redactor())
    stream.write("\r[3/10] running")
    assert sink.getvalue() == "\r"
    stream.write("\r[4/10] running")
    assert sink.getvalue() == "\r[3/10] running\r"


def test_redaction_is_fast() -> None:
    redactor = Redactor.from_env({f"SERVICE_{i}_TOKEN": f"tok-{i:04d}-abcdefghijkl" for i in range(50)})
    text = ("The weather in Paris is 18 degrees and cloudy; call get_weather(city=Paris). " * 1300)[:100_000]
    start = time.perf_counter()
    for _ in range(10):
        assert redactor.redact(text) == text
    per_call = (time.perf_counter() - start) / 10
    # 100 kB of report text in well under the budget of a whole report render.
    assert per_call < 0.05, per_call


def test_redact_results_masks_every_trial_text_and_keeps_clean_objects() -> None:
    from tests.results_factory import call, case, failure, record, run, suite, trial

    redactor = Redactor.from_env(env())
    leaky = record(
        input="What is my key?",
        calls=[call("store", {"token": GITHUB_TOKEN}, result={"echo": OPENAI_KEY})],
        output=f"Your key is {OPENAI_KEY}",
    )
    bad = trial(
        "failed",
        rec=leaky,
        failures=[
            failure("value_error", f"expected x, got {GITHUB_TOKEN}", actual=GITHUB_TOKEN, tool="store")
        ],
    )
    clean = case("clean")
    results = run(
        suite("s", [clean, case("leaky", "failed", trials=[bad])]),
        complete=False,
        incomplete_reason=f"stopped: auth failed for {ANTHROPIC_KEY}",
    )
    out = redactor.redact_results(results)
    text = to_json(out)
    for secret in (OPENAI_KEY, GITHUB_TOKEN, ANTHROPIC_KEY):
        assert secret not in text
    assert out.suites[0].cases[1].trials[0].record.output == f"Your key is {MASK}"
    assert out.suites[0].cases[1].trials[0].failures[0].actual == MASK
    assert out.suites[0].cases[0] is results.suites[0].cases[0]  # untouched parts are the same objects
    assert out.incomplete_reason == f"stopped: auth failed for {MASK}"
    # Nothing to mask: the very same object back.
    clean_results = run(suite("s", [clean]))
    assert redactor.redact_results(clean_results) is clean_results


def test_a_secret_only_in_what_was_said_or_in_a_program_s_log_is_masked() -> None:
    """The typed messages (a given call's arguments, a model's thinking, a tool result) and the log of
    an agent program are trial texts like any other."""
    import dataclasses

    from gate.results.messages import AssistantMessage, ToolCall, ToolResult, UserMessage
    from tests.results_factory import case, record, run, suite, trial

    said = (
        UserMessage("Weather?"),
        AssistantMessage("", (ToolCall("g1", "store", f'{{"token": "{GITHUB_TOKEN}"}}'),), given=True),
        ToolResult("g1", "store", {"echo": OPENAI_KEY}, given=True),
        AssistantMessage("Sunny.", thinking=f"the key is {ANTHROPIC_KEY}"),
    )
    leaky = dataclasses.replace(record("Weather?", output="Sunny."), messages=said, log=f"using {OPENAI_KEY}")
    out = Redactor.from_env(env()).redact_results(run(suite("s", [case("c", trials=[trial(rec=leaky)])])))
    text = to_json(out)
    for secret in (OPENAI_KEY, GITHUB_TOKEN, ANTHROPIC_KEY):
        assert secret not in text
    masked = out.suites[0].cases[0].trials[0].record
    assert masked.log == f"using {MASK}" and masked.messages[3].thinking == f"the key is {MASK}"


def test_secrets_are_masked_in_base64_and_basic_credentials_by_their_shape() -> None:
    import base64

    key = "sk-abcdefghijklmnopqrstuv"
    redactor = Redactor.from_env({"OPENAI_API_KEY": key, "OPENAI_BASE_URL": "http://user:pass@proxy/v1"})
    for encoded in (base64.b64encode(key.encode()), base64.urlsafe_b64encode(key.encode())):
        assert encoded.decode().rstrip("=") not in redactor.redact(f"echo {encoded.decode()}")
    pair = base64.b64encode(b"user:pass").decode()
    assert redactor.redact(f"Authorization: Basic {pair}") == "Authorization: Basic ***"
    assert "user:pass" not in redactor.redact("credentials user:pass")
    # The shape alone: a Basic credential is base64 of text with a colon; English stays.
    other = base64.b64encode(b"alice:wonderland").decode()
    assert Redactor().redact(f"Basic {other}") == "Basic ***"
    assert (
        Redactor().redact("Basic information and Basic c29tZXRleHQ=")
        == "Basic information and Basic c29tZXRleHQ="
    )


def test_a_started_process_gets_no_secret_and_none_of_the_gates_settings():
    """The one rule of every process the gate starts (agent programs, MCP servers)."""
    environ = {
        "PATH": "/bin",
        "DATABASE_URL": "postgres://localhost/db",
        "OPENAI_API_KEY": "k",
        "OPENAI_ORG_ID": "org",
        "ANTHROPIC_BASE_URL": "u",
        "AZURE_OPENAI_ENDPOINT": "https://x.openai.azure.example",
        "AZURE_OPENAI_API_KEY": "k",
        "INPUT_OPENAI_BASE_URL": "u",
        "GITHUB_TOKEN": "t",
        "AWS_SECRET_ACCESS_KEY": "s",
        "SENTRY_DSN": "d",
        "SLACK_WEBHOOK_URL": "w",
        "GIT_CONFIG_COUNT": "1",  # its KEY_0 is secret-named: a count left alone would break git
        "GIT_CONFIG_KEY_0": "http.extraheader",
        "GIT_CONFIG_VALUE_0": "AUTHORIZATION: basic abc",
        "GIT_AUTHOR_NAME": "ci",
    }
    assert environment_without_secrets(environ) == {
        "PATH": "/bin",
        "DATABASE_URL": "postgres://localhost/db",
        "GIT_AUTHOR_NAME": "ci",
    }
