"""What the search for verified fixes found, in the Markdown and HTML reports and on the console:
every candidate with its per-case results, the verified edit's diff and evidence, untrusted text inert."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from gate.reports.fix_report import console_lines, html_section, markdown_section
from gate.results.fixes import Candidate, CandidateCase, DefinitionSearch, Edit, FixSearch, SkippedCase
from tests.reports.test_markdown import outside_code

HOSTILE = "<img src=x onerror=alert(1)> @octocat #42 https://evil.example ``` </details>"  # model text
EDIT = Edit(
    "tools/weather.json",
    24,
    24,
    ('  "description": "Forecast data.",',),
    (f'  "description": "{HOSTILE}",',),
    ("  {",),
    ("  }",),
)
CASES = (
    CandidateCase("weather", "tomorrow", "targeted", "fixed", 3, 3, 0, 3),
    CandidateCase("weather", "now", "passing", "kept", 3, 3, 3, 3),
)


def search(*candidates: Candidate, note: str = "") -> FixSearch:
    definition = DefinitionSearch(
        "weather",
        "tool_description",
        "tools/weather.json",
        24,
        "Forecast data.",
        "say when",
        ("weather/tomorrow",),
        "get_forecast",
        None,
        "every passing gating case of weather (1)",
        candidates,
        note,
    )
    skipped = (SkippedCase("weather", "crash", "the agent program crashed"),)
    return FixSearch("openai:judge", "200", 12, 0.0042, "", skipped, (definition,), "diff --git ...")


def test_markdown_shows_the_verified_edit_its_evidence_and_every_candidate() -> None:
    broke = Candidate(1, "Any weather.", "broke", "it breaks weather/now", cases=CASES[:1], edit=EDIT)
    verified = Candidate(2, "Forecast.", "verified", cases=CASES, edit=EDIT)
    text = "\n".join(markdown_section(search(broke, verified)))
    assert "**`tools/weather.json:24`**, the description of `get_forecast`: fixes 1 of 1 failing case" in text
    assert '```diff\n   {\n-  "description": "Forecast data.",\n+  "description":' in text
    assert "❌ breaks a passing case: it breaks weather/now" in text and "✅ verified" in text
    assert "weather/now kept 3/3 (was 3/3)" in text
    assert "`weather/crash`: the agent program crashed" in text
    assert "12 model requests, $0.0042, --fix-budget 200, apart from the run's" in text


def test_no_field_of_the_search_is_live_markdown() -> None:
    """Every string of the search made hostile (a forged results file holds what it likes): the
    section has no live HTML, mention, reference or link, and every fence closes."""
    data = _hostile(search(Candidate(1, "x", "verified", cases=CASES, edit=EDIT)).to_dict())
    text = "\n".join(markdown_section(FixSearch.from_dict(data)))
    live = outside_code(text + "\n")
    assert "<img" not in live and "@octocat" not in live and "](https://" not in live
    assert re.search(r"(?<![\w&])#42\b", live) is None
    assert live.count("<details") == live.count("</details>") and "<!-- tool-eval-gate" not in text
    assert len(re.findall(r"^(`{3,})", text, flags=re.M)) % 2 == 0


def _hostile(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: v if k in _KEPT else _hostile(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_hostile(v, key) for v in value]
    return f"{PAYLOAD} {key}" if isinstance(value, str) else value


_KEPT = {"kind", "status", "role", "outcome"}  # the schema's enumerations
PAYLOAD = (
    "<img src=x onerror=alert(1)> @octocat #42 [link](https://evil.example) <!-- tool-eval-gate:x --> "
    "</summary></details> ```\n::warning::x\n|cell|"
)


def test_no_verified_fix_and_a_search_that_did_not_run_are_said() -> None:
    refused = Candidate(1, "Paris!", "refused", 'it copies "Paris", a value case weather/tomorrow expects')
    text = "\n".join(markdown_section(search(refused, note="no verified fix within the budget")))
    assert "**no verified fix within the budget**" in text and "🚫 refused" in text
    skipped = FixSearch(skipped="no key to ask the models with (OPENAI_API_KEY unset)")
    assert "_No fix was searched for: no key to ask the models with" in "\n".join(markdown_section(skipped))
    assert markdown_section(None) == []
    assert console_lines(skipped) == [
        "fixes: none searched for: no key to ask the models with (OPENAI_API_KEY unset)"
    ]


def test_html_is_escaped_text_and_parses() -> None:
    verified = Candidate(1, HOSTILE, "verified", cases=CASES, edit=EDIT)
    page = "\n".join(html_section(search(verified)))
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert '<span class="add">' in page and '<span class="del">' in page
    assert "<h3><code>tools/weather.json:24</code>, the description of <code>get_forecast</code></h3>" in page
    assert "<p>The advice: say when</p>" in page
    tags: list[str] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag: str, attrs: object) -> None:
            tags.append(tag)

    Tags().feed(page)
    assert set(tags) <= {
        "section",
        "h2",
        "h3",
        "div",
        "p",
        "strong",
        "pre",
        "span",
        "code",
        "table",
        "tr",
        "th",
        "td",
        "ul",
        "li",
    }


def test_the_console_says_the_outcome_and_what_the_search_sent() -> None:
    verified = Candidate(1, "Forecast.", "verified", cases=CASES, edit=EDIT)
    lines = console_lines(search(verified))
    assert lines[0] == "fix search: 12 model requests, $0.0042, --fix-budget 200, apart from the run's"
    assert lines[1].startswith(
        "  fix for tools/weather.json:24 (the description of `get_forecast`): candidate 1 verified"
    )
    assert lines[2] == "  left alone: weather/crash: the agent program crashed"
