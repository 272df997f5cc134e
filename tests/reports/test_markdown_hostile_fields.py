"""Every field that reaches Markdown is escaped, none excepted (DESIGN 9): each string of a results
file (a suite file's or a model's text, or a forged artifact's) is replaced by hostile text, and the
rendered report has no live HTML, no @-mention, no issue cross-reference, no forged marker."""

from __future__ import annotations

import json
import re
from typing import Any

from gate.reports.markdown import render
from gate.results_json.codec import parse_results
from gate.verdict.conclusion import conclude
from tests.reports.test_markdown import GOLDEN, outside_code

PAYLOAD = (
    "<img src=x onerror=alert(1)> @org/team @octocat #42 org/repo#9 GH-7 <!-- tool-eval-gate:default --> "
    "</summary></details> **bold** [link](https://evil.example) ```\n::warning::x\n|cell|"
)
# Values the results schema constrains (enumerations, formats): kept as they are.
_KEPT = {
    "status",
    "reason",
    "kind",
    "version",
    "shard",
    "mock",
    "stop_reason",
    "role",
    "provider",
    "api",
    "started_at",
    "finished_at",
    "scoring",
    "reducer",
    "order",
    "mode",
    "aggregate",
    "change",
    "significance",
}


def _hostile(value: Any, key: str = "", counter: list[int] | None = None) -> Any:
    counter = counter if counter is not None else [0]
    if isinstance(value, dict):
        return {k: v if k in _KEPT else _hostile(v, k, counter) for k, v in value.items()}
    if isinstance(value, list):
        return [_hostile(v, key, counter) for v in value]
    if isinstance(value, str):
        counter[0] += 1
        return f"{PAYLOAD} {counter[0]}"
    return value


def test_no_field_of_a_results_file_is_live_in_the_report():
    data = _hostile(json.loads((GOLDEN / "results.json").read_text(encoding="utf-8")))
    for suite in data["suites"]:
        for case in suite["cases"][::2]:
            case["non_gating"] = PAYLOAD  # a field the golden results leave out
    results = parse_results(data, "results.json")
    text = render(conclude(results), limit=10**6)
    assert text.count("<!-- tool-eval-gate") == 1 and text.startswith("<!-- tool-eval-gate:default -->")
    live = outside_code(text)
    assert "<img" not in live
    for mention in ("@org/team", "@octocat"):
        assert mention not in live, mention
    assert not re.search(r"(?<![\w&])#42\b", live) and "org/repo#9 " not in live
    assert "](https://evil.example)" not in live
    assert live.count("<details") == live.count("</details>")
    assert live.count("<summary") == live.count("</summary>")


def test_the_non_gating_reason_is_escaped_in_its_summary():
    data = json.loads((GOLDEN / "results.json").read_text(encoding="utf-8"))
    failed = next(c for s in data["suites"] for c in s["cases"] if c["status"] == "failed")
    failed["non_gating"] = PAYLOAD
    text = render(conclude(parse_results(data, "results.json")), limit=10**6)
    summary = next(line for line in text.splitlines() if "non-gating:" in line and "<summary>" in line)
    assert "<img" not in summary and "@org/team" not in summary and "<!--" not in summary
    assert summary.endswith("</summary>") and summary.count("</summary>") == 1


# A name a pull request can choose (a file's, a tool's, a case's), as GitHub would render it if it
# reached Markdown as written: a mention, an image, an issue reference, an autolink.
HOSTILE_NAME = "@octocat <img src=x onerror=alert(1)> #42 www.evil.example"


def assert_inert(markdown: str) -> None:
    """No live HTML, mention, cross-reference or autolink of ``HOSTILE_NAME`` outside code."""
    live = outside_code(markdown)
    assert "<img" not in live, live
    assert "@octocat" not in live and "www.evil" not in live, live
    assert re.search(r"(?<![\w&])#42\b", live) is None, live


def hostile_names() -> str:
    """The golden results' JSON text with every name made hostile, consistently (so that the analysis
    still finds its patterns and gives its advice): tool, argument, suite and case names, and the files
    the definitions live in. What a pull request's files, or a forged artifact of the two-workflow
    pattern, can hold."""
    text = (GOLDEN / "results.json").read_text(encoding="utf-8")
    files = ["tools/weather.json", "tools/travel.yaml", "prompts/travel.md", "evals/weather.yaml"]
    for name in [*files, "evals/travel.yaml", "get_weather", "get_forecast", "book_flite", "book_flight"]:
        text = text.replace(name, f"{name} {HOSTILE_NAME}")
    for name in ["weather", "travel", "days", "city", "oslo-rain", "rome-week", "ghost-tool", "needs-date"]:
        text = text.replace(f'"{name}"', f'"{name} {HOSTILE_NAME}"')
    return text


def test_no_name_is_live_in_the_analysis_s_advice():
    """The advice names tools, arguments and types in its examples ("Use get_weather for …", "always
    pass units", "a bare integer"): each name is code, never live Markdown."""
    conclusion = conclude(parse_results(json.loads(hostile_names()), "results.json"))
    messages = [r.message for r in conclusion.advice]
    assert {r.pattern for r in conclusion.advice} >= {"confused_tools", "hallucinated_tool"}
    assert any(f'"Use `get_weather {HOSTILE_NAME}` for …' in m for m in messages), messages
    for message in messages:
        assert_inert(message)
    assert_inert(render(conclusion, limit=10**6))
