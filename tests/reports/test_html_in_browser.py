"""The HTML report in a real headless Chromium (tests/support/browser.py): the filters change what is
shown, a case opens to its transcripts with the base side beside the head side, nothing is fetched
from the network, and a hostile model answer is text. No browser on the machine is a failure that
says how to install one, never a skip."""

from __future__ import annotations

import dataclasses
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gate.reports.html import render
from tests.reports.html_fixture import HOSTILE, pr_check
from tests.support.browser import chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def open_report(browser: Any, path: Path, conclusion: Any = None, address: str = "") -> Any:
    path.write_text(render(conclusion or pr_check()), encoding="utf-8")
    page = browser.new_page()
    page.goto(path.as_uri() + address)
    page.wait_for_selector("body[data-ready=true]")
    return page


def open_case(page: Any, case: str) -> Any:
    """Open a case's row and wait until its body is rendered: the row renders it on the ``toggle``
    event, which the browser fires in a task after the click, not during it."""
    row = page.locator(f"details.case[data-case='{case}']")
    row.locator("summary").click()
    row.locator(".body > *").first.wait_for(state="attached")
    return row


def shown(page: Any) -> list[str]:
    return page.eval_on_selector_all("details.case", "rows => rows.map(r => r.dataset.case)")


def test_the_filters_change_what_is_shown(browser, tmp_path):
    page = open_report(browser, tmp_path / "report.html")
    assert len(shown(page)) == 10
    assert page.text_content("#count") == "Showing 10 of 10 matching cases (10 in all)."
    assert shown(page)[0] == "weather/oslo-rain"  # the regression first

    page.click(".chip[data-kind=failed]")
    failed = [
        "weather/oslo-rain",
        "weather/sometimes-asks",
        "weather/odd-answer",
        "weather/rome-week",
        "weather/london-flaky",  # 2 of 3 trials passed: failed under reducer all, and flaky
    ]
    assert sorted(shown(page)) == sorted(failed)
    page.click(".chip[data-kind=fixed]")  # kinds add up
    assert sorted(shown(page)) == sorted([*failed, "travel/cancel"])
    page.click(".chip[data-kind=failed]")
    page.click(".chip[data-kind=fixed]")
    page.click(".chip[data-kind=non-gating]")
    assert shown(page) == ["weather/sometimes-asks"]
    page.click("#clear")

    page.select_option("#suite", label="travel")
    assert shown(page) == ["travel/cancel", "travel/old-case"]
    page.select_option("#suite", value="")
    page.select_option("#tag", "rain")
    assert shown(page) == ["weather/oslo-rain"]
    page.select_option("#tag", "")
    page.fill("#search", "ROME")
    assert shown(page) == ["weather/rome-week"]
    assert page.text_content("#count") == "Showing 1 of 1 matching cases (10 in all)."


def test_a_filtered_view_can_be_linked(browser, tmp_path):
    page = open_report(browser, tmp_path / "report.html", address="#status=error,flaky&suite=weather")
    assert sorted(shown(page)) == ["weather/berlin-down", "weather/london-flaky"]
    assert page.get_attribute(".chip[data-kind=error]", "aria-pressed") == "true"
    page.fill("#search", "berlin")
    assert page.evaluate("location.hash") == "#status=error%2Cflaky&suite=weather&q=berlin"


def test_a_case_opens_to_its_transcripts_with_the_base_side_beside_the_head_side(browser, tmp_path):
    page = open_report(browser, tmp_path / "report.html")
    body = open_case(page, "weather/oslo-rain").locator(".body")
    assert "Case at evals/weather.yaml:24" in body.inner_text()
    assert "changed line: tools/weather.json:4" in body.locator(".change").inner_text()
    head, base = body.locator(".side").all()
    assert (
        head.locator("h4").inner_text() == "head (this run)"
        and base.locator("h4").inner_text() == "base (compared with)"
    )
    assert head.locator(".call code.name").inner_text() == "get_forecast"
    assert head.locator(".call pre.args").inner_text() == '{"city": "Oslo", "days": 1}'
    assert head.locator(".call pre.result").inner_text() == '{"days": [{"rain": true}]}'
    assert "It talks about tomorrow, not now." in head.locator("table.checks").inner_text()
    assert head.locator("pre.output").inner_text() == "It will rain tomorrow."
    assert base.locator(".call code.name").inner_text() == "get_weather"
    box = head.bounding_box(), base.bounding_box()
    assert box[0]["x"] < box[1]["x"] and abs(box[0]["y"] - box[1]["y"]) < 1  # side by side


