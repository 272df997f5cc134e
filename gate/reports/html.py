"""The HTML report: one self-contained file, the place a reviewer goes from the PR comment.

On top the verdict and what the PR did (regressions and fixes with their trial counts, p-values and
the changed line behind them), the suites and the models that ran them, the failure patterns; below,
every case, filterable by status (failed, error, regressed, fixed, flaky, non-gating, ...), suite and
tag and searchable by id, each opening to its failure reasons and, per trial, its whole transcript
(messages, tool calls with their arguments, mock results, judge rationales) and the tool descriptions
its model was offered (those that differ from the other side's marked), the base side beside the
head side where there is one, and the case's ``file:line``.

Self-contained and inert: no network, no external asset; a Content-Security-Policy allows only the
page's own script and style (by hash) and nothing to be fetched. The sections above the cases are
written here with every text HTML-escaped; the cases travel as JSON in an inert
``<script type="application/json">`` block (``<``, ``>`` and ``&`` escaped, so no text can close it)
and the page's script builds them with ``textContent`` only, a page of them at a time and each
case's details when it is opened, so model output is text, never markup or a link, and a
10,000-case report opens in a few seconds. Pure: a ``Conclusion`` in, the page's text out, the same
text for the same conclusion.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from gate.reports.failure_details import describe_failure
from gate.reports.fix_report import html_section
from gate.reports.html_assets import SCRIPT, STYLE
from gate.reports.requests_text import requests_by_side
from gate.reports.run_facts import model_lines, model_name, trigger_lines
from gate.reports.tools_shown import ShownTool, difference, side_descriptions, trial_tools
from gate.reports.trial_counts import trials_text
from gate.results.messages import AssistantMessage, Message, SystemMessage, ToolResult, UserMessage
from gate.results.outcomes import CaseResult, RunResults, ToolInfo, TrialResult
from gate.util.escape import json_text, md_inline_html
from gate.verdict.baseline import CaseChange, Comparison, change_sentence, headline
from gate.verdict.conclusion import Conclusion
from gate.verdict.view import NO_CASES, OWN_THRESHOLDS, VerdictWords

# The filters a case can match, in the order they are offered (a case may match several).
KINDS = (
    "regressed",
    "failed",
    "error",
    "fixed",
    "flaky",
    "non-gating",
    "new",
    "removed",
    "passed",
    "skipped",
)


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _json_block(value: Any) -> str:
    """JSON that no text inside can end or comment out (``<``, ``>``, ``&`` as escapes; ASCII only,
    so a lone surrogate is an escape too)."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), sort_keys=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# --- the cases as data --------------------------------------------------------------------------


