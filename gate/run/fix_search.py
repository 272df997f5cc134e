"""``run --suggest-fixes``: the search for fixes the gate has verified (DESIGN.md section 11), with its
I/O (reading the definitions' files, asking the fix model, re-running cases); what it decides is
``gate.fixes``'.

After the run, each definition the advice implicates (``gate.fixes.targets``) is located in its file
(``gate.fixes.spans``). One request asks the fix model for up to N replacement texts; those that
overfit or reach past their span are refused (``gate.fixes.screening``). The others are tried in
order, each applied in memory (``gate.fixes.apply``: the files are never written) and re-run with the
run's own trials, trials policy, cache and judges: first the failing cases it targets, then the
passing gating cases it must keep (``gate.fixes.verification``), each stage stopping as soon as its
trials decide against it. The first verified candidate wins and the rest are not run; the next
definition is searched with the verified edits applied, so the patch of them all is what was verified
last. Requests and cost are counted apart from the run's and capped by ``--fix-budget``; nothing
here changes the run's verdict.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gate.errors import EXIT_INCOMPLETE
from gate.files.text_files import read_text
from gate.files.yaml_source import YamlError
from gate.fixes.apply import Rewording, apply, reword_body, reword_tools
from gate.fixes.patch import edit_of, git_patch
from gate.fixes.proposal import MAX_PASSING, TOOL_NAME, candidates, proposal
from gate.fixes.screening import CaseFacts, case_facts, known_words, refusal
from gate.fixes.spans import NotEditable, Span, definition_span, paragraph_span, value_of, write
from gate.fixes.targets import MAX_DEFINITIONS, Target, find_targets, with_offered
from gate.fixes.verification import (
    Budget,
    Selection,
    case_outcome,
    decided,
    decided_against,
    evidence,
    judge,
    results_by_ref,
    select,
)
from gate.providers.base import BudgetReached, ModelRequest, Provider, ProviderError
from gate.results.fixes import Candidate, CaseRole, DefinitionSearch, FixSearch
from gate.results.messages import UserMessage
from gate.results.outcomes import CaseResult, RunResults, TrialResult
from gate.results.settings import RunSettings
from gate.run.cache import ResponseCache
from gate.run.curtailing import CaseKey, Curtailer, head_curtailer
from gate.run.progress import Progress
from gate.run.runner import RunOptions, ask, run_suites
from gate.suite.model import KEY_VARIABLES, Api, Case, Source, Suite, ToolDef
from gate.suite.model import Provider as ProviderName
from gate.suite.model_choice import ModelChoice
from gate.suite.model_family import judge_params
from gate.util.escape import truncate
from gate.verdict.conclusion import Conclusion
from gate.verdict.curtailment import Seen

FIX_MAX_TOKENS = 4_096  # the fix model's answer: a few replacement texts
MakeProvider = Callable[[str], Provider]


@dataclass(frozen=True)
class FixOptions:
    """``--fix-model`` (None: each suite's judge's, else its agent's), ``--fix-candidates``,
    ``--fix-budget`` (None: no cap; every passing gating case is re-run) as given and as read."""

    model: str | None = None
    candidates: int = 3
    budget: Budget | None = None
    budget_text: str = ""
    quiet: bool = False


@dataclass
class _Search:
    """What the search holds while it goes: the files as on disk and as the verified edits make them,
    the suites with those edits applied, the cases they fixed, and what it has spent."""

    fix: FixOptions
    run: Conclusion
    options: RunOptions
    make_provider: MakeProvider
    root: Path
    suites: dict[str, Suite]
    disk: dict[str, str] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    verified: list[Rewording] = field(default_factory=list)
    fixed: set[str] = field(default_factory=set)
    requests: int = 0
    cost: float = 0.0

    def text(self, file: str) -> str:
        if file not in self.texts:
            try:
                self.disk[file] = self.texts[file] = read_text(self.root / file, file)
            except YamlError as exc:
                raise NotEditable(f"it cannot be read: {exc.problems[0].message}") from None
        return self.texts[file]

    def left(self) -> Budget | None:
        budget = self.fix.budget
        if budget is None:
            return None
        spent = self.cost if budget.unit == "usd" else self.requests
        return dataclasses.replace(budget, left=max(0.0, budget.left - spent))

    def spend(self, requests: int, cost: float) -> None:
        self.requests += requests
        self.cost += cost


async def search_fixes(
    fix: FixOptions,
    conclusion: Conclusion,
    suites: Sequence[Suite],
    options: RunOptions,
    make_provider: MakeProvider,
    root: Path,
    environ: Mapping[str, str],
) -> FixSearch | None:
    """The search for verified fixes of the run ``conclusion`` concluded (None: no gating case failed,
    nothing to fix)."""
    results = conclusion.results
    failing = [
        c for s in results.suites for c in s.cases if c.non_gating is None and c.status in ("failed", "error")
    ]
    if not failing:
        return None
    model_text = fix.model or "each suite's judge's model"
    shown = FixSearch(model=model_text, budget=fix.budget_text)
    why = _not_searched(conclusion, suites, fix, environ)
    if why:
        return dataclasses.replace(shown, skipped=why)
    targets = find_targets(conclusion, suites)
    shown = dataclasses.replace(shown, skipped_cases=targets.skipped_cases)
    if not targets.definitions:
        return dataclasses.replace(
            shown, skipped="no advice points at a definition the repository holds that a rewording could fix"
        )
    search = _Search(fix, conclusion, options, make_provider, root, {s.name: s for s in suites})
    definitions: list[DefinitionSearch] = []
    seen: set[tuple[str, int]] = set()
    for target in targets.definitions:
        if len(definitions) == MAX_DEFINITIONS or (options.control is not None and options.control.stopped):
            break
        found = await _definition(search, target, seen)
        if found is not None:
            definitions.append(found)
    changes = [(file, search.disk[file], text) for file, text in search.texts.items()]
    return dataclasses.replace(
        shown,
        requests=search.requests,
        cost_usd=round(search.cost, 6),
        definitions=tuple(definitions),
        patch=git_patch(changes),
    )


def _not_searched(
    conclusion: Conclusion, suites: Sequence[Suite], fix: FixOptions, environ: Mapping[str, str]
) -> str:
    """Why the search does not run at all ("" when it does)."""
    results = conclusion.results
    if not results.complete:
        return (
            f"the run is incomplete ({results.incomplete_reason or 'it stopped early'}): a fix is verified "
            "only against a complete run"
        )
    if conclusion.verdict.exit_code == EXIT_INCOMPLETE:
        return "the evaluation is incomplete (errors beyond their budget): no verdict to verify a fix against"
    providers = {m[0] for s in suites if (m := fix_model(s, fix.model)) is not None}
    providers |= {s.agent.provider for s in suites if s.agent.provider}
    missing = sorted(KEY_VARIABLES[p] for p in providers if not environ.get(KEY_VARIABLES[p], "").strip())
    if missing:
        return (
            f"no key to ask the models with ({' and '.join(missing)} unset: a fork's pull request gets no "
            "secrets), so no fix could be verified"
        )
    return ""


def fix_model(suite: Suite, chosen: str | None) -> tuple[ProviderName, str, Api] | None:
    """The model that proposes fixes for ``suite``: ``--fix-model``, else its judge's, else its agent's
    (None for an agent program without a judge: it names no model of its own)."""
    base: tuple[ProviderName, str, Api] | None = None
    if suite.judge is not None:
        base = (suite.judge.provider, suite.judge.model, suite.judge.api)
    elif suite.agent.provider:
        base = (suite.agent.provider, suite.agent.model, suite.agent.api)
    if chosen is None:
        return base
    choice = ModelChoice.parse(chosen)
    provider, api = choice.applied(
        base[0] if base else choice.provider or "openai", base[2] if base else "chat"
    )
    return provider, choice.name, api


# --- one definition --------------------------------------------------------------------------------


async def _definition(search: _Search, target: Target, seen: set[tuple[str, int]]) -> DefinitionSearch | None:
    suite = search.suites[target.suites[0]]
    shown = DefinitionSearch(
        suite=suite.name,
        kind=target.kind,
        file=target.file,
        line=target.line,
        text=target.text,
        advice=target.advice,
        targeted=target.cases,
        tool=target.tool,
        argument=target.argument,
    )
    try:
        span = _span(search, target, suite)
    except NotEditable as exc:
        return dataclasses.replace(shown, note=f"not edited: {exc}")
    if (span.file, span.start) in seen:
        return None  # the same definition as an earlier piece of advice's
    seen.add((span.file, span.start))
    shown = dataclasses.replace(shown, text=span.text, line=span.line(search.texts[span.file]))
    targeted = tuple(r for r in target.cases if r not in search.fixed)
    if not targeted:
        return dataclasses.replace(shown, note="its failing cases pass with the edit verified before it")
    texts = await _propose(search, span, suite, target, shown)
    if isinstance(texts, str):
        return dataclasses.replace(shown, note=texts)
    tried = await _candidates(search, span, target, targeted, texts)
    return dataclasses.replace(shown, candidates=tried.candidates, scope=tried.scope, note=tried.note)


def _span(search: _Search, target: Target, suite: Suite) -> Span:
    source = search.text(target.file)
    if target.kind == "prompt_paragraph":
        prompt = suite.agent.system_prompt
        if prompt is None or prompt.template != source:
            raise NotEditable(f"the prompt the model was shown is not the text of {target.file}")
        return paragraph_span(source, target.file, target.line)
    assert target.tool is not None
    return definition_span(source, target.file, target.tool, target.argument, target.text, target.line)


async def _propose(
    search: _Search, span: Span, suite: Suite, target: Target, shown: DefinitionSearch
) -> tuple[str, ...] | str:
    """The fix model's replacement texts, or why there are none."""
    model = fix_model(suite, search.fix.model)
    if model is None:
        return f"no fix model: {suite.name} has no judge and its agent program names no model (--fix-model)"
    left = search.left()
    if left is not None and left.left < 1 and left.unit == "requests":
        return "no verified fix within the budget: none was left to ask the fix model"
    by_ref = results_by_ref(search.run.results)
    failing = [by_ref[r] for r in shown.targeted if r in by_ref]
    passing = _passing_sample(search.run.results, suite.name, span.tool)
    shown_suite = with_offered(suite, search.run.results)  # an agent program's own tools too
    ask_for = proposal(span, shown_suite, [target.advice], failing, passing, search.fix.candidates)
    provider, name, api = model
    request = ModelRequest(
        provider=provider,
        model=name,
        system=ask_for.system,
        messages=(UserMessage(ask_for.user),),
        tools=(ToolDef(TOOL_NAME, ask_for.tool_description, ask_for.tool_parameters, Source("<fix>")),),
        params=judge_params(provider, name, FIX_MAX_TOKENS, None),
        forced_tool=TOOL_NAME,
        api=api,
    )
    try:
        options = _budgeted(search.options, left, search.fix.budget_text)
        reply, sent, cost = await ask(request, options, search.make_provider)
    except (ProviderError, BudgetReached) as exc:  # a proposal that failed is a result, not a crash
        return f"the fix model {provider}:{name} could not be asked: {truncate(str(exc), 300)}"
    search.spend(sent, cost)
    call = next((c for c in reply.tool_calls if c.name == TOOL_NAME), None)
    try:
        arguments = json.loads(call.arguments) if call is not None else None
    except ValueError:
        arguments = None
    texts = candidates(arguments, search.fix.candidates) if isinstance(arguments, dict) else ()
    return texts or f"the fix model {provider}:{name} proposed no replacement text"


def _passing_sample(results: RunResults, suite: str, tool: str | None) -> list[CaseResult]:
    """A few passing cases of ``suite`` that call ``tool`` (any, for a prompt paragraph)."""
    found = [
        c
        for s in results.suites
        if s.name == suite
        for c in s.cases
        if c.status == "passed"
        and (tool is None or any(tool == call.name for t in c.trials for call in t.record.calls))
    ]
    return found[:MAX_PASSING]


# --- the candidates --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tried:
    candidates: tuple[Candidate, ...]
    scope: str
    note: str


async def _candidates(
    search: _Search, span: Span, target: Target, targeted: tuple[str, ...], texts: Sequence[str]
) -> _Tried:
    """Each candidate screened, then verified in order until one is (the rest are not run)."""
    source = search.texts[span.file]
    suite = search.suites[target.suites[0]]
    facts = _facts(search, targeted)
    known = known_words(with_offered(suite, search.run.results))
    others = [p for p in re.split(r"\n[ \t\r]*\n", source) if p.strip() and p.strip() != span.text.strip()]
    tried: list[Candidate] = []
    scope, stop = "", ""
    for number, text in enumerate(texts, 1):
        value = value_of(span, text)
        written = write(span, source, value)
        edit = edit_of(span.file, source, written) if written is not None else None
        why = refusal(value, span, written, facts, known, others if span.kind == "prompt_paragraph" else ())
        control = search.options.control
        if control is not None and control.stopped:
            stop = stop or f"not run: {control.reason}"
        if why or stop:
            tried.append(Candidate(number, text, "refused" if why else "not_run", why or stop, edit=edit))
            continue
        assert written is not None
        rewording = Rewording(span.kind, span.file, span.text, value, span.tool, span.argument, span.start)
        label = f"fix {number}/{len(texts)} for {span.file}:{span.line(source)}"
        candidate, selection = await _verify(
            search, span, targeted, rewording, Candidate(number, text, "not_run", edit=edit), label
        )
        tried.append(candidate)
        scope = scope or selection.scope
        if candidate.status == "verified":
            search.texts[span.file] = written
            search.suites = {name: apply(s, [rewording]) for name, s in search.suites.items()}
            search.verified.append(rewording)
            search.fixed.update(targeted)
            stop = "not run: an earlier candidate was verified"
        elif selection.short or _out_of_budget(search, candidate):
            stop = "not run: the budget ran out"
    return _Tried(tuple(tried), scope, _note(tried))


def _facts(search: _Search, targeted: Sequence[str]) -> list[CaseFacts]:
    by_ref = results_by_ref(search.run.results)
    found = []
    for ref in targeted:
        name, _, case_id = ref.partition("/")
        suite = search.suites.get(name)
        case = next((c for c in suite.cases if c.id == case_id), None) if suite is not None else None
        if suite is not None and case is not None and ref in by_ref:
            found.append(case_facts(suite, case, by_ref[ref]))
    return found


def _out_of_budget(search: _Search, candidate: Candidate) -> bool:
    left = search.left()
    if left is None:
        return False
    return left.left <= 0 or (
        candidate.status == "undecided" and any(c.why.startswith("not run: ") for c in candidate.cases)
    )


def _note(tried: Sequence[Candidate]) -> str:
    verified = next((c for c in tried if c.status == "verified"), None)
    if verified is not None:
        return f"candidate {verified.number} is verified: {evidence(verified.cases)}"
    if any(c.reason.startswith(("not run: the budget", "no verified fix within the budget")) for c in tried):
        return "no verified fix within the budget"
    return "no verified fix: no candidate fixed the failing cases without breaking another"


async def _verify(
    search: _Search,
    span: Span,
    targeted: tuple[str, ...],
    rewording: Rewording,
    shown: Candidate,
    label: str,
) -> tuple[Candidate, Selection]:
    """Re-run the cases the candidate (``shown``, not run yet) must fix and keep; what it came to, and
    the selection of cases."""
    suites = {name: apply(s, [rewording]) for name, s in search.suites.items()}
    # the suites that hold the definition, and those whose cases it targets (an agent program's own
    # tool is in no suite: its rewording reaches the model through the program's requests)
    held = [name for name in suites if suites[name] is not search.suites[name]]
    affected = list(dict.fromkeys([*held, *(r.split("/", 1)[0] for r in targeted)]))
    must_pass = tuple(
        dict.fromkeys([*targeted, *(r for r in search.fixed if r.split("/", 1)[0] in affected)])
    )
    results = search.run.results
    selection = select(results, must_pass, affected, span.kind, _tools(search, span), search.left())
    if selection.short:
        return dataclasses.replace(
            shown, reason=f"no verified fix within the budget: {selection.short}"
        ), selection
    roles: dict[str, CaseRole] = {r: "targeted" for r in selection.targeted}
    roles.update({r: "passing" for r in selection.passing})
    requests, cost = search.requests, search.cost
    rewordings = [*search.verified, rewording]
    ran, against = await _stage(search, suites, selection.targeted, roles, rewordings, label)
    if not against:
        more, _ = await _stage(search, suites, selection.passing, roles, rewordings, label)
        ran.update(more)
    before = results_by_ref(results)
    cases = tuple(
        case_outcome(roles[r], before[r], ran.get(r)) for r in (*selection.targeted, *selection.passing)
    )
    status, reason = judge(cases)
    done = dataclasses.replace(
        shown,
        status=status,
        reason=reason,
        cases=cases,
        requests=search.requests - requests,
        cost_usd=round(search.cost - cost, 6),
    )
    return done, selection


def _tools(search: _Search, span: Span) -> set[str]:
    """The tool whose definition changes and the tools the failing cases confused it with."""
    if span.tool is None:
        return set()
    partners = {
        other
        for c in search.run.analysis.confusion
        for other in (c.expected, c.called)
        if span.tool in (c.expected, c.called) and other
    }
    return {span.tool, *partners}


async def _stage(
    search: _Search,
    suites: Mapping[str, Suite],
    refs: Sequence[str],
    roles: Mapping[str, CaseRole],
    rewordings: Sequence[Rewording],
    label: str,
) -> tuple[dict[str, CaseResult], bool]:
    """Re-run ``refs`` under the candidate: their results, and whether they decided against it."""
    wanted = set(refs)
    chosen = [
        dataclasses.replace(s, cases=tuple(c for c in s.cases if f"{s.name}/{c.id}" in wanted))
        for s in suites.values()
    ]
    chosen = [s for s in chosen if s.cases]
    if not chosen:
        return {}, False
    results = search.run.results
    base = head_curtailer(chosen, search.options.trials)
    before = {(k.split("/", 1)[0], k.split("/", 1)[1]): v for k, v in results_by_ref(results).items()}
    keyed = {(k.split("/", 1)[0], k.split("/", 1)[1]): role for k, role in roles.items()}
    curtailer = _CandidateCurtailer(base, keyed, before, per_case=search.options.curtailer is not None)
    options = dataclasses.replace(
        _budgeted(search.options, search.left(), search.fix.budget_text),
        curtailer=curtailer,
        program_requests=_program_requests(rewordings),
    )
    progress = Progress(enabled=not search.fix.quiet, label=label)
    ran = await run_suites(chosen, options, search.make_provider, progress)
    search.spend(ran.settings.requests or 0, ran.settings.estimated_cost_usd or 0.0)
    return dict(results_by_ref(ran)), curtailer.against


class _CandidateCurtailer(Curtailer):
    """Curtailed trials for a candidate: with the run's ``--trials-policy curtailed`` a case stops
    starting trials once what it says of the candidate is decided (``gate.fixes.verification.decided``),
    and whatever the policy no trial starts once a finished one decided against the candidate."""

    def __init__(
        self,
        base: Curtailer,
        roles: Mapping[CaseKey, CaseRole],
        before: Mapping[CaseKey, CaseResult],
        *,
        per_case: bool,
    ) -> None:
        super().__init__(True, base.own, {})
        self.roles = roles
        self.before = before
        self.per_case = per_case
        self.against = False

    def _judged(self, suite: Suite, case: Case) -> tuple[Case, CaseRole, CaseResult] | None:
        key = (suite.name, case.id)
        own, role, before = self.own.get(key), self.roles.get(key), self.before.get(key)
        return (own, role, before) if own is not None and role is not None and before is not None else None

    def may_start(self, suite: Suite, case: Case) -> bool:
        judged = self._judged(suite, case)
        if self.against or judged is None:
            return not self.against
        seen = self.seen.get((suite.name, case.id), Seen())
        return not self.per_case or not decided(judged[0], judged[1], seen, judged[2])

    def finished(self, suite: Suite, case: Case, trial: TrialResult) -> None:
        super().finished(suite, case, trial)
        judged = self._judged(suite, case)
        if judged is not None:
            seen = self.seen[(suite.name, case.id)]
            self.against = self.against or decided_against(judged[0], judged[1], seen, judged[2])


def _budgeted(options: RunOptions, left: Budget | None, budget_text: str) -> RunOptions:
    """The run's options for the search's requests: its own cache counters, no run budget but what is
    left of ``--fix-budget``, nothing recorded as the run's."""
    cache = options.cache
    requests = left is not None and left.unit == "requests"
    return dataclasses.replace(
        options,
        cache=ResponseCache(cache.directory, cache.mode) if cache is not None else None,
        max_requests=int(left.left) if left is not None and requests else None,
        max_cost_usd=left.left if left is not None and not requests else None,
        budget_text=f"--fix-budget {budget_text}, {left.left:g} left" if left is not None else "",
        settings=RunSettings(),
        reserve_base_for=frozenset(),
        refused=frozenset(),
        curtailer=None,
        triggered_by={},
        shard="",
    )


def _program_requests(rewordings: Sequence[Rewording]) -> Callable[[ModelRequest], ModelRequest] | None:
    """An agent program's requests with the definitions it sends reworded (None: nothing to reword)."""
    tools = [r for r in rewordings if r.kind != "prompt_paragraph"]
    if not tools:
        return None

    def reworded(request: ModelRequest) -> ModelRequest:
        wire = reword_body(request.wire, tools) if request.wire is not None else None
        return dataclasses.replace(request, tools=reword_tools(request.tools, tools), wire=wire)

    return reworded


__all__ = ["FixOptions", "fix_model", "search_fixes"]
