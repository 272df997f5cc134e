"""Every judge request one trial needs, built in one place.

The runner asks the judge these questions before scoring; scoring then reads the verdicts by the
requests' keys. This module sits above ``gate.judging`` (the request builders and the verdicts),
``gate.matchers`` (judged argument criteria) and ``gate.path_assertions``-style checks in
``gate.path_assertions``, so none of them imports another in a cycle. Pure.
"""

from __future__ import annotations

from typing import Any

from gate import path_assertions
from gate.judging import (
    JudgeRequest,
    choice_letters_for,
    choice_request,
    clarification_request,
    criteria_request,
    ranking_request,
    semantic_request,
    trajectory_request,
    unambiguous_choice,
)
from gate.matchers import has_judge, judge_requests_for_arguments, judge_requests_for_value
from gate.run_record import RunRecord
from gate.suite_model import Case, PathAssertion, Suite
from gate.trajectory import goal_text, trajectory_text


def collect_requests(
    suite: Suite, case: Case, record: RunRecord, prepared_extra: dict[str, Any]
) -> list[JudgeRequest]:
    """Every judge request scoring this trial will look up (deduplicated, in a stable order)."""
    if record.error is not None:
        return []
    question, answer = record.input, record.output
    output = case.expect.output
    requests: list[JudgeRequest] = []
    requests += [criteria_request(c, answer, question) for c in output.criteria]
    requests += [semantic_request(p, answer, question) for p in output.semantic_contains]
    if output.ranking is not None:
        r = output.ranking
        requests.append(
            ranking_request(f"{suite.name}/{case.id}", r.reference, answer, r.wrong, r.irrelevant, question)
        )
    if output.choice is not None:
        letters = choice_letters_for(case, record, prepared_extra)
        if unambiguous_choice(answer, letters) is None:
            requests.append(choice_request(letters, output.choice.correct, answer, question))
    if output.asks_clarification is not None:
        requests.append(clarification_request(answer, question))
    for expectation in (case.expect.calls, *case.expect.alternatives):
        for expected in expectation.calls:
            if not has_judge(expected.args):
                continue
            for call in record.calls:
                if call.name == expected.tool and call.arguments is not None:
                    requests += judge_requests_for_arguments(expected.args, call.arguments)
    for assertion in case.expect.asserts:
        requests += path_assertions.judge_requests(assertion, record)
        requests += _path_match_requests(assertion, record)
    if case.expect.trajectory is not None:
        episode = trajectory_text(suite, record)
        goal = case.user.goal if case.user is not None else ""
        requests.append(trajectory_request(episode, case.expect.trajectory, goal_text(record, goal)))
    unique: dict[str, JudgeRequest] = {}
    for request in requests:
        unique.setdefault(request.key, request)
    return list(unique.values())


def _path_match_requests(assertion: PathAssertion, record: RunRecord) -> list[JudgeRequest]:
    """The judge criteria inside a path assertion's ``match`` matcher, for every value it selects."""
    matcher = assertion.check.get("match")
    if matcher is None or not has_judge(matcher):
        return []
    try:
        values = path_assertions.select(record.as_path_root(), assertion.path)
    except path_assertions.PathError:
        return []
    return [r for value in values if value is not None for r in judge_requests_for_value(matcher, value)]
