"""The provider recipes of docs/providers.md, proven on loopback: the suite and the environment
variables each recipe gives reach an endpoint laid out as that service lays it out."""

from __future__ import annotations

import json

import pytest

from gate.cli import main as cli_main
from tests.providers.test_model_configuration import SCRIPT, TOOLS

SUITE = """version: 1
name: recipe
agent:
  provider: {provider}
  model: {model}
  {extra}
  tools:
    - {{file: ../tools/weather.json}}
mocks:
  tools:
    get_weather:
      - returns: {{temp_c: 18}}
cases:
  - id: paris
    input: What's the weather in Paris?
    expect:
      calls: [{{tool: get_weather, args: {{city: Paris}}}}]
      output: {{contains: '18'}}
"""

RECIPES = [
    # (name, provider, model, extra suite line, base URL path, request path)
    ("azure v1", "openai", "my-gpt-4o-deployment", "api: chat", "/openai/v1", "/openai/v1/chat/completions"),
    (
        "azure v1 responses",
        "openai",
        "my-gpt-5-deployment",
        "api: responses",
        "/openai/v1",
        "/openai/v1/responses",
    ),
    (
        "gemini",
        "openai",
        "gemini-2.5-flash",
        "params: {reasoning_effort: low}",
        "/v1beta/openai",
        "/v1beta/openai/chat/completions",
    ),
    (
        "ollama",
        "openai",
        "llama3.1:8b",
        "params: {extra_body: {keep_alive: 5m}}",
        "/v1",
        "/v1/chat/completions",
    ),
    ("litellm openai", "openai", "anthropic/claude-haiku", "api: chat", "", "/chat/completions"),
    ("litellm anthropic", "anthropic", "gpt-4o-mini", "params: {max_tokens: 500}", "", "/v1/messages"),
]


@pytest.mark.parametrize(("name", "provider", "model", "extra", "prefix", "path"), RECIPES)
def test_recipe_reaches_its_endpoint(
    name, provider, model, extra, prefix, path, tmp_path, model_server, monkeypatch
):
    server = model_server(SCRIPT, record=True)
    (tmp_path / "tools").mkdir()
    (tmp_path / "suites").mkdir()
    (tmp_path / "tools" / "weather.json").write_text(json.dumps(TOOLS))
    (tmp_path / "suites" / "r.suite.yaml").write_text(
        SUITE.format(provider=provider, model=model, extra=extra)
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-recipe")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-recipe")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url + prefix)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)  # the SDK adds /v1/messages
    assert cli_main(["run", "--root", str(tmp_path), "--quiet"]) == 0
    assert {r["path"] for r in server.requests} == {path}
    assert all(r["body"]["model"] == model for r in server.requests)
    if "extra_body" in extra:
        assert all(r["body"]["keep_alive"] == "5m" for r in server.requests)
