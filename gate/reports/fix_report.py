"""What the search for verified fixes found (``RunResults.fixes``), in every report's form: the
Markdown section (the PR comment and the job summary), the HTML section, the console lines.

Each verified edit first, with its evidence ("fixes 3 of 3 failing cases, breaks 0 of 41 passing,
5 trials each") and its diff; then every candidate tried, verified or not, with what each case said
of it; "no verified fix within the budget" when that is what happened; the cases left alone and why;
what the search sent, apart from the run's requests. A candidate's text is the fix model's: untrusted,
escaped like every model output (inline code, a code block, HTML text). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from gate.fixes.patch import diff_lines
from gate.fixes.verification import evidence
from gate.results.fixes import Candidate, CandidateCase, DefinitionSearch, FixSearch
from gate.util.escape import md_code_block, md_inline_code, md_inline_html, md_text, truncate
from gate.util.wording import plural

TITLE = "Fixes the gate verified"
MAX_CANDIDATE_CHARS = 300  # a candidate's text in a table cell
MAX_DIFF_LINE_CHARS = 2_000  # one line of a diff block
_STATUS = {
    "verified": "✅ verified",
    "broke": "❌ breaks a passing case",
    "not_fixed": "➖ does not fix the failing cases",
    "refused": "🚫 refused",
    "not_run": "⏭ not run",
    "undecided": "⚠️ undecided",
}
_DIFF_CLASS = {"+": "add", "-": "del"}
_KIND = {
    "tool_description": "the description of {tool}",
    "parameter_description": "the description of {argument} of {tool}",
    "prompt_paragraph": "a paragraph of the system prompt",
}


def what(definition: DefinitionSearch, form: str = "markdown") -> str:
    """The definition in words, "the description of `get_forecast`": names as Markdown code, as HTML
    ``<code>`` (``form="html"``, the rest escaped), or as they are (``form="text"``, the console)."""

    def name(text: str | None) -> str:
        if form == "markdown":
            return md_inline_code(text or "")
        return f"<code>{_e(text)}</code>" if form == "html" else f"`{text}`"

    words = _e(_KIND[definition.kind]) if form == "html" else _KIND[definition.kind]
    return words.format(tool=name(definition.tool), argument=name(definition.argument))


def where(definition: DefinitionSearch) -> str:
    return f"{definition.file}:{definition.line}"


def _case_word(case: CandidateCase) -> str:
    trials = f"{case.passed}/{case.trials}" if case.trials else "–"
    before = f" (was {case.passed_before}/{case.trials_before})" if case.trials else ""
    return f"{case.suite}/{case.case_id} {case.outcome.replace('_', ' ')} {trials}{before}"


def spent(fixes: FixSearch) -> str:
    """What the search sent, apart from the run's requests."""
    budget = f", --fix-budget {fixes.budget}" if fixes.budget else ""
    return f"{plural(fixes.requests, 'model request')}, ${fixes.cost_usd:.4f}{budget}, apart from the run's"


# --- Markdown --------------------------------------------------------------------------------------


def markdown_section(fixes: FixSearch | None) -> list[str]:
    """The report's section on the search ([] when none was asked for, or nothing failed)."""
    if fixes is None:
        return []
    out = [f"### 🛠️ {TITLE}", ""]
    if fixes.skipped:
        out += [f"_No fix was searched for: {md_text(fixes.skipped)}._", ""]
    for definition in fixes.definitions:
        out += _markdown_definition(definition)
    if fixes.skipped_cases:
        out += ["Failed cases no rewording can fix, left alone:", ""]
        out += [
            f"- {md_inline_code(f'{c.suite}/{c.case_id}')}: {md_text(c.reason)}" for c in fixes.skipped_cases
        ]
        out.append("")
    if fixes.patch:
        patch = "`run --suggest-fixes --fix-patch FILE`, then `git apply FILE`"
        out += [f"_Every verified edit as one patch: {patch}._", ""]
    if fixes.requests or fixes.definitions:
        out += [f"<sub>The search: {md_text(spent(fixes))}; the verdict above is the run's.</sub>", ""]
    return out


def _markdown_definition(definition: DefinitionSearch) -> list[str]:
    head = f"**{md_inline_code(where(definition))}**, {what(definition)}"
    verified = definition.verified
    if verified is not None:
        out = [f"{head}: {md_text(evidence(verified.cases))}.", ""]
        if verified.edit is not None:
            lines = [truncate(line, MAX_DIFF_LINE_CHARS) for line in diff_lines(verified.edit)]
            out += [md_code_block("\n".join(lines), "diff")]
        out += [f"_Re-run on {md_text(definition.scope)}._", ""] if definition.scope else []
    else:
        note = definition.note or "no verified fix"
        out = [f"{head}: **{md_text(note)}**.", ""]
    out += _markdown_candidates(definition.candidates, where(definition))
    return out