class _Prompts:
    """System prompts stored once, referred to by index (a long prompt is not repeated per trial)."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._index: dict[str, int] = {}

    def ref(self, text: str) -> int:
        if text not in self._index:
            self._index[text] = len(self.texts)
            self.texts.append(text)
        return self._index[text]


def _message(message: Message, prompts: _Prompts, call_index: dict[str, int]) -> dict[str, Any]:
    if isinstance(message, SystemMessage):
        return {"r": "system", "p": prompts.ref(message.content)}
    if isinstance(message, ToolResult):
        shown: dict[str, Any] = {"r": "tool", "t": message.text}
        if message.name:
            shown["n"] = message.name
        return _flags(shown, message.given, False, message.is_error)
    shown = {"r": message.role, "t": message.content}
    if isinstance(message, UserMessage):
        return _flags(shown, False, message.simulated, False)
    for value, short in ((message.thinking, "th"), (message.finish_reason, "cut")):
        if value:
            shown[short] = value
    _flags(shown, message.given, False, False)
    if message.given and message.tool_calls:
        shown["gc"] = [[c.name, c.arguments] for c in message.tool_calls]
    elif message.tool_calls:
        shown["c"] = [call_index[c.id] for c in message.tool_calls if c.id in call_index]
    return shown


def _flags(shown: dict[str, Any], given: bool, simulated: bool, error: bool) -> dict[str, Any]:
    for flag, short in ((given, "g"), (simulated, "sim"), (error, "err")):
        if flag:
            shown[short] = True
    return shown


def _trial(trial: TrialResult, prompts: _Prompts) -> dict[str, Any]:
    record = trial.record
    call_index = {call.id: i for i, call in enumerate(record.calls)}
    calls = [
        {
            "n": call.name,
            "a": json_text(call.arguments) if call.arguments is not None else call.raw_arguments,
            "bad": call.arguments_error or "",
            "res": call.result if isinstance(call.result, str) else json_text(call.result),
            "mock": call.mock,
            "err": call.is_error,
        }
        for call in record.calls
    ]
    shown_ids = {
        c.id for m in record.messages if isinstance(m, AssistantMessage) and not m.given for c in m.tool_calls
    }
    return {
        "i": trial.index + 1,
        "status": trial.status,
        "score": round(trial.score, 3),
        "head": f"{record.turns} turns, {record.latency_ms:,.0f} ms, "
        f"{record.usage.input_tokens}+{record.usage.output_tokens} tokens"
        + (f", ${record.cost_usd:.4f}" if record.cost_usd else "")
        + f", ended: {record.stop_reason.replace('_', ' ')}",
        "msgs": [_message(m, prompts, call_index) for m in record.messages],
        "calls": calls,
        "loose": [call_index[c.id] for c in record.calls if c.id not in shown_ids],
        "out": record.output,
        "error": record.error or "",
        **({"log": record.log} if record.log else {}),
        "fails": [describe_failure(f) for f in trial.failures],
        "checks": [
            {"k": c.kind, "score": round(c.score, 3), "ok": c.passed, "d": c.detail, "why": c.rationale}
            for c in trial.checks
        ],
    }


def _kinds(case: CaseResult | None, change: CaseChange | None) -> list[str]:
    kinds: list[str] = []
    if change is not None and change.status in ("regressed", "fixed", "new", "removed"):
        kinds.append(change.status)
    if case is not None:
        kinds.append(case.status)
        if case.flaky:
            kinds.append("flaky")
        if case.non_gating is not None:
            kinds.append("non-gating")
    return kinds


def _change(change: CaseChange | None) -> dict[str, Any] | None:
    if change is None:
        return None
    shown: dict[str, Any] = {"status": change.status, "note": change.note, "what": change.what}
    if change.status in ("regressed", "fixed"):
        shown["says"] = change_sentence(change)
    if change.p_value is not None:
        shown["p"] = f"{change.p_value:.3f}"
    if change.culprit:
        shown["line"] = change.culprit
    return shown


@dataclass(frozen=True)
class _Shown:
    """What the trials of both sides were offered: the suites' own tools by name (a model agent's
    trials offer those); every description once (``texts``) and every list of offered tools once
    (``sets``: a model agent's trials share one), each referred to by index."""

    head_tools: Mapping[str, Sequence[ToolInfo]]
    base_tools: Mapping[str, Sequence[ToolInfo]]
    texts: _Prompts = field(default_factory=_Prompts)
    sets: dict[str, int] = field(default_factory=dict)

    def sides(
        self, head: CaseResult | None, base: CaseResult | None
    ) -> tuple[list[tuple[ShownTool, ...]], list[tuple[ShownTool, ...]]]:
        return (
            [trial_tools(t, self.head_tools.get(head.suite, ())) for t in head.trials] if head else [],
            [trial_tools(t, self.base_tools.get(base.suite, ())) for t in base.trials] if base else [],
        )

    def ref(self, tools: Sequence[ShownTool], other: Mapping[str, set[str]] | None) -> int:
        """The index of the list of ``tools``: per tool, its name, its description's index and how it
        compares with the other side."""
        rows = [[t.name, self.texts.ref(t.description), difference(t, other)] for t in tools]
        return self.sets.setdefault(json.dumps(rows), len(self.sets))

    def lists(self) -> list[Any]:
        return [json.loads(key) for key in self.sets]


def _case(
    head: CaseResult | None,
    base: CaseResult | None,
    suite: int,
    change: CaseChange | None,
    prompts: _Prompts,
    shown: _Shown,
) -> dict[str, Any]:
    case = head or base
    assert case is not None
    failures = case.failures if head is not None and head.status in ("failed", "error") else ()
    head_tools, base_tools = shown.sides(head, base)
    both = head is not None and base is not None
    head_offered = side_descriptions(head_tools) if both else None
    base_offered = side_descriptions(base_tools) if both else None
    return {
        "s": suite,
        "id": case.case_id,
        "at": f"{case.file}:{case.line}" if case.line else case.file,
        "status": head.status if head is not None else "removed",
        "score": round(case.score, 3),
        "trials": trials_text(case),
        "ng": case.non_gating,
        "skip": case.skip_reason if case.status == "skipped" else None,
        "tags": list(case.tags),
        "k": _kinds(head, change),
        "why": [describe_failure(f) for f in failures],
        "change": _change(change),
        "expected": json_text(case.expected) if case.expected else "",
        "head": [
            {**_trial(t, prompts), "tools": shown.ref(tools, base_offered)}
            for t, tools in zip(head.trials, head_tools, strict=True)
        ]
        if head is not None
        else None,
        "base": [
            {**_trial(t, prompts), "tools": shown.ref(tools, head_offered)}
            for t, tools in zip(base.trials, base_tools, strict=True)
        ]
        if base is not None
        else None,
    }


def _page_data(conclusion: Conclusion) -> dict[str, Any]:
    """The suites, the system prompts, the tool descriptions and the lists of offered tools (once
    each) and every case, in the view's order (the failing worst first, on a pull request the
    regressions first; then the known-flaky failing; then the others)."""
    results, comparison = conclusion.results, conclusion.comparison
    changes = {(c.suite, c.case_id): c for c in comparison.changes} if comparison is not None else {}
    base_cases = {
        (c.suite, c.case_id): c
        for s in (conclusion.baseline.suites if conclusion.baseline else ())
        for c in s.cases
    }
    prompts = _Prompts()
    shown = _Shown(
        {s.name: s.tools for s in results.suites},
        {s.name: s.tools for s in (conclusion.baseline.suites if conclusion.baseline else ())},
    )
    suites = [{"name": s.name, "path": s.path} for s in results.suites]
    index = {s.name: i for i, s in enumerate(results.suites)}
    cases = {
        (case.suite, case.case_id): _case(
            case,
            base_cases.get((case.suite, case.case_id)),
            i,
            changes.get((case.suite, case.case_id)),
            prompts,
            shown,
        )
        for i, suite in enumerate(results.suites)
        for case in suite.cases
    }
    for change in comparison.of("removed") if comparison is not None else ():
        if change.suite not in index:
            index[change.suite] = len(suites)
            suites.append({"name": change.suite, "path": ""})
        base = base_cases.get((change.suite, change.case_id))
        if base is not None:
            cases[(change.suite, change.case_id)] = _case(
                None, base, index[change.suite], change, prompts, shown
            )
    ordered = [cases[key] for key in conclusion.view.cases.every if key in cases]
    return {
        "kinds": list(KINDS),
        "suites": suites,
        "prompts": prompts.texts,
        "descriptions": shown.texts.texts,
        "toolsets": shown.lists(),
        "cases": ordered,
    }


# --- the sections above the cases ------------------------------------------------------------------


def _verdict(results: RunResults, words: VerdictWords) -> list[str]:
    out = [f'<header class="verdict {words.mood}"><h1>{_e(words.title)}</h1>']
    rate = words.pass_rate
    if rate is not None:
        own = f" ({OWN_THRESHOLDS})" if rate.own_thresholds else ""
        out.append(
            f"<p><strong>Pass rate {_e(rate.rate)}</strong> ({_e(rate.cases)}) · threshold "
            f"<strong>{_e(rate.threshold)}</strong>{own}</p>"
        )
    else:
        out.append(f"<p><strong>{NO_CASES}</strong></p>")
    out.append(f"<p>{_e(words.counts)}</p>")
    if words.incomplete:
        out.append(f'<p class="warning">{_e(words.incomplete)}</p>')
    if words.reasons:
        out.append(f"<p>{_e(words.reasons_label)}:</p>")
        out += _list(words.reasons)
    out.append(f'<p class="when">Run {_e(results.started_at)} – {_e(results.finished_at)}</p></header>')
    return out


def _list(items: Iterable[str], cls: str = "") -> list[str]:
    attribute = f' class="{cls}"' if cls else ""
    return [f"<ul{attribute}>", *(f"<li>{_e(item)}</li>" for item in items), "</ul>"]


def _pr_section(results: RunResults, comparison: Comparison | None) -> list[str]:
    if comparison is None:
        return []
    out = ['<section id="pr"><h2>What this change did</h2>', *_list(headline(comparison))]
    rows = [*comparison.of("regressed"), *comparison.of("fixed")]
    if rows:
        out.append(
            "<table><tr><th>change</th><th>case</th><th>trials base → head</th><th>p</th>"
            "<th>what changed</th><th>changed line</th></tr>"
        )
        for c in rows:
            trials = f"{c.base_passed_trials}/{c.base_trials} → {c.head_passed_trials}/{c.head_trials}"
            p = f"{c.p_value:.3f}" if c.p_value is not None else "–"
            out.append(
                f'<tr class="{_e(c.status)}"><td>{_e(c.status)}</td><td><code>{_e(c.suite)}/{_e(c.case_id)}'
                f"</code></td><td>{_e(trials)}</td><td>{_e(p)}</td><td>{_e(c.what or c.note)}</td>"
                f"<td><code>{_e(c.culprit or '–')}</code></td></tr>"
            )
        out.append("</table>")
    requests = requests_by_side(results.settings)
    if requests:
        out.append(f"<p>Requests: {_e(requests)}.</p>")
    return [*out, "</section>"]


def _suites_section(conclusion: Conclusion) -> list[str]:
    results = conclusion.results
    if not results.suites:
        return []
    out = [
        '<section id="suites"><h2>Suites</h2><table><tr><th>suite</th><th>file</th><th>model</th>'
        "<th>cases</th><th>passed</th><th>failed</th><th>errors</th><th>flaky</th>"
        "<th>pass rate / threshold</th></tr>"
    ]
    for line in conclusion.view.suites:
        suite, sv = line.result, line.verdict
        counts = (sv.passed_count, sv.failed_count, sv.error_count, sv.flaky_count)
        out.append(
            f'<tr class="{line.mood}"><td><code>{_e(suite.name)}</code></td>'
            f"<td><code>{_e(suite.path)}</code></td><td>{_e(model_name(suite))}</td><td>{len(suite.cases)}</td>"
            + "".join(f"<td>{n}</td>" for n in counts)
            + f"<td>{_e(line.rate)}</td></tr>"
        )
    out.append("</table>")
    facts = model_lines(results, conclusion.baseline)
    triggers = trigger_lines(results)
    if triggers:
        facts.append(f"suites run for the files changed since {results.settings.changed_since}:")
    out += _list(facts)
    if triggers:
        out += _list(triggers, "triggers")
    return [*out, "</section>"]


def _analysis_section(conclusion: Conclusion) -> list[str]:
    analysis = conclusion.analysis
    if not (analysis.reasons or analysis.recommendations):
        return []
    out = ['<section id="patterns"><h2>Failure patterns</h2>']
    if analysis.reasons:
        out.append("<table><tr><th>reason</th><th>failed cases</th><th>occurrences</th></tr>")
        out += [
            f"<tr><td>{_e(r.title)}</td><td>{r.cases}</td><td>{r.occurrences}</td></tr>"
            for r in analysis.reasons
        ]
        out.append("</table>")
    if analysis.recommendations:
        out.append("<h3>Recommendations</h3><ol>")
        for r in analysis.recommendations:
            cases = ", ".join(r.cases[:5]) + (f" and {len(r.cases) - 5} more" if len(r.cases) > 5 else "")
            where = f"{r.file}:{r.line}" if r.line else r.file
            out.append(  # the advice is Markdown the gate wrote: its code spans shown as code
                f"<li><code>{_e(where)}</code>: {md_inline_html(r.message)} "
                f'<span class="cases">Cases: {_e(cases)}</span></li>'
            )
        out.append("</ol>")
    return [*out, "</section>"]


def _filters(data: dict[str, Any]) -> list[str]:
    """The filter controls: a button per kind of case present (with its count), the suites, the tags,
    the search box. The page's script reads and updates them."""
    counts = {kind: 0 for kind in KINDS}
    tags: set[str] = set()
    for case in data["cases"]:
        for kind in case["k"]:
            counts[kind] = counts.get(kind, 0) + 1
        tags.update(case["tags"])
    buttons = "".join(
        f'<button type="button" class="chip {kind}" data-kind="{kind}" aria-pressed="false">{kind} '
        f"<span>{counts[kind]}</span></button>"
        for kind in KINDS
        if counts[kind]
    )
    suites = "".join(f'<option value="{i}">{_e(s["name"])}</option>' for i, s in enumerate(data["suites"]))
    tag_options = "".join(f'<option value="{_e(t)}">{_e(t)}</option>' for t in sorted(tags))
    return [
        '<div class="filters">',
        f'<div class="chips" role="group" aria-label="status">{buttons}</div>',
        f'<label>suite <select id="suite"><option value="">all suites</option>{suites}</select></label>',
        f'<label>tag <select id="tag"><option value="">all tags</option>{tag_options}</select></label>',
        '<label>case id <input id="search" type="search" placeholder="search by id" autocomplete="off">'
        "</label>",
        '<button type="button" id="clear">clear filters</button>',
        "</div>",
    ]


def _cases_section(data: dict[str, Any]) -> list[str]:
    return [
        '<section id="cases"><h2>Cases</h2>',
        *_filters(data),
        '<p id="count" aria-live="polite"></p>',
        '<div id="case-list"></div>',
        '<button type="button" id="more" hidden>show more</button>',
        "<noscript><p>The case list needs JavaScript (the page's own; nothing is fetched).</p></noscript>",
        "</section>",
    ]


def render(conclusion: Conclusion) -> str:
    """The report's HTML text for ``conclusion``."""
    results, words = conclusion.results, conclusion.view.verdict
    data = _page_data(conclusion)
    policy = (
        "default-src 'none'; "
        f"script-src {_csp_hash(SCRIPT)}; style-src {_csp_hash(STYLE)}; "
        "img-src 'none'; connect-src 'none'; font-src 'none'; media-src 'none'; object-src 'none'; "
        "frame-src 'none'; base-uri 'none'; form-action 'none'"
    )
    body = [
        *_verdict(results, words),
        "<main>",
        *_pr_section(results, conclusion.comparison),
        *html_section(results.fixes),
        *_suites_section(conclusion),
        *_analysis_section(conclusion),
        *_cases_section(data),
        "</main>",
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
            '<meta name="referrer" content="no-referrer">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{_e(words.title)}</title>",
            f"<style>{STYLE}</style>",
            "</head><body>",
            *body,
            f'<script type="application/json" id="report-data">{_json_block(data)}</script>',
            f"<script>{SCRIPT}</script>",
            "</body></html>",
            "",
        ]
    )


__all__: Sequence[str] = ("KINDS", "render")
