"""Nothing leaks and nothing links: credentials in a base URL's query string and secrets under any
name that says key, token, secret, password, DSN or webhook are masked in every output even when the
model echoes them; model text never becomes a GitHub link (``#42``, ``GH-7``, ``org/repo#9``, bare
``https://`` and ``www.``) in the Markdown report."""

from __future__ import annotations

import json
import re

import pytest

from gate.util.escape import html_text, md_text
from gate.util.redact import MASK, Redactor, is_secret_name, url_credentials
from tests.commands.test_run import point
from tests.files.test_outputs import repo, run  # noqa: F401 - the fixture

QUERY_KEY = "q7Hs2kLm9Pz4Xw1R"
USER_PASSWORD = "hunter2hunter2"
AZURE_KEY = "3b1f0c9a8e7d6c5b4a39281706f5e4d3"
SENTRY_DSN = "https://5f4e3d2c1b0a@o42.ingest.example.io/77"
SLACK_WEBHOOK = "https://hooks.slack.example/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX"


@pytest.mark.parametrize(
    "name",
    [
        "AZURE_OPENAI_KEY",
        "SENTRY_DSN",
        "SLACK_WEBHOOK_URL",
        "OPENAI_APIKEY",
        "SMTP_PASSWD",
        "MY_SECRET",
        "X_TOKEN",
    ],
)
def test_every_name_that_says_secret_is_secret(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["HOME", "OPENAI_BASE_URL", "TOKENIZERS_PARALLELISM", "GITHUB_REPOSITORY"])
def test_ordinary_names_are_not(name):
    assert not is_secret_name(name)


def test_a_base_urls_credentials_are_secrets_but_its_host_is_not():
    url = f"https://proxy-user:{USER_PASSWORD}@llm.example/v1?api-key={QUERY_KEY}&deployment=gpt4o-main"
    import base64

    pair = f"proxy-user:{USER_PASSWORD}"  # and as a client sends it: Authorization: Basic base64(pair)
    basic = base64.b64encode(pair.encode()).decode().rstrip("=")
    assert set(url_credentials(url)) == {"proxy-user", USER_PASSWORD, QUERY_KEY, "gpt4o-main", pair, basic}
    redactor = Redactor.from_env({"OPENAI_BASE_URL": url})
    text = (
        f"POST https://llm.example/v1/chat/completions?api-key={QUERY_KEY}"
        f" said {QUERY_KEY} and {USER_PASSWORD}"
    )
    out = redactor.redact(text)
    assert QUERY_KEY not in out and USER_PASSWORD not in out
    assert "llm.example" in out
    # The shape alone catches a query credential that no variable announced.
    assert (
        Redactor().redact("GET /v1?x=1&access_token=abcdefgh12345678") == f"GET /v1?x=1&access_token={MASK}"
    )


def _every_output(repo, capsys) -> list[str]:  # noqa: F811 - repo is the fixture's value
    """A failing run's console, JSON, JUnit, Markdown and cache files."""
    out = repo / "out"
    code = run(
        repo,
        "--json",
        str(out / "r.json"),
        "--junit",
        str(out / "r.xml"),
        "--markdown",
        str(out / "r.md"),
        "--cache",
        str(repo / "cache"),
    )
    captured = capsys.readouterr()
    assert code == 1, captured.err
    texts = [captured.out, captured.err, *(p.read_text() for p in out.iterdir())]
    return texts + [p.read_text() for p in (repo / "cache").rglob("*.json")]


def test_echoed_secrets_of_every_name_are_masked_in_every_output(repo, model_server, monkeypatch, capsys):  # noqa: F811
    echo = f"key {AZURE_KEY} dsn {SENTRY_DSN} hook {SLACK_WEBHOOK} query {QUERY_KEY} pass {USER_PASSWORD}"
    script = {
        "rules": [
            {
                "when": {"turn": 1},
                "tool_calls": [{"name": "get_weather", "arguments": {"city": echo}}],
            },
        ],
        "default": {"text": echo},
    }
    server = model_server(script)
    point(monkeypatch, server)
    monkeypatch.setenv("AZURE_OPENAI_KEY", AZURE_KEY)
    monkeypatch.setenv("SENTRY_DSN", SENTRY_DSN)
    monkeypatch.setenv("SLACK_WEBHOOK_URL", SLACK_WEBHOOK)
    monkeypatch.setenv("PROXY_URL", f"https://u:{USER_PASSWORD}@proxy.example:3128/?token={QUERY_KEY}")
    texts = _every_output(repo, capsys)
    assert json.loads((repo / "out" / "r.json").read_text())["suites"][0]["cases"][0]["trials"][0]["record"][
        "output"
    ]
    for secret in (AZURE_KEY, SENTRY_DSN, SLACK_WEBHOOK, QUERY_KEY, USER_PASSWORD, "5f4e3d2c1b0a@o42"):
        for text in texts:
            assert secret not in text


@pytest.mark.parametrize(
    "text,linked",
    [
        ("fixed in #42", "#42"),
        ("see GH-7", "GH-7"),
        ("moved to org/repo#9", "repo#9"),
        ("visit https://evil.example/pixel.png now", "https://"),
        ("visit http://evil.example", "http://"),
        ("www.evil.example", "www."),
    ],
)
def test_model_text_never_becomes_a_link(text, linked):
    for escaped in (md_text(text), html_text(text)):
        assert linked not in escaped
        assert escaped.replace("\u200b", "") == text  # still reads the same


def test_text_without_references_is_unchanged():
    for text in ("C# and F#", "gh-pages branch", "ratio 3:1", "a#b", "the www page"):
        assert md_text(text) == text


def test_a_failing_case_report_holds_no_link_made_from_model_text(repo, model_server, monkeypatch):  # noqa: F811
    answer = "Closes #42, see GH-7 and org/repo#9 at https://evil.example and www.evil.example"
    point(monkeypatch, model_server({"rules": [], "default": {"text": answer}}))
    assert run(repo, "--markdown", str(repo / "r.md")) == 1
    report = (repo / "r.md").read_text()
    # GitHub links nothing inside code blocks and code spans: look at the text outside them.
    text = re.sub(r"(?ms)^(`{3,})[^\n]*\n.*?^\1\n", "", report)
    text = re.sub(r"(`+).+?\1", "", text)
    assert "Closes #\u200b42" in text
    for linked in ("#42", "GH-7", "repo#9", "https://evil", "www.evil"):
        assert linked not in text


def test_a_base_urls_basic_credentials_are_masked_in_every_encoding(repo, model_server, monkeypatch, capsys):  # noqa: F811
    """With OPENAI_BASE_URL=http://user:pass@proxy/v1 the client sends Authorization: Basic
    base64(user:pass); a proxy that echoes it must not put it in any output (user and pass are each
    shorter than a secret, the pair and its base64 are not)."""
    import base64

    basic = base64.b64encode(b"user:pass").decode()
    echo = f"proxy saw Authorization: Basic {basic} (that is {basic} or user:pass)"
    server = model_server({"rules": [], "default": {"text": echo}})
    point(monkeypatch, server)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url.replace("://", "://user:pass@", 1))
    texts = _every_output(repo, capsys)
    assert any("proxy saw Authorization: Basic ***" in text for text in texts)
    for text in texts:
        assert basic.rstrip("=") not in text and "user:pass" not in text
