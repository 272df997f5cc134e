"""The HTML report as text: self-contained, inert, complete and the same for the same conclusion.
What it does in a browser: tests/reports/test_html_in_browser.py."""

from __future__ import annotations

import base64
import hashlib
import json
import re

from gate.reports.html import render
from gate.reports.html_assets import SCRIPT, STYLE
from tests.reports.html_fixture import HOSTILE, pr_check


def _data(page: str) -> dict:
    block = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
    assert block is not None
    return json.loads(block.group(1))


def test_the_page_is_self_contained_and_allows_only_its_own_script_and_style():
    page = render(pr_check())
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy and "img-src 'none'" in policy
    for text in (SCRIPT, STYLE):
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy
    assert (
        page.count("<script") == 2
        and f"<script>{SCRIPT}</script>" in page
        and f"<style>{STYLE}</style>" in page
    )
    markup = re.sub(
        r'(<script type="application/json" id="report-data">).*?(</script>)', r"\1\2", page, flags=re.S
    )
    assert not re.search(r"(src|href)=|@import|url\(", markup)  # no asset and no link of its own
    assert not re.search(r"https?:", markup)


def test_model_output_travels_as_inert_json_that_nothing_can_close():
    page = render(pr_check())
    block = page.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in block and ">" not in block and "&" not in block and "\u2028" not in block
    outputs = [t["out"] for c in _data(page)["cases"] for t in c["head"] or ()]
    assert HOSTILE in outputs


def test_every_case_and_what_a_reviewer_reads_of_it_is_there():
    data = _data(render(pr_check()))
    cases = {(data["suites"][c["s"]]["name"], c["id"]): c for c in data["cases"]}
    assert len(cases) == 10  # 9 cases in the head run, and the one it removed
    oslo = cases[("weather", "oslo-rain")]
    assert oslo["k"] == ["regressed", "failed"] and oslo["at"] == "evals/weather.yaml:24"
    assert oslo["change"]["line"] == "tools/weather.json:4"
    assert oslo["why"] == ["[wrong tool] called get_forecast instead of get_weather"]
    head, base = oslo["head"][0], oslo["base"][0]
    assert head["calls"] == [
        {
            "n": "get_forecast",
            "a": '{"city": "Oslo", "days": 1}',
            "bad": "",
            "res": '{"days": [{"rain": true}]}',
            "mock": "matched",
            "err": False,
        }
    ]
    assert head["checks"][0]["why"] == "It talks about tomorrow, not now."
    assert base["calls"][0]["n"] == "get_weather"
    assert cases[("travel", "cancel")]["k"] == ["fixed", "passed"]
    assert cases[("travel", "old-case")]["k"] == ["removed"] and cases[("travel", "old-case")]["head"] is None
    assert cases[("weather", "sometimes-asks")]["k"] == ["failed", "non-gating"]
    assert "flaky" in cases[("weather", "london-flaky")]["k"]
    assert [c["k"][0] for c in data["cases"][:2]] == ["regressed", "failed"]  # worst first


def test_recommendations_show_their_names_as_code_not_backticks():
    page = render(pr_check())
    advice = page[
        page.index("<h3>Recommendations</h3>") : page.index("</ol>", page.index("<h3>Recommendations"))
    ]
    first = advice.split("<li>")[1]
    assert first.startswith(
        "<code>tools/weather.json:4</code>: <code>get_forecast</code> was called where "
        "<code>get_weather</code> was expected in 1 case"
    )
    assert "`" not in advice


def test_the_same_conclusion_gives_the_same_page():
    assert render(pr_check()) == render(pr_check())


def test_the_top_says_the_verdict_what_the_change_did_and_which_model_ran():
    page = render(pr_check())
    assert "<h1>tool-eval-gate failed</h1>" in page
    assert "What this change did" in page and "<code>tools/weather.json:4</code>" in page
    assert "model: openai/gpt-4o-mini" in page


def test_the_counts_say_the_known_flaky_cases_left_out_as_every_report_does():
    conclusion = pr_check()
    non_gating = sum(s.non_gating_count for s in conclusion.verdict.suites)
    assert non_gating == 1
    page = render(conclusion)
    assert "flaky · 1 non-gating (not counted)</p>" in page
