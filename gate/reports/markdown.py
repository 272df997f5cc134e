"""The Markdown report: the same text goes to the sticky PR comment and the job summary.

Layout: the hidden marker line; with a baseline, what the PR did (regressions and fixes with their
trial counts, p-values and the changed line that explains them; pass rate, mean score, tokens, cost
and latency per suite, base vs head; the requests each side needed); the verdict, baseline changes
(regressed first), a table of suites, the failure-pattern analysis (reasons, confusion table, failing
arguments, recommendations with ``file:line``), then one collapsible ``<details>`` block per failed
or errored case, in the order every report lists them (``gate.verdict.view``), with its reasons,
expected vs actual calls, final output and transcript, then the passed cases.

The report fits in ``limit`` characters (65,536 for a PR comment; about 1 MiB for a job summary):
the least important detail is dropped first (passed-case detail, then transcripts, then per-case
blocks beyond the worst ones, then the tails of the analysis tables), and a note says what was cut
and where the full report is. All untrusted text (model output, arguments, tool results, names the
model made up, error messages) goes through ``gate.util.escape``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.analysis.analyse import Analysis
from gate.reports.failure_details import details_text
from gate.reports.fix_report import markdown_section
from gate.reports.requests_text import cost_text, request_lines, requests_by_side, timeout_advice
from gate.reports.run_facts import model_lines, trigger_lines
from gate.reports.transcript import final_answer_text, transcript
from gate.reports.trial_counts import curtailed_line, passed_of_run, trials_text
from gate.results.outcomes import REASON_TITLES, CaseResult, RunResults, TrialResult
from gate.results.settings import PriceRecord
from gate.util.escape import html_text, json_text, md_cell, md_code_block, md_inline_code, md_text, truncate
from gate.util.json_types import JsonObject
from gate.verdict.baseline import CaseChange, Comparison, FailingGroup, SuiteDelta, headline
from gate.verdict.conclusion import Conclusion
from gate.verdict.policy import pct
from gate.verdict.view import GROUP_WORDS, NO_CASES, OWN_THRESHOLDS, CaseOrder, SuiteLine, VerdictWords

COMMENT_LIMIT = 65536  # GitHub's limit of a PR comment, in characters
SUMMARY_LIMIT = 1024 * 1024  # the job summary's (1 MiB): the Markdown file is written within it
MAX_VALUE_CHARS = 300  # an argument value or matcher in a table cell
MAX_OUTPUT_CHARS = 4_000  # the final output of a case
MAX_TRANSCRIPT_CHARS = 8_000
MAX_CHANGE_ROWS = 50


def marker_line(marker: str = "default") -> str:
    safe = "".join(ch for ch in marker if ch.isalnum() or ch in "-_.:/") or "default"
    return f"<!-- tool-eval-gate:{safe} -->"


def _json(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    return truncate(json_text(value), limit)


def _code(value: Any) -> str:
    return md_inline_code(value, table=True)


def _where(file: str, line: int) -> str:
    return _code(f"{file}:{line}" if line else file)


# --- the verdict ----------------------------------------------------------------------------------

_ICONS = {"passed": "✅", "failed": "❌", "incomplete": "⚠️", "unverified": "⚠️"}


def _verdict_section(results: RunResults, words: VerdictWords) -> list[str]:
    out = [f"## {_ICONS[words.mood]} {words.title}", ""]
    rate = words.pass_rate
    if rate is not None:
        line = f"**Pass rate {rate.rate}** ({rate.cases}) · threshold **{rate.threshold}**"
        if rate.own_thresholds:
            line += f" ({OWN_THRESHOLDS})"
    else:
        line = f"**{NO_CASES}**"
    out += [line, "", words.counts, ""]
    if words.incomplete:
        out += ["> [!WARNING]", f"> {md_text(words.incomplete)}", ""]
    if words.reasons:
        out.append(f"**{words.reasons_label}:**")
        out += [f"- {md_text(r)}" for r in words.reasons]
        out.append("")
    if results.shard:
        out += [f"_Shard {md_text(results.shard)} of a split run._", ""]
    return out


# --- what the PR did ------------------------------------------------------------------------------


def _signed(value: float, text: str) -> str:
    return f"+{text}" if value > 0 else text if value < 0 else "±0"


def _change(base: str, head: str, change: str) -> str:
    return f"{base} → {head} ({change})"


def _delta_row(delta: SuiteDelta) -> str:
    h, b = delta.head, delta.base
    name = _code(delta.suite) if delta.suite != "overall" else "**overall**"
    head_rate = f"{pct(h.pass_rate)} ({h.passed}/{h.counted})"
    if b is None:
        return (
            f"| {name} | new | {head_rate} | – | {h.mean_score:.2f} | "
            f"{h.tokens:,} | ${h.cost_usd:.4f} | {h.latency_ms / 1000:.2f} s |"
        )
    rate = h.pass_rate - b.pass_rate
    score = h.mean_score - b.mean_score
    tokens = h.tokens - b.tokens
    cost = h.cost_usd - b.cost_usd
    latency = (h.latency_ms - b.latency_ms) / 1000
    cells = [
        name,
        f"{pct(b.pass_rate)} ({b.passed}/{b.counted})",
        head_rate,
        _signed(rate, f"{rate * 100:.1f} pp"),
        _change(f"{b.mean_score:.2f}", f"{h.mean_score:.2f}", _signed(score, f"{score:.2f}")),
        _change(f"{b.tokens:,}", f"{h.tokens:,}", _signed(tokens, f"{tokens:,}")),
        _change(f"${b.cost_usd:.4f}", f"${h.cost_usd:.4f}", _signed(cost, f"${cost:.4f}")),
        _change(
            f"{b.latency_ms / 1000:.2f} s",
            f"{h.latency_ms / 1000:.2f} s",
            _signed(latency, f"{latency:.2f} s"),
        ),
    ]
    return "| " + " | ".join(cells) + " |"


def _pr_section(results: RunResults, comparison: Comparison | None) -> list[str]:
    if comparison is None:
        return []
    regressed = bool(comparison.of("regressed"))
    out = ["## " + ("🔴 What this PR did" if regressed else "What this PR did"), ""]
    out += [f"- {md_text(sentence)}" for sentence in headline(comparison)]
    out.append("")
    deltas = list(comparison.suites) + (
        [comparison.overall] if comparison.overall and len(comparison.suites) > 1 else []
    )
    if deltas:
        out += [
            "| suite | base | head | change | mean score | tokens | cost | latency / case |",
            "|---|---|---|---|---|---|---|---|",
        ]
        out += [_delta_row(d) for d in deltas]
        out.append("")
    cost = requests_by_side(results.settings)
    if cost:
        out += [f"_Requests: {md_text(cost)}._", ""]
    return out


# --- baseline -------------------------------------------------------------------------------------


def _baseline_section(comparison: Comparison | None) -> list[str]:
    if comparison is None:
        return []
    c = comparison.counts
    out = ["### Changes against the baseline", ""]
    out.append(
        " · ".join(
            f"{c.get(k, 0)} {label}"
            for k, label in (
                ("regressed", "regressed"),
                ("fixed", "fixed"),
                ("new", "new"),
                ("removed", "removed"),
                ("still_failing", "still failing"),
                ("unchanged", "unchanged"),
            )
        )
    )
    out.append("")
    out.append(
        f"Pass rate of the compared cases: {pct(comparison.base_pass_rate)} → "
        f"{pct(comparison.head_pass_rate)}"
    )
    out.append("")
    rows: list[CaseChange] = []
    for status in ("regressed", "fixed", "new", "removed", "still_failing"):
        rows += list(comparison.of(status))
    noted = [ch for ch in comparison.of("unchanged") if ch.note.startswith("failed now")]
    rows += noted
    if rows:
        out += ["| change | case | base | head | note |", "|---|---|---|---|---|"]
        icons = {
            "regressed": "🔴 regressed",
            "fixed": "🟢 fixed",
            "new": "🆕 new",
            "removed": "➖ removed",
            "still_failing": "🟠 still failing",
            "unchanged": "⚪ unchanged",
        }
        for ch in rows[:MAX_CHANGE_ROWS]:
            base = _trials_label(ch.base_status, ch.base_passed_trials, ch.base_trials)
            head = _trials_label(ch.head_status, ch.head_passed_trials, ch.head_trials)
            out.append(
                f"| {icons[ch.status]} | {_code(ch.suite + '/' + ch.case_id)} | {base} | {head} | "
                f"{md_cell(ch.note)} |"
            )
        if len(rows) > MAX_CHANGE_ROWS:
            out.append(f"\n_… and {len(rows) - MAX_CHANGE_ROWS} more changes (see the JSON results)._")
        out.append("")
    return out


def _trials_label(status: str | None, passed: int, n: int) -> str:
    if status is None:
        return "–"
    return f"{status} ({passed}/{n})" if n > 1 else status


# --- suites ---------------------------------------------------------------------------------------


_SUITE_MARKS = {"incomplete": "⚠️", "passed": "✅", "failed": "❌"}


def _suite_row(line: SuiteLine) -> str:
    suite, sv, m = line.result, line.verdict, line.metrics
    cost = md_cell(cost_text(suite.requests)) if suite.requests.attempts else "–"
    return (
        f"| {_SUITE_MARKS[line.mood]} {_code(suite.name)} | {len(suite.cases)} | {sv.passed_count} | "
        f"{sv.failed_count} | {sv.error_count} | {sv.flaky_count} | {line.rate} | "
        f"{m.precision:.2f} | {m.recall:.2f} | {m.argument_accuracy:.2f} | "
        f"{m.latency_ms:,.0f} ms | {m.input_tokens + m.output_tokens:,} | {cost} |"
    )


def _run_facts(results: RunResults, baseline: RunResults | None) -> list[str]:
    """Which model ran (and the baseline's when it differs), and what made each suite run under
    ``--changed-since``."""
    out = [f"{md_text(line[0].upper() + line[1:])}." for line in model_lines(results, baseline)]
    triggers = trigger_lines(results)
    if triggers:
        since = md_inline_code(results.settings.changed_since or "")
        out += ["", f"Suites run for the files changed since {since}:", ""]
        out += [f"- {md_text(line)}" for line in triggers]
    return [*out, ""] if out else []


def _suites_section(conclusion: Conclusion) -> list[str]:
    results, lines = conclusion.results, conclusion.view.suites
    if not results.suites:
        return []
    out = [
        "### Suites",
        "",
        "| suite | cases | passed | failed | errors | flaky | pass rate / threshold | precision | recall | "
        "argument accuracy | mean latency | tokens | cost |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    out += [_suite_row(line) for line in lines]
    out.append("")
    out += _requests_section(results)
    curtailed = curtailed_line([c for s in results.suites for c in s.cases])
    if curtailed:
        out += [curtailed[0].upper() + curtailed[1:] + ".", ""]
    out += _scores_section(lines)
    out += _pass_hat_k_section(lines)
    out += _run_facts(results, conclusion.baseline)
    prices = _prices_line(results.settings.prices)
    if prices:
        out += [prices, ""]
    return out


def _sentence(line: str) -> str:
    return md_text(line[:1].upper() + line[1:]) + "."


def _requests_section(results: RunResults) -> list[str]:
    """The run's model requests (judge and simulated user included; with --baseline auto both sides:
    the cost column's total plus the base side's), and where their time went per suite when some
    attempts failed or timed out."""
    total = results.total_requests
    advice = timeout_advice(total)
    lines = [line for line in request_lines(total) if line != advice]
    if not lines:
        return []
    out = [" ".join(_sentence(line) for line in lines), ""]
    if advice:
        out += ["> [!TIP]", f"> {_sentence(advice)}", ""]
    if not total.retries:
        return out
    out += [
        "| suite | requests | attempts | timed out | rate limited | failed | answering "
        "| in timed-out attempts | waiting to retry |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for suite in results.suites:
        r = suite.requests
        counts = (r.requests, r.attempts, r.timeouts, r.rate_limited, r.failed)
        times = (r.answered_ms, r.timeout_ms, r.backoff_ms)
        cells = [_code(suite.name), *map(str, counts), *(f"{ms / 1000:,.1f} s" for ms in times)]
        out.append(f"| {' | '.join(cells)} |")
    return [*out, ""]


def _scores_section(lines: Sequence[SuiteLine]) -> list[str]:
    """Per suite, the metrics the table has no room for: F1, the output-check score, the mean case
    score and the mean score of each kind of check (DESIGN section 3), over the evaluated cases."""
    rows = []
    for line in lines:
        m = line.metrics
        if not m.cases:
            continue
        kinds = ", ".join(f"{kind} {score:.2f}" for kind, score in m.check_scores.items())
        rows.append(
            f"- {md_text(line.result.name)}: F1 {m.f1:.2f} · output checks {m.output_score:.2f} · "
            f"mean case score {m.score:.2f}" + (f" · by kind of check: {md_text(kinds)}" if kinds else "")
        )
    if not rows:
        return []
    return ["Scores (means over the evaluated cases):", "", *rows, ""]


def _pass_hat_k_section(lines: Sequence[SuiteLine]) -> list[str]:
    """pass^k per suite that ran several trials per case (tau-bench's estimator, mean over cases)."""
    rows = []
    for line in lines:
        if line.pass_hat_k:
            cells = " · ".join(f"k={k}: {value:.3f} ({n} cases)" for k, (value, n) in line.pass_hat_k.items())
            rows.append(f"- {md_text(line.result.name)}: {cells}")
    if not rows:
        return []
    return ["pass^k (all of k trials pass; C(c,k)/C(n,k) per case, mean over cases):", "", *rows, ""]


def _prices_line(prices: Mapping[str, PriceRecord] | None) -> str:
    """Which price each model's cost was estimated with, and where it came from (``--prices``)."""
    if not prices:
        return ""
    parts = []
    for name, price in sorted(prices.items()):
        if price.input is not None and price.output is not None:
            figure = f"{price.input:.2f} / {price.output:.2f}"
            parts.append(f"{_code(name)} {figure} ({_code(price.source)})")
        else:
            parts.append(f"{_code(name)} no price (give it with `--prices`)")
    return (
        "<sub>Cost estimated with prices in USD per million input / output tokens: "
        + "; ".join(parts)
        + ".</sub>"
    )


# --- analysis -------------------------------------------------------------------------------------


def _analysis_section(analysis: Analysis, rows: int | None) -> list[str]:
    if not (analysis.reasons or analysis.recommendations):
        return []

    def cap(items: Sequence[Any]) -> tuple[Sequence[Any], int]:
        if rows is None or len(items) <= rows:
            return items, 0
        return items[:rows], len(items) - rows

    out = ["### Failure patterns", ""]
    if analysis.reasons:
        out += ["| reason | failed cases | occurrences |", "|---|--:|--:|"]
        items, more = cap(analysis.reasons)
        out += [f"| {md_cell(r.title)} | {r.cases} | {r.occurrences} |" for r in items]
        if more:
            out.append(f"| _… {more} more_ | | |")
        out.append("")
    if analysis.confusion:
        out += [
            "**Tool confusion** (expected → called)",
            "",
            "| expected | called | cases |",
            "|---|---|--:|",
        ]
        items, more = cap(analysis.confusion)
        for c in items:
            expected = _code(c.expected) if c.expected else "_(none)_"
            called = _code(c.called) if c.called else "_(not called)_"
            out.append(f"| {expected} | {called} | {c.cases} |")
        if more:
            out.append(f"| _… {more} more_ | | |")
        out.append("")
    if analysis.arguments:
        out += [
            "**Arguments that fail most**",
            "",
            "| tool | argument | failed | of calls | main reason | example (expected → actual) |",
            "|---|---|--:|--:|---|---|",
        ]
        items, more = cap(analysis.arguments)
        for a in items:
            example = f"{_code(_json(a.example_expected, 80))} → {_code(_json(a.example_actual, 80))}"
            out.append(
                f"| {_code(a.tool)} | {_code(a.argument)} | {a.failures} | {a.calls} | "
                f"{md_cell(REASON_TITLES.get(a.reasons[0][0], a.reasons[0][0]))} | {example} |"
            )
        if more:
            out.append(f"| _… {more} more_ | | | | | |")
        out.append("")
    if analysis.hallucinated:
        names = ", ".join(f"{_code(h.name)} ({h.cases})" for h in analysis.hallucinated[: rows or None])
        out += [f"**Hallucinated tools:** {names}", ""]
    if analysis.recommendations:
        out += ["**Recommendations**", ""]
        items, more = cap(analysis.recommendations)
        for i, r in enumerate(items, 1):
            cases = ", ".join(_code(c) for c in r.cases[:5])
            if len(r.cases) > 5:
                cases += f" and {len(r.cases) - 5} more"
            out.append(f"{i}. {_where(r.file, r.line)}: {r.message} _Cases: {cases}._")
        if more:
            out.append(f"\n_… and {more} more recommendations._")
        out.append("")
    return out


# --- per case -------------------------------------------------------------------------------------


def _first_trial(case: CaseResult) -> TrialResult | None:
    for status in ("failed", "error"):
        for t in case.trials:
            if t.status == status:
                return t
    return case.trials[0] if case.trials else None


def _expected_calls(case: CaseResult, trial: TrialResult) -> list[JsonObject] | None:
    """The expected calls the trial was scored against: the alternative's it was, else the main ones."""
    expected = case.expected if isinstance(case.expected, dict) else {}
    alternatives = expected.get("alternatives")
    if trial.alternative is not None and isinstance(alternatives, list):
        chosen = alternatives[trial.alternative] if trial.alternative < len(alternatives) else None
        expected = chosen if isinstance(chosen, dict) else {}
    calls = expected.get("calls")
    if isinstance(calls, list) and all(isinstance(c, dict) for c in calls):
        return calls
    return None


def _expected_cell(call: JsonObject) -> str:
    name = call.get("tool", call.get("name", "?"))
    args = call.get("args", call.get("arguments"))
    extra = ""
    times = call.get("times")
    if times not in (None, 1, {"min": 1, "max": 1}):
        extra = f" × {_json(times, 40)}"
    if args not in (None, {}):
        args_text = _code(_json(args))
    else:  # args: {} means no arguments; leaving args out (extra arguments allowed) means any
        args_text = "_(any arguments)_" if call.get("allow_extra_args", True) else "_(no arguments)_"
    return f"{_code(name)}{md_cell(extra) if extra else ''} {args_text}"


def _actual_cell(call: Any) -> str:
    args = (
        _json(call.arguments) if call.arguments is not None else truncate(call.raw_arguments, MAX_VALUE_CHARS)
    )
    text = f"{_code(call.name)} {_code(args)}"
    if call.arguments_error:
        text += f" ⚠️ {md_cell(call.arguments_error)}"
    return text


def _calls_table(case: CaseResult, trial: TrialResult) -> list[str]:
    expected = _expected_calls(case, trial)
    actual = list(trial.record.calls)
    if expected is None and not actual:
        return []
    against = (
        [f"Scored against alternative {trial.alternative + 1}:", ""] if trial.alternative is not None else []
    )
    rows: list[tuple[str, str]] = []
    used: set[int] = set()
    if expected is not None:
        aligned = len(trial.pairing) == len(expected)
        for i, call in enumerate(expected):
            paired = trial.pairing[i] if aligned else None
            if paired is not None and 0 <= paired < len(actual):
                used.add(paired)
                rows.append((_expected_cell(call), _actual_cell(actual[paired])))
            else:
                rows.append((_expected_cell(call), "_(not called)_" if aligned else ""))
    for j, made in enumerate(actual):
        if j not in used:
            rows.append(
                ("_(not expected)_" if expected is not None and trial.pairing else "", _actual_cell(made))
            )
    out = [*against, "| expected call | actual call |", "|---|---|"]
    out += [f"| {e or ' '} | {a or ' '} |" for e, a in rows]
    out.append("")
    return out


_GROUP_TAGS = {  # a case failing now only says nothing more
    "regressed": f" · 🔴 {GROUP_WORDS['regressed']}",
    "new": "",
    "old": f" · {GROUP_WORDS['old']}",
}


def _case_parts(case: CaseResult, group: FailingGroup | None = None) -> tuple[str, str]:
    """A case's block without its closing line, and its transcript section ("" without trials);
    ``group``: where it stands against the base side, when there is one."""
    trial = _first_trial(case)
    icon = "⚠️" if case.status == "error" else "❌"
    failures = case.failures
    if case.status == "error":
        headline = "error: " + truncate(
            (trial.record.error if trial else None) or "could not be evaluated", 120
        )
    else:
        titles = list(dict.fromkeys(REASON_TITLES.get(f.reason, f.reason) for f in failures))
        headline = ", ".join(titles) or "failed"
    flaky = " · flaky" if case.flaky else ""
    if case.non_gating is not None:
        flaky += f" · non-gating: {html_text(truncate(case.non_gating, 120))}"
    trials = f" · {trials_text(case)}" if trials_text(case) else ""
    out = [
        "<details>",
        f"<summary>{icon} <code>{html_text(case.suite)}/{html_text(case.case_id)}</code>: "
        f"{html_text(headline)}"
        f"{trials}{_GROUP_TAGS[group] if group else ''}{flaky}</summary>",
        "",
    ]
    out.append(f"Case at {_where(case.file, case.line)}, score {case.score:.2f}.")
    out.append("")
    if failures:
        for f in failures:
            suffix = details_text(f, _code, lambda value: _code(_json(value)))
            out.append(
                f"- **{md_text(REASON_TITLES.get(f.reason, f.reason))}**: "
                f"{md_text(truncate(f.message, 500))}{suffix}"
            )
        out.append("")
    if trial is not None:
        # A failed check says again what its failure says; shown only where the failures listed are
        # not this trial's (a case failed by its mean score: the checks say why the score is low).
        failed_checks = [c for c in trial.checks if not c.passed] if failures != trial.failures else []
        for check in failed_checks:
            why = f" Judge: {md_text(truncate(check.rationale, 500))}" if check.rationale else ""
            out.append(
                f"- check {md_text(check.kind)} scored {check.score:.2f}: "
                f"{md_text(truncate(check.detail, 500))}{why}"
            )
        if failed_checks:
            out.append("")
        out += _calls_table(case, trial)
        if trial.record.error:
            label = "Cut off:" if trial.record.stop_reason == "max_tokens" else "Provider error:"
            out += [label, "", md_code_block(truncate(trial.record.error, MAX_OUTPUT_CHARS))]
        out += [
            "Final output:",
            "",
            md_code_block(final_answer_text(trial.record, MAX_OUTPUT_CHARS) or "(empty)"),
        ]
    transcript_part = ""
    if case.trials:
        transcript_part = "\n".join(
            [
                "<details><summary>Transcript</summary>",
                "",
                md_code_block(truncate(transcript(case), MAX_TRANSCRIPT_CHARS)),
                "</details>",
                "",
            ]
        )
    return "\n".join(out), transcript_part


def _passed_section(results: RunResults) -> list[str]:
    passed = [c for s in results.suites for c in s.cases if c.status in ("passed", "skipped")]
    if not passed:
        return []
    out = [
        "<details><summary>Passed and skipped cases</summary>",
        "",
        "| case | status | trials | score | where |",
        "|---|---|--:|--:|---|",
    ]
    for c in passed:
        status = c.status + (" (flaky)" if c.flaky else "")
        if c.status == "skipped" and c.skip_reason:
            status += f": {md_cell(truncate(c.skip_reason, 120))}"
        out.append(
            f"| {_code(c.suite + '/' + c.case_id)} | {status} | {passed_of_run(c)} | {c.score:.2f} | "
            f"{_where(c.file, c.line)} |"
        )
    out += ["", "</details>", ""]
    return out


def _join(lines: list[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""


KNOWN_FLAKY_HEADING = "### Known-flaky cases that did not pass (non-gating: not counted)\n\n"


class _CaseBlocks:
    """The failed and errored cases' blocks in the view's order (worst first; on a pull request the
    regressions first), each built once; the known-flaky (non-gating) ones after the others, under
    their own heading: they never fail the gate."""

    def __init__(self, order: CaseOrder):
        self.order = order
        self.cases = order.failing + order.known_flaky
        self.gating = len(order.failing)
        self._parts: dict[int, tuple[str, str]] = {}  # index in ``cases`` -> ``_case_parts``

    def take(self, with_transcript: bool, budget: int) -> tuple[list[str], bool]:
        """Blocks worst first while they fit in ``budget``; whether all of them did."""
        kept: list[str] = []
        used = 0
        for i, c in enumerate(self.cases):
            main, transcript_part = self._parts.get(i) or self._parts.setdefault(
                i, _case_parts(c, self.order.group(c))
            )
            if with_transcript and transcript_part:
                block = f"{main}\n{transcript_part}\n</details>\n\n"
            else:
                block = f"{main}\n</details>\n\n"
            if i == self.gating:  # the first known-flaky case
                block = KNOWN_FLAKY_HEADING + block
            used += len(block)
            if used > budget:
                return kept, False
            kept.append(block)
        return kept, True


@dataclass(frozen=True)
class _Layout:
    """What a report is fitted from: the sections that are always whole (marker, what the PR did,
    verdict, baseline, suites), the analysis, the case blocks, and the limit."""

    head: str
    analysis: Analysis
    blocks: _CaseBlocks
    limit: int
    hint: str  # where the full report is, as a sentence ("" when not said)

    @property
    def reserve(self) -> int:
        """Room kept for the note that says what was cut."""
        return 600 + len(self.hint)

    def body(self, rows: int | None) -> str:
        """Everything before the case blocks, the analysis tables cut to ``rows`` rows (None: whole)."""
        header = "### Failed cases\n\n" if self.blocks.gating else ""
        return self.head + _join(_analysis_section(self.analysis, rows)) + header

    def note(self, cut: list[str]) -> str:
        if not cut:
            return ""
        what = ", ".join(cut)
        return f"\n---\n_This report was shortened to fit {self.limit:,} characters: {what}.{self.hint}_\n"


def render(
    conclusion: Conclusion,
    *,
    limit: int = COMMENT_LIMIT,
    full_report_hint: str = "",
    marker: str = "default",
    html_report: str = "",
) -> str:
    """The Markdown report of ``conclusion``, at most ``limit`` characters, starting with the hidden
    marker line. The least important detail goes first: the passed cases, then transcripts, then the
    least severe case blocks and the tails of the analysis tables, and at last the report is cut off.
    ``html_report``: where the HTML report is (Markdown the caller wrote, e.g. a link to the run's
    artifacts), said under the verdict and never cut. ``full_report_hint``: where the whole report is,
    said when it was shortened (Markdown the caller wrote too: untrusted text is escaped by it)."""
    results, comparison = conclusion.results, conclusion.comparison
    html_line = (
        [f"📄 Every case, filterable, with its transcripts: {html_report}.", ""] if html_report else []
    )
    head = _join(
        [marker_line(marker)]
        + _pr_section(results, comparison)
        + _verdict_section(results, conclusion.view.verdict)
        + html_line
        + markdown_section(results.fixes)
    )
    head += _join(_baseline_section(comparison)) + _join(_suites_section(conclusion))
    hint = f" The full report: {full_report_hint}." if full_report_hint else ""
    layout = _Layout(head, conclusion.analysis, _CaseBlocks(conclusion.view.cases), limit, hint)
    body = layout.body(None)
    blocks, all_fit = layout.blocks.take(True, limit - len(body))
    if all_fit:  # the list of passed cases is built only when it may fit
        passed = _join(_passed_section(results))
        if len(body) + sum(map(len, blocks)) + len(passed) <= limit:
            return body + "".join(blocks) + passed
    any_passed = any(c.status in ("passed", "skipped") for s in results.suites for c in s.cases)
    cut = ["the list of passed and skipped cases was left out"] if any_passed else []
    if all_fit and len(body) + sum(map(len, blocks)) + layout.reserve <= limit:
        return body + "".join(blocks) + layout.note(cut)
    del blocks
    return _without_transcripts(layout, cut)


def _without_transcripts(layout: _Layout, cut: list[str]) -> str:
    """The report with case blocks but no transcripts; failing that, a shorter one."""
    if any(c.trials for c in layout.blocks.cases):
        cut = [*cut, "transcripts were left out"]
    body = layout.body(None)
    blocks, all_fit = layout.blocks.take(False, layout.limit - layout.reserve - len(body))
    if all_fit:
        return body + "".join(blocks) + layout.note(cut)
    return _fewer_blocks(layout, cut, blocks) or _cut_off(layout, cut)


def _fewer_blocks(layout: _Layout, cut: list[str], whole_analysis_blocks: list[str]) -> str | None:
    """The worst cases' blocks that fit, beside the whole analysis or its tables' top rows; None when
    even 3 rows leave no room."""
    bad = layout.blocks.cases
    for rows in (None, 20, 10, 5, 3):
        body = layout.body(rows)
        budget = layout.limit - layout.reserve - len(body)
        if budget < 0:
            continue
        kept = whole_analysis_blocks if rows is None else layout.blocks.take(False, budget)[0]
        if rows is None and not kept and bad:
            continue  # rather trim the analysis than drop every case block
        this_cut = list(cut)
        if rows is not None:
            this_cut.append(f"the failure-pattern tables show their top {rows} rows")
        this_cut.append(
            f"details of {len(bad) - len(kept)} of {len(bad)} failed cases (the least severe) were left out"
        )
        return body + "".join(kept) + layout.note(this_cut)
    return None


def _cut_off(layout: _Layout, cut: list[str]) -> str:
    """Even the shortest form is too long: cut at a line boundary (the head has no code blocks)."""
    ending = layout.note([*cut, "the report was cut off"])
    text = layout.head + _join(_analysis_section(layout.analysis, 3))
    room = max(0, layout.limit - len(ending))
    if len(text) > room:
        text = text[:room]
        text = text[: text.rfind("\n") + 1] if "\n" in text else ""
    return (text + ending)[: layout.limit] if layout.limit > 0 else ""
