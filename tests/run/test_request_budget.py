"""The request budget's admission rule, pure: reservations, waiting, starting alone, giving back,
and the most requests a case can need."""

from __future__ import annotations

import dataclasses

from gate.run.request_budget import RequestBudget, case_need, judged_checks, trial_need
from gate.suite.model import Judge, OutputChecks, SimulatedUser
from tests import builders
from tests.builders import path_assertion


def test_no_limit_admits_everything_and_counts_what_is_sent():
    budget = RequestBudget(None)
    account = budget.admit(10_000, 3)
    assert account is not None and budget.free is None
    assert all(budget.take(account) for _ in range(50)) and budget.sent == 50


def test_a_case_starts_when_its_most_fits_and_draws_on_its_reservation_first():
    budget = RequestBudget(10)
    first = budget.admit(4, 1)
    assert first is not None and budget.free == 6 and budget.started == 1
    assert budget.take(first) and budget.take(first)
    assert budget.free == 6  # its own reservation paid for both
    second = budget.admit(6, 1)
    assert second is not None and budget.free == 0
    assert budget.admit(1, 1) is None  # must wait: started cases may still need what they reserved
    budget.close(first)  # used 2 of 4: 2 come back
    assert budget.free == 2 and budget.started == 1 and budget.most_per_trial == 2


def test_past_its_reservation_a_case_borrows_what_nobody_reserved_and_never_more():
    budget = RequestBudget(3)
    account = budget.admit(2, 1)
    assert account is not None
    assert [budget.take(account) for _ in range(4)] == [True, True, True, False]
    assert budget.sent == 3 and budget.free == 0


def test_a_case_too_big_to_reserve_starts_alone_when_what_is_left_covers_the_trials_so_far():
    budget = RequestBudget(5)
    first = budget.admit(8, 1)  # nothing measured yet and nothing running: alone, with all 5
    assert first is not None and first.reserved == 5 and budget.free == 0
    assert budget.take(first) and budget.take(first)
    budget.close(first)
    assert budget.free == 3 and budget.most_per_trial == 2
    assert budget.admit(8, 2) is None  # two trials of 2 do not fit in 3
    second = budget.admit(8, 1)
    assert second is not None and second.reserved == 3
    assert budget.admit(1, 1) is None  # nothing starts beside a case running alone


def test_cached_answers_count_as_what_a_trial_needed():
    budget = RequestBudget(3)
    first = budget.admit(8, 1)
    assert first is not None
    first.asked = 4  # four requests, all answered by the cache: nothing sent
    budget.close(first)
    assert budget.free == 3 and budget.most_per_trial == 4
    assert budget.admit(8, 1) is None  # a case like it would be cut short


def test_a_cache_only_account_never_sends():
    budget = RequestBudget(10)
    account = budget.cache_only("not run")
    assert not budget.take(account) and budget.sent == 0 and budget.free == 10 and budget.started == 0


def test_trial_need_counts_turns_the_simulated_user_and_judged_checks():
    plain = builders.case(max_turns=3)
    suite = builders.suite(plain)
    assert trial_need(suite, plain) == 3
    judged = dataclasses.replace(
        plain,
        expect=builders.expectation(
            builders.ecall("get_weather", {"city": {"judge": "a city in France"}}),
            output=OutputChecks(criteria=("a", "b"), semantic_contains=("c",), asks_clarification=False),
            asserts=(
                path_assertion("output", {"criteria": "d"}),
                path_assertion("output", {"equals": "x"}),
                path_assertion("output", {"match": {"any_of": ["x", {"judge": "polite"}]}}),
                path_assertion("output", {"match": {"regex": "x"}}),
            ),
        ),
    )
    assert judged_checks(judged) == 2 + 1 + 1 + 1 + 1 + 1  # a judge inside a path's match asks too
    assert trial_need(suite, judged) == 3 + 7
    simulated = dataclasses.replace(plain, user=SimulatedUser(goal="book a flight", max_turns=4))
    with_simulator = dataclasses.replace(suite, user_simulator=Judge(provider="openai", model="sim"))
    assert trial_need(with_simulator, simulated) == 3 + 4
    assert case_need(with_simulator, simulated, trials=3) == (3 + 4) * 3


def test_the_head_side_holds_back_what_the_base_side_can_need():
    budget = RequestBudget(10)
    head = budget.admit(2, 1, keep=2)
    assert head is not None and head.reserved == 2 and budget.free == 6
    assert budget.take(head) and budget.take(head)
    budget.close(head)
    assert budget.free == 6  # the base side's 2 stay held back, for the base run
    second = budget.admit(2, 1, keep=2)
    assert second is not None and budget.free == 2
    assert budget.take(second) and budget.take(second)
    budget.close(second)
    assert budget.free == 2 and budget.admit(2, 1, keep=2) is None  # a third case needs 2 + 2
    assert budget.limit - budget.sent == 6  # what the base run gets: 2 + 2 held back, 2 unused
    alone = RequestBudget(5)
    first = alone.admit(8, 1, keep=8)  # alone: what is left, shared between the sides
    assert first is not None and first.reserved == 3 and alone.free == 0
