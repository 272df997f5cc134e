"""The judge client forces its verdict tool in the form the server honours: "required" first, the named
form when a server refuses "required" or answers without the tool, and from then on the form that worked."""

from __future__ import annotations

import asyncio
import json

from gate.providers.base import ModelReply, ModelRequest, ProviderError
from gate.results.messages import ToolCall
from gate.run.judge_client import JudgeClient
from gate.suite.judging import criteria_request
from tests import builders

YES = json.dumps({"verdict": "yes", "rationale": "fine"})


def ask(client: JudgeClient, *criteria: str) -> list[object]:
    suite = builders.suite(builders.case(), judge=builders.DEFAULT_JUDGE)
    requests = [criteria_request(c, "It is 18 degrees.", "Weather?") for c in criteria]

    async def go() -> list[object]:
        answers = []
        for request in requests:  # one after the other: the second sees what the first learnt
            answers.append((await client.answers(suite, [request]))[request.key])
        return answers

    return asyncio.run(go())


def test_a_server_that_ignores_required_is_asked_again_with_the_tool_named_and_remembered():
    sent: list[ModelRequest] = []

    async def call_model(request: ModelRequest) -> ModelReply:
        sent.append(request)
        if request.forced_by_requiring:
            return ModelReply(text="I think it does.")  # the form was ignored: no tool call
        return ModelReply(text="", tool_calls=(ToolCall("c1", "submit_verdict", YES),))

    answers = ask(JudgeClient(call_model), "States the temperature.", "Names the city.")
    assert [getattr(a, "passed", a) for a in answers] == [True, True]
    assert [r.force_by for r in sent] == ["required", "named", "named"]
    assert sent[0].cache_key_material() != sent[1].cache_key_material()  # an ignored answer is not reused


def test_a_judge_that_answers_in_neither_form_says_so_and_a_refusal_is_an_error_only_when_nothing_is_left():
    sent: list[str] = []

    async def call_model(request: ModelRequest) -> ModelReply:
        sent.append(request.force_by)
        if request.force_by == "required":
            raise ProviderError("bad_request", "tool_choice must be named", status=400)
        return ModelReply(text="no idea")

    (answer,) = ask(JudgeClient(call_model), "States the temperature.")
    assert sent == ["required", "named"]
    assert isinstance(answer, str) and answer.startswith("the judge did not call submit_verdict")


def test_a_verdict_cut_at_the_token_limit_says_which_limit_to_raise():
    async def call_model(request: ModelRequest) -> ModelReply:
        return ModelReply(
            text="", tool_calls=(ToolCall("c1", "submit_verdict", '{"verd'),), stop_reason="length"
        )

    (answer,) = ask(JudgeClient(call_model), "States the temperature.")
    limit = builders.DEFAULT_JUDGE.max_tokens
    assert answer == f"the judge's reply was cut at max_tokens={limit}: raise judge.max_tokens"