def test_a_hostile_answer_is_text_and_nothing_is_fetched(browser, tmp_path):
    hits: list[str] = []

    class Counting(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        conclusion = pr_check()
        evil = HOSTILE.replace("127.0.0.1:9", f"127.0.0.1:{port}")
        results = conclusion.results
        weather = results.suites[0]
        odd = next(c for c in weather.cases if c.case_id == "odd-answer")
        record = dataclasses.replace(odd.trials[0].record, output=evil)
        odd = dataclasses.replace(odd, trials=(dataclasses.replace(odd.trials[0], record=record),))
        cases = tuple(odd if c.case_id == "odd-answer" else c for c in weather.cases)
        results = dataclasses.replace(
            results, suites=(dataclasses.replace(weather, cases=cases), *results.suites[1:])
        )
        conclusion = dataclasses.replace(conclusion, results=results)

        requests: list[str] = []
        path = tmp_path / "report.html"
        path.write_text(render(conclusion), encoding="utf-8")
        page = browser.new_page()
        page.on("request", lambda request: requests.append(request.url))
        page.goto(path.as_uri())
        page.wait_for_selector("body[data-ready=true]")
        for case in shown(page):  # every case open: every transcript rendered
            open_case(page, case)
        head = page.locator("details.case[data-case='weather/odd-answer'] .side").first
        assert head.locator("pre.output").text_content() == evil
        assert page.evaluate("document.body.dataset.pwned") is None
        assert page.locator("#case-list img, #case-list a, #case-list script, #case-list link").count() == 0
        assert requests == [path.as_uri()] and hits == []
    finally:
        server.shutdown()


def test_more_cases_than_a_page_are_shown_a_page_at_a_time(browser, tmp_path):
    page = open_report(browser, tmp_path / "report.html", pr_check(extra_cases=450))
    assert len(shown(page)) == 200
    assert page.text_content("#count") == "Showing 200 of 460 matching cases (460 in all)."
    page.click("#more")
    page.click("#more")
    assert len(shown(page)) == 460 and page.is_hidden("#more")
    page.fill("#search", "case-0042")
    assert shown(page) == [f"bulk/case-0042{n}" for n in range(10)]
    assert page.is_hidden("#more")


def _program_pr() -> Any:
    """A PR that rewrote an agent program's docstring of track_shipment: its head trial's model was
    offered the new description, the base trial's the old one; cancel_order is the same on both."""
    from gate.results.run_record import OfferedTool
    from gate.verdict.conclusion import conclude
    from tests.results_factory import case, record, run, suite, trial

    schema = {"type": "object", "properties": {"order_id": {"type": "string"}}}
    cancel = OfferedTool("cancel_order", "Cancel an order that has not shipped yet.", schema)

    def side(status: str, description: str) -> Any:
        track = OfferedTool("track_shipment", description, schema)
        rec = dataclasses.replace(record("Where is my package?"), offered=((track, cancel), (track, cancel)))
        one = trial(status, rec=rec)
        return run(suite("support", [case("where-is-it", status, line=12, trials=[one])], provider=""))

    head = side("failed", "Shipment lookup.")
    return conclude(head, side("passed", "Where a customer's parcel is now. Use it when they ask."))


def test_each_trial_shows_the_tool_descriptions_its_model_was_offered_head_beside_base(browser, tmp_path):
    page = open_report(browser, tmp_path / "report.html", _program_pr())
    head, base = open_case(page, "support/where-is-it").locator(".side").all()
    offered = head.locator("details.offered")
    assert offered.get_attribute("open") is not None  # a difference: shown open
    assert (
        offered.locator("summary").inner_text() == "tools offered to the model: 2 (1 not as on the base side)"
    )
    track, cancel = offered.locator(".tool").all()
    assert track.get_attribute("class") == "tool differs" and cancel.get_attribute("class") == "tool"
    assert track.locator("code.name").inner_text() == "track_shipment"
    assert "described otherwise on the base side" in track.inner_text()
    assert track.locator("pre.description").inner_text() == "Shipment lookup."
    assert cancel.locator("pre.description").inner_text() == "Cancel an order that has not shipped yet."
    old = base.locator("details.offered .tool.differs pre.description")
    assert old.inner_text() == "Where a customer's parcel is now. Use it when they ask."
    box = head.bounding_box(), base.bounding_box()
    assert box[0]["x"] < box[1]["x"]  # head beside base


def test_a_model_agent_s_trials_show_its_suite_s_tools_folded_when_both_sides_agree(browser, tmp_path):
    page = open_report(browser, tmp_path / "report.html")
    head = open_case(page, "weather/oslo-rain").locator(".side").first
    offered = head.locator("details.offered")
    assert offered.get_attribute("open") is None
    assert offered.locator("summary").inner_text() == "tools offered to the model: 2"
    folded = head.locator(".tool pre.description").all_text_contents()
    assert folded == ["Current weather.", "Forecast."]


def test_a_program_s_log_is_shown_apart_after_what_was_said(browser, tmp_path):
    conclusion = pr_check()
    weather = conclusion.results.suites[0]
    odd = next(c for c in weather.cases if c.case_id == "odd-answer")
    log = "Traceback (most recent call last):\nKeyError: 'city'"
    record = dataclasses.replace(odd.trials[0].record, log=log)
    odd = dataclasses.replace(odd, trials=(dataclasses.replace(odd.trials[0], record=record),))
    cases = tuple(odd if c.case_id == "odd-answer" else c for c in weather.cases)
    results = dataclasses.replace(
        conclusion.results, suites=(dataclasses.replace(weather, cases=cases), *conclusion.results.suites[1:])
    )
    page = open_report(browser, tmp_path / "report.html", dataclasses.replace(conclusion, results=results))
    trial = open_case(page, "weather/odd-answer").locator(".side").first.locator(".trial").first
    texts = trial.locator(":scope > *").all_inner_texts()
    at = texts.index("program log (standard error)")
    assert texts[at + 1] == log
    messages = trial.locator(".msg").all_inner_texts()
    assert messages and all(log not in text for text in messages)  # not a message
    assert texts.index(messages[-1]) < at  # after what was said


@pytest.mark.parametrize(
    "address",
    [
        "#q=%E0%A4%A",  # a link cut short: "URI malformed" stopped the script, the page listed nothing
        "#suite=weather&q=%",
        "#q=%E0%A4%A&status=error%2Cflaky",
        "#status=constructor,__proto__&suite=__proto__&tag=toString",
        "#q=" + "%" * 2000,
        "#%E0=1&=&&q",
    ],
)
def test_any_address_leaves_the_page_working(browser, tmp_path, address):
    page = open_report(browser, tmp_path / "report.html", address=address)
    assert page.text_content("#count").startswith("Showing ")
    if "suite=weather" in address:
        assert page.input_value("#suite") != ""  # the parts after a broken one still apply
    if "status=error" in address:
        assert page.get_attribute(".chip[data-kind=error]", "aria-pressed") == "true"
    page.click("#clear")
    assert len(shown(page)) == 10


def test_a_broken_escape_keeps_the_text_around_it(browser, tmp_path):
    page = open_report(browser, tmp_path / "report.html", address="#q=ROME%20WEEK%E0%A4%A")
    assert page.input_value("#search") == "rome week%e0%a4%a"
    page.fill("#search", "rome")
    assert shown(page) == ["weather/rome-week"]
