"""Every judge request one trial needs, built in one place.

The runner asks the judge these questions before scoring (``collect_requests``); scoring then reads
the verdicts by the same requests (``answer_requests`` for the final answer's checks and the
trajectory, the matchers and path assertions for theirs, each from one builder), so a question is
never worded, nor a multiple-choice letter derived, two ways. This module sits above
``gate.suite.judging`` (the request builders and the verdicts), ``gate.suite.matchers`` (judged argument
criteria) and ``gate.suite.path_assertions``, so none of them imports another in a cycle. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.results.run_record import RunRecord
from gate.scoring.trajectory import goal_text, trajectory_text
from gate.suite import conversation, path_assertions
from gate.suite.judging import (
    JudgeRequest,
    choice_request,
    clarification_request,
    criteria_request,
    ranking_request,
    semantic_request,
    trajectory_request,
    unambiguous_choice,
    unique_requests,
)
from gate.suite.matchers import judge_requests_for_arguments
from gate.suite.model import Case, OutputChecks, Suite


@dataclass(frozen=True)
class AnswerRequests:
    """The judge requests of one trial's final-answer checks and trajectory, each built once: the
    runner sends them (``collect_requests``) and scoring reads the verdicts by the same requests.
    ``criteria`` and ``semantic`` follow ``expect.output``'s order; ``choice`` is None when the answer
    picks an option unambiguously (``picked``), which needs no judge."""

    criteria: tuple[JudgeRequest, ...]
    semantic: tuple[JudgeRequest, ...]
    ranking: JudgeRequest | None
    picked: str | None
    choice: JudgeRequest | None
    clarification: JudgeRequest | None
    trajectory: JudgeRequest | None


def choice_letters(suite: Suite, case: Case, record: RunRecord, index: int) -> dict[str, str]:
    """Letter -> option as trial ``index`` showed them to the agent: the order the run recorded, else
    the trial's own shuffle (the same derivation the conversation used)."""
    recorded = record.extra.get("choice_letters")
    return dict(recorded) if recorded else conversation.choice_letters(suite, case, index)


def answer_requests(suite: Suite, case: Case, record: RunRecord, index: int) -> AnswerRequests:
    """Every judge request of trial ``index``'s final-answer checks and trajectory; none about an
    answer the episode never gave (it ended at a budget): those checks fail without asking."""
    question, answer = record.input, record.output
    output = case.expect.output if record.answered else OutputChecks()
    ranking = None
    if output.ranking is not None:
        r = output.ranking
        ranking = ranking_request(
            f"{suite.name}/{case.id}", r.reference, answer, r.wrong, r.irrelevant, question
        )
    picked = choice = None
    if output.choice is not None:
        letters = choice_letters(suite, case, record, index)
        picked = unambiguous_choice(answer, letters)
        if picked is None:
            choice = choice_request(letters, output.choice.correct, answer, question)
    trajectory = None
    if case.expect.trajectory is not None:
        goal = goal_text(record, case.user.goal if case.user is not None else "")
        trajectory = trajectory_request(trajectory_text(suite, record), case.expect.trajectory, goal)
    return AnswerRequests(
        criteria=tuple(criteria_request(c, answer, question) for c in output.criteria),
        semantic=tuple(semantic_request(p, answer, question) for p in output.semantic_contains),
        ranking=ranking,
        picked=picked,
        choice=choice,
        clarification=(
            clarification_request(answer, question) if output.asks_clarification is not None else None
        ),
        trajectory=trajectory,
    )


def collect_requests(suite: Suite, case: Case, record: RunRecord, index: int) -> list[JudgeRequest]:
    """Every judge request scoring trial ``index`` will look up (deduplicated, in a stable order)."""
    if record.error is not None:
        return []
    asked = answer_requests(suite, case, record, index)
    requests: list[JudgeRequest] = [*asked.criteria, *asked.semantic]
    requests += [r for r in (asked.ranking, asked.choice, asked.clarification) if r is not None]
    for expectation in (case.expect.calls, *case.expect.alternatives):
        for expected in expectation.calls:
            if not expected.judged:
                continue
            for call in record.calls:
                if call.name == expected.tool and call.arguments is not None:
                    requests += judge_requests_for_arguments(expected.args, call.arguments)
    for assertion in case.expect.asserts:
        requests += path_assertions.judge_requests(assertion, record)
    if asked.trajectory is not None:
        requests.append(asked.trajectory)
    return unique_requests(requests)