def _markdown_candidates(candidates: Sequence[Candidate], place: str) -> list[str]:
    if not candidates:
        return []
    out = [
        f"<details><summary>Every candidate tried for {escape(place)} ({len(candidates)})</summary>",
        "",
        "| # | candidate | result | cases |",
        "|--:|---|---|---|",
    ]
    for c in candidates:
        text = md_inline_code(truncate(" ".join(c.text.split()), MAX_CANDIDATE_CHARS, brief=True), table=True)
        result = _STATUS[c.status] + (f": {md_text(c.reason)}" if c.reason else "")
        cases = "; ".join(md_text(_case_word(case)) for case in c.cases) or "–"
        out.append(f"| {c.number} | {text} | {result} | {cases} |")
    out += ["", "</details>", ""]
    return out


# --- HTML ------------------------------------------------------------------------------------------


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def html_section(fixes: FixSearch | None) -> list[str]:
    """The HTML report's section on the search ([] when none was asked for, or nothing failed)."""
    if fixes is None:
        return []
    out = [f'<section id="fixes"><h2>{TITLE}</h2>']
    if fixes.skipped:
        out.append(f"<p>No fix was searched for: {_e(fixes.skipped)}.</p>")
    for definition in fixes.definitions:
        out += _html_definition(definition)
    if fixes.skipped_cases:
        out.append("<p>Failed cases no rewording can fix, left alone:</p><ul>")
        out += [
            f"<li><code>{_e(c.suite)}/{_e(c.case_id)}</code>: {_e(c.reason)}</li>"
            for c in fixes.skipped_cases
        ]
        out.append("</ul>")
    if fixes.requests or fixes.definitions:
        out.append(f'<p class="when">The search: {_e(spent(fixes))}; the verdict is the run\'s.</p>')
    return [*out, "</section>"]


def _html_definition(definition: DefinitionSearch) -> list[str]:
    verified = definition.verified
    mood = "passed" if verified is not None else "failed"
    head = f"<code>{_e(where(definition))}</code>, {what(definition, 'html')}"
    out = [f'<div class="fix {mood}"><h3>{head}</h3>']
    if verified is not None:
        out.append(f"<p><strong>Verified:</strong> {_e(evidence(verified.cases))}.</p>")
        if verified.edit is not None:
            rows = "".join(
                f'<span class="{_DIFF_CLASS.get(line[:1], "ctx")}">{_e(line)}</span>'
                for line in diff_lines(verified.edit)
            )
            out.append(f'<pre class="diff">{rows}</pre>')
        if definition.scope:
            out.append(f"<p>Re-run on {_e(definition.scope)}.</p>")
    else:
        out.append(f"<p><strong>{_e(definition.note or 'no verified fix')}</strong>.</p>")
    out.append(f"<p>The advice: {md_inline_html(definition.advice)}</p>")
    if definition.candidates:
        out.append("<table><tr><th>#</th><th>candidate</th><th>result</th><th>cases</th></tr>")
        for c in definition.candidates:
            result = _STATUS[c.status] + (f": {c.reason}" if c.reason else "")
            cases = "".join(f"<li>{_e(_case_word(case))}</li>" for case in c.cases)
            out.append(
                f'<tr class="{_e(c.status)}"><td>{c.number}</td><td><pre>{_e(c.text)}</pre></td>'
                f"<td>{_e(result)}</td><td>{f'<ul>{cases}</ul>' if cases else '–'}</td></tr>"
            )
        out.append("</table>")
    return [*out, "</div>"]


# --- the console -----------------------------------------------------------------------------------


def console_lines(fixes: FixSearch | None) -> list[str]:
    """What ``run`` says of the search when it is over ([] when none was asked for)."""
    if fixes is None:
        return []
    if fixes.skipped:
        return [f"fixes: none searched for: {fixes.skipped}"]
    lines = [f"fix search: {spent(fixes)}"]
    for definition in fixes.definitions:
        verified = definition.verified
        outcome = (
            f"candidate {verified.number} verified: {evidence(verified.cases)}"
            if verified is not None
            else definition.note or "no verified fix"
        )
        lines.append(f"  fix for {where(definition)} ({what(definition, 'text')}): {outcome}")
    for case in fixes.skipped_cases:
        lines.append(f"  left alone: {case.suite}/{case.case_id}: {case.reason}")
    return lines


__all__ = ["TITLE", "console_lines", "html_section", "markdown_section", "spent", "what", "where"]
