"""Asking the judge model: runs the judge requests of a trial and parses the verdicts.

Each ``JudgeRequest`` (from ``gate.suite.judging``) becomes one ``ModelRequest`` to the suite's judge
model at temperature 0 (where its model family takes one: ``gate.suite.model_family``), with the verdict
tool *forced*, so the answer is structured. Requests are
deduplicated by ``key`` across the whole run (the same question is asked once), and they go through
the same ``call_model`` as the agent's requests: the same cache, limiter, retries and budgets.

A judge that fails (provider error after retries, budget reached, a reply that is not a valid
verdict, a reply cut at its token limit) does not fail the run: the entry for that key is the failure
reason (a string) instead of a ``JudgeVerdict``, and scoring reports ``judge_failed`` with it. Fatal
provider errors propagate.

The verdict tool is forced as ``"required"`` (the judge is offered that one tool), the form servers
honour most widely; when a server refuses it (HTTP 400) or answers without calling the tool, the
same question is asked again with the tool named (``{"type": "function", ...}``), and the form that
worked is used for that provider's later questions.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from typing import Any, get_args

from gate.providers.base import BudgetReached, ForceForm, ModelReply, ModelRequest, ProviderError
from gate.results.messages import UserMessage
from gate.suite.judging import JudgeReplyError, JudgeRequest, JudgeVerdict, parse_verdict, prompt_for
from gate.suite.model import Source, Suite, ToolDef
from gate.suite.model_family import judge_params
from gate.util.escape import truncate

CallModel = Callable[[ModelRequest], Awaitable[ModelReply]]
JudgeAnswer = JudgeVerdict | str  # a verdict, or why there is none
FORCE_FORMS: tuple[ForceForm, ...] = get_args(ForceForm)  # in the order tried: "required", then "named"


def judge_request(suite: Suite, request: JudgeRequest) -> ModelRequest:
    """The model request that asks ``suite``'s judge ``request``."""
    judge = suite.judge
    assert judge is not None
    prompt = prompt_for(request)
    tool = ToolDef(
        name=prompt.tool_name,
        description=prompt.tool_description,
        parameters=prompt.tool_parameters,
        source=Source("<judge>"),
    )
    return ModelRequest(
        provider=judge.provider,
        model=judge.model,
        system=prompt.system,
        messages=(UserMessage(prompt.user),),
        tools=(tool,),
        # Temperature 0 and the token limit as the judge's model family takes them (gpt-5 and the
        # o-series refuse a temperature and want max_completion_tokens).
        params=judge_params(judge.provider, judge.model, judge.max_tokens, judge.reasoning_effort),
        forced_tool=prompt.tool_name,
        api=judge.api,
    )


def verdict_from_reply(
    request: JudgeRequest, tool_name: str, reply: ModelReply, max_tokens: int
) -> JudgeAnswer:
    """The verdict in ``reply``, or the reason it holds none."""
    if reply.cut:
        return f"the judge's reply was cut at max_tokens={max_tokens}: raise judge.max_tokens"
    call = next((c for c in reply.tool_calls if c.name == tool_name), None)
    if call is None:
        call = reply.tool_calls[0] if reply.tool_calls else None
    if call is None:
        return f"the judge did not call {tool_name} (it answered: {truncate(reply.text, 200, brief=True)!r})"
    try:
        arguments = json.loads(call.arguments) if call.arguments else {}
    except ValueError as exc:
        return f"the judge's verdict is not valid JSON: {exc}"
    if not isinstance(arguments, dict):
        return "the judge's verdict is not a JSON object"
    try:
        return parse_verdict(request, arguments)
    except JudgeReplyError as exc:
        return f"the judge's verdict is malformed: {exc}"


class JudgeClient:
    """Answers judge requests once per run; safe for concurrent trials."""

    def __init__(self, call_model: CallModel, *, on_task: Callable[[asyncio.Task[Any]], None] | None = None):
        self._call_model = call_model
        self._on_task = on_task
        self._answers: dict[str, asyncio.Future[JudgeAnswer]] = {}
        # Per provider, the ways of forcing the verdict tool still to try, the one that works first.
        self._forms: dict[str, tuple[ForceForm, ...]] = {}

    async def answers(self, suite: Suite, requests: Iterable[JudgeRequest]) -> dict[str, JudgeAnswer]:
        """JudgeVerdict (or failure reason) for every request, by ``key``."""
        unique: dict[str, JudgeRequest] = {}
        for request in requests:
            unique.setdefault(request.key, request)
        if not unique:
            return {}
        results = await asyncio.gather(*(self._answer(suite, key, req) for key, req in unique.items()))
        return dict(zip(unique, results, strict=True))

    async def _answer(self, suite: Suite, key: str, request: JudgeRequest) -> JudgeAnswer:
        pending = self._answers.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._ask(suite, request))
            self._answers[key] = pending
            if self._on_task is not None:
                self._on_task(pending)
        return await asyncio.shield(pending)

    async def _ask(self, suite: Suite, request: JudgeRequest) -> JudgeAnswer:
        if suite.judge is None:
            return "no judge model is configured for this suite (add `judge:` to the suite)"
        try:
            model_request = judge_request(suite, request)
        except JudgeReplyError as exc:
            return f"cannot ask the judge: {exc}"
        reply = await self._forced_reply(model_request)
        if isinstance(reply, str):
            return reply
        return verdict_from_reply(request, model_request.forced_tool or "", reply, suite.judge.max_tokens)

    async def _forced_reply(self, model_request: ModelRequest) -> ModelReply | str:
        """The judge's reply, in the first form of forcing its tool that the server honours (see the
        module doc); or why there is none."""
        provider = model_request.provider
        forms = self._forms.get(provider, FORCE_FORMS)
        reply: ModelReply | str = "the judge was not asked"
        for form in forms:
            last = form == forms[-1]
            try:
                reply = await self._call_model(replace(model_request, force_by=form))
            except ProviderError as exc:
                if exc.fatal:
                    raise
                if exc.kind == "bad_request" and not last:  # this server refuses the form
                    self._forms[provider] = forms[forms.index(form) + 1 :]
                    continue
                return f"judge provider error: {exc}"
            except BudgetReached:
                return "judge not run: budget reached"
            if reply.tool_calls or reply.cut:
                self._forms[provider] = forms[forms.index(form) :]
                return reply
        return reply
