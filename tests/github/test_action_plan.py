"""The action's settings and plan, pure: no git, no fake GitHub, no model server."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gate.commands.plans import ReportPlan, RunPlan
from gate.github.action_inputs import read_inputs
from gate.github.action_plan import WorkspaceFacts, comment_mode, plan, report_plan, run_plan
from gate.github.action_settings import read_event, read_settings

HEAD = "h" * 40
BASE = "b" * 40


def pull_payload(*, fork: bool = False, action: str = "opened", label: str = "") -> dict[str, Any]:
    payload: dict[str, Any] = {
        "action": action,
        "pull_request": {
            "number": 7,
            "user": {"login": "someone"},
            "base": {"sha": BASE, "repo": {"full_name": "acme/agents"}},
            "head": {"sha": HEAD, "repo": {"full_name": "someone/agents" if fork else "acme/agents"}},
        },
    }
    if label:
        payload["label"] = {"name": label}
    return payload


def settings(event: str = "pull_request", payload: dict[str, Any] | None = None, **inputs: str) -> Any:
    env = {
        "GITHUB_EVENT_NAME": event,
        "GITHUB_REPOSITORY": "acme/agents",
        "GITHUB_WORKSPACE": "/ws",
        "INPUT_GITHUB_TOKEN": "ghs_x",
        "INPUT_OPENAI_API_KEY": "sk-x",
    }
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return read_settings(env, pull_payload() if payload is None else payload, Path("/elsewhere"))


HELD = WorkspaceFacts()

# (name, settings, facts, mode, replay, publish, read-only notice, verdict when refused, text in a message)
# Whether the pull request's files may be evaluated here at all (pull_request_target, approvals, a
# checkout of another commit, a cache the pull request wrote) is the run's trust decision
# (tests/trust/test_decision.py): the plan hands it the event.
TABLE = [
    ("pull request, head checked out", settings(), HELD, "run", False, True, False, None, None),
    (
        "pull_request_target with a fork: run, the run's trust decides",
        settings("pull_request_target", pull_payload(fork=True)),
        HELD,
        "run",
        False,
        True,
        False,
        None,
        None,
    ),
    (
        "fork PR without keys: replay-only from the gate's own cache",
        settings(payload=pull_payload(fork=True), openai_api_key=""),
        HELD,
        "run",
        True,
        False,
        True,
        None,
        "never answers the pull request can write",
    ),
    (
        "fork PR with only a (non-secret) base URL is secret-less",
        settings(
            payload=pull_payload(fork=True), openai_api_key="", openai_base_url="http://llm.internal/v1"
        ),
        HELD,
        "run",
        True,
        False,
        True,
        None,
        "no secrets",
    ),
    (
        "an output directory reached through a symlink",
        settings(output_dir="out/gate"),
        WorkspaceFacts(links=(("output_dir", "out"),)),
        "refuse",
        False,
        False,
        False,
        "refused",
        "input output_dir: out is a symlink",
    ),
    (
        "a cache directory that is a symlink, also for saved results",
        settings("workflow_run", {"workflow_run": {"head_sha": HEAD}}, results="r.json", pr_number="7"),
        WorkspaceFacts(results_files=("/ws/r.json",), links=(("cache", ".tool-eval-gate"),)),
        "refuse",
        False,
        False,
        False,
        "refused",
        "input cache: .tool-eval-gate is a symlink",
    ),
    (
        "fork PR without keys, with a cache: replay-only",
        settings(payload=pull_payload(fork=True), openai_api_key="", cache=".gate-cache"),
        HELD,
        "run",
        True,
        False,
        True,
        None,
        "replay-only",
    ),
    (
        "bad threshold",
        settings(threshold="high"),
        HELD,
        "refuse",
        False,
        False,
        False,
        "invalid",
        "input threshold",
    ),
    (
        "bad fail_on",
        settings(fail_on="always"),
        HELD,
        "refuse",
        False,
        False,
        False,
        "invalid",
        "input fail_on",
    ),
    (
        "bad pr_number",
        settings(pr_number="seven"),
        HELD,
        "refuse",
        False,
        False,
        False,
        "invalid",
        "input pr_number",
    ),
    ("bad flag", settings(comment="maybe"), HELD, "refuse", False, False, False, "invalid", "input comment"),
    (
        "publish saved results (workflow_run)",
        settings(
            "workflow_run",
            {"workflow_run": {"id": 5, "head_sha": HEAD}},
            results="shards/*.json",
            pr_number="7",
        ),
        WorkspaceFacts(results_files=("/ws/shards/1.json",)),
        "report",
        False,
        True,
        False,
        None,
        None,
    ),
    (
        "saved results of a run the event does not name are not rendered",
        settings("workflow_run", {"workflow_run": {"head_sha": HEAD}}, results="r.json", pr_number="7"),
        WorkspaceFacts(results_files=("/ws/r.json",)),
        "refuse",
        False,
        False,
        False,
        "refused",
        "cannot tell which commit and run",
    ),
    (
        "push",
        settings("push", {"before": BASE, "after": HEAD}),
        WorkspaceFacts(),
        "run",
        False,
        False,
        False,
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    ("name", "the_settings", "facts", "mode", "replay", "publish", "read_only", "verdict", "text"),
    TABLE,
    ids=[row[0] for row in TABLE],
)
def test_plan(
    name: str,
    the_settings: Any,
    facts: WorkspaceFacts,
    mode: str,
    replay: bool,
    publish: bool,
    read_only: bool,
    verdict: str | None,
    text: str | None,
) -> None:
    result = plan(the_settings, facts)
    assert (result.mode, result.replay, result.publish, result.read_only_notice) == (
        mode,
        replay,
        publish,
        read_only,
    )
    if verdict is not None:
        assert result.refusal_verdict == verdict and result.exit_code == 2
    if text is not None:
        assert text in " ".join(result.errors + result.notices)
    if mode == "run":
        assert isinstance(result.command, RunPlan) and result.command.replay == replay
        assert ("--replay" in result.command_line) == replay and result.command_line[0] == "run"
    if mode == "report":
        assert isinstance(result.command, ReportPlan) and result.command.results[0] == "/ws/shards/1.json"
        assert result.command_line[:2] == ("report", "/ws/shards/1.json")


def test_bad_inputs_are_named_not_shown_as_cli_usage() -> None:
    result = plan(settings(threshold="1.5x", fail_on="any-failures", trials="0"), HELD)
    assert [e.split(":")[0] for e in result.errors] == ["input threshold", "input trials", "input fail_on"]
    assert not any("--threshold" in e or "usage" in e for e in result.errors)
    assert plan(settings(fail_on="any-failure"), HELD).mode == "run"  # the CLI's spelling is accepted too


def test_sticky_comment_is_updated_but_not_created_when_nothing_was_evaluated() -> None:
    run = plan(settings(), HELD)
    assert comment_mode(run, evaluated_cases=3, problems=0) == "upsert"
    assert comment_mode(run, evaluated_cases=0, problems=1) == "upsert"
    assert comment_mode(run, evaluated_cases=0, problems=0) == "update-only"
    assert comment_mode(plan(settings(comment="false", review_comments="false"), HELD), 3, 0) == "none"


def test_read_inputs_and_event() -> None:
    inputs, problems = read_inputs(
        {
            "INPUT_SUITES": "evals/a.suite.yaml\n evals/b.suite.yaml",
            "INPUT_CHANGED_ONLY": "false",
            "INPUT_THRESHOLD": " 0.8 ",
            "INPUT_SHARD": "2/3",
        }
    )
    assert problems == ()
    assert inputs.suites == ("evals/a.suite.yaml", "evals/b.suite.yaml")
    assert inputs.changed_only is False and inputs.comment is True and inputs.options.threshold == 0.8
    assert read_inputs({"INPUT_OUTPUT_DIR": "../out"})[1] == (
        "input output_dir: a directory inside the repository, got '../out'",
    )

    push = read_event("push", {"before": "a" * 40, "after": "b" * 40})
    assert push.pr_number is None and push.before_sha == "a" * 40
    assert read_event("push", {"before": "0" * 40}).before_sha == ""
    # A merge queue's group runs the suites its changes affect since the queue's base (it ran every
    # suite: the event has no "before").
    group = {
        "merge_group": {"head_sha": "c" * 40, "base_sha": "a" * 40, "head_ref": "gh-readonly-queue/main/pr-7"}
    }
    queued = read_event("merge_group", group)
    assert queued.pr_number is None and (queued.before_sha, queued.head_sha) == ("a" * 40, "c" * 40)
    defaults, _ = read_inputs({})
    assert run_plan(defaults, queued, Path("/ws"), Path("/ws/out")).changed_since == "a" * 40
    dependabot = read_event(
        "pull_request",
        {
            "pull_request": {
                "number": 3,
                "base": {"repo": {"full_name": "o/r"}},
                "head": {"repo": {"full_name": "o/r"}},
            }
        },
        actor="dependabot[bot]",
    )
    assert dependabot.is_dependabot and not dependabot.is_fork
    deleted_fork = read_event(
        "pull_request",
        {"pull_request": {"number": 3, "base": {"repo": {"full_name": "o/r"}}, "head": {"repo": None}}},
    )
    assert deleted_fork.is_fork

    run = run_plan(inputs, push, Path("/ws"), Path("/ws/out"))
    assert run.paths == ("/ws/evals/a.suite.yaml", "/ws/evals/b.suite.yaml")
    assert run.changed_since is None  # changed_only is false
    assert (run.shard, run.threshold) == ("2/3", 0.8)
    argv = run.argv()
    assert argv[argv.index("--shard") + 1] == "2/3" and argv[argv.index("--threshold") + 1] == "0.8"
    assert run_plan(replace(inputs, changed_only=True), push, Path("/ws"), Path("/ws/out")).changed_since == (
        "a" * 40
    )


def test_keys_in_the_job_environment_count_as_secrets() -> None:
    env = {"GITHUB_EVENT_NAME": "pull_request", "ANTHROPIC_API_KEY": "sk-ant"}
    assert read_settings(env, pull_payload(fork=True), Path("/ws")).has_key
    assert not read_settings({"OPENAI_BASE_URL": "http://x"}, pull_payload(fork=True), Path("/ws")).has_key


def test_the_prices_input_reaches_the_run_as_a_workspace_file() -> None:
    inputs, problems = read_inputs({"INPUT_PRICES": "evals/prices.yaml", "INPUT_MAX_COST": "2"})
    assert problems == ()
    run = run_plan(inputs, read_event("push", {"after": "b" * 40}), Path("/ws"), Path("/ws/out"))
    assert (run.prices, run.max_cost) == ("/ws/evals/prices.yaml", 2.0)
    argv = run.argv()
    assert argv[argv.index("--prices") + 1] == "/ws/evals/prices.yaml"
    assert argv[argv.index("--max-cost") + 1] == "2"


def test_case_tag_and_rerun_inputs_become_the_run_selectors() -> None:
    inputs, problems = read_inputs(
        {
            "INPUT_CASES": "paris-now, weather-agent/week-ahead",
            "INPUT_TAGS": "selection\narguments",
            "INPUT_RERUN_FAILED": "previous/results.json",
        }
    )
    assert problems == ()
    push = read_event("push", {"before": "a" * 40, "after": "b" * 40})
    run = run_plan(inputs, push, Path("/ws"), Path("/ws/out"))
    assert run.cases == ("paris-now", "weather-agent/week-ahead") and run.tags == ("selection", "arguments")
    argv = run.argv()
    pairs = [(argv[i], argv[i + 1]) for i in range(len(argv) - 1) if argv[i] in ("--case", "--tag")]
    assert pairs == [
        ("--case", "paris-now"),
        ("--case", "weather-agent/week-ahead"),
        ("--tag", "selection"),
        ("--tag", "arguments"),
    ]
    assert argv[argv.index("--rerun-failed") + 1] == "/ws/previous/results.json"


def test_a_shard_does_not_gate_but_a_whole_run_does() -> None:
    shard = plan(settings(shard="2/4"), HELD)
    assert not shard.gates and "shard 2/4" in shard.notices[0]
    assert plan(settings(), HELD).gates


def test_commands_allow_passes_the_flag_and_anything_else_is_named() -> None:
    push = read_event("push", {"before": "a" * 40, "after": "b" * 40})
    allowed, problems = read_inputs({"INPUT_COMMANDS": "allow"})
    assert problems == () and run_plan(allowed, push, Path("/ws"), Path("/o")).allow_commands
    refused, problems = read_inputs({})
    assert problems == () and not run_plan(refused, push, Path("/ws"), Path("/o")).allow_commands
    _, problems = read_inputs({"INPUT_COMMANDS": "yes"})
    assert problems == ("input commands: choose from allow, refuse (got 'yes')",)


def test_the_trials_policy_input_reaches_the_run_and_a_bad_one_is_named() -> None:
    push = read_event("push", {"after": "b" * 40})
    inputs, problems = read_inputs({})
    assert problems == ()
    assert run_plan(inputs, push, Path("/ws"), Path("/ws/out")).trials_policy == "curtailed"
    inputs, problems = read_inputs({"INPUT_TRIALS_POLICY": "full"})
    full = run_plan(inputs, push, Path("/ws"), Path("/ws/out"))
    assert full.trials_policy == "full" and full.argv()[full.argv().index("--trials-policy") + 1] == "full"
    _, problems = read_inputs({"INPUT_TRIALS_POLICY": "some"})
    assert problems == ("input trials_policy: choose from curtailed, full (got 'some')",)


def test_the_model_inputs_reach_the_run() -> None:
    push = read_event("push", {"after": "b" * 40})
    inputs, problems = read_inputs(
        {"INPUT_MODEL": "anthropic:claude-sonnet-4-5", "INPUT_JUDGE_MODEL": "gpt-4.1"}
    )
    assert problems == ()
    chosen = run_plan(inputs, push, Path("/ws"), Path("/ws/out"))
    assert (chosen.model, chosen.judge_model) == ("anthropic:claude-sonnet-4-5", "gpt-4.1")
    argv = chosen.argv()
    assert argv[argv.index("--model") + 1] == "anthropic:claude-sonnet-4-5"
    assert argv[argv.index("--judge-model") + 1] == "gpt-4.1"


@pytest.mark.parametrize(
    ("inputs", "problem"),
    [
        ({"INPUT_MODEL": "anthropic:"}, "input model: 'anthropic:' names a provider and no model"),
        ({"INPUT_JUDGE_MODEL": "openai:"}, "input judge_model: 'openai:' names a provider and no model"),
        ({"INPUT_MODEL": "gpt\x00x"}, "input model: the model name holds a control character ('\\x00')"),
    ],
)
def test_a_model_input_that_names_no_model_is_named(inputs: dict[str, str], problem: str) -> None:
    [said] = read_inputs(inputs)[1]
    assert said.startswith(problem)


def test_the_max_error_rate_input_reaches_both_commands_and_a_bad_one_is_named() -> None:
    push = read_event("push", {"before": "a" * 40, "after": "b" * 40})
    inputs, problems = read_inputs({"INPUT_MAX_ERROR_RATE": "0"})
    assert problems == ()
    run = run_plan(inputs, push, Path("/ws"), Path("/o"))
    assert run.max_error_rate == 0  # no error allowed: not the default
    assert run.argv()[run.argv().index("--max-error-rate") + 1] == "0"
    assert report_plan(inputs, Path("/ws"), Path("/o"), ("r.json",)).max_error_rate == 0
    default, _ = read_inputs({})
    assert run_plan(default, push, Path("/ws"), Path("/o")).max_error_rate == 0.1
    assert "--max-error-rate" not in run_plan(default, push, Path("/ws"), Path("/o")).argv()
    assert report_plan(default, Path("/ws"), Path("/o"), ("r.json",)).max_error_rate is None  # as recorded
    _, problems = read_inputs({"INPUT_MAX_ERROR_RATE": "15%"})
    assert problems == ("input max_error_rate: not a number: '15%'",)
    _, problems = read_inputs({"INPUT_MAX_ERROR_RATE": "15"})
    assert problems[0].startswith("input max_error_rate: a share of the cases from 0 to 1")


def test_the_fix_inputs_reach_the_run_and_bad_ones_are_named() -> None:
    push = read_event("push", {"after": "b" * 40})
    inputs, problems = read_inputs(
        {
            "INPUT_SUGGEST_FIXES": "true",
            "INPUT_FIX_MODEL": "anthropic:claude-sonnet-4-5",
            "INPUT_FIX_CANDIDATES": "2",
            "INPUT_FIX_BUDGET": "$0.50",
        }
    )
    assert problems == ()
    run = run_plan(inputs, push, Path("/ws"), Path("/ws/out"))
    assert (run.suggest_fixes, run.fix_model, run.fix_candidates, run.fix_budget, run.fix_patch) == (
        True,
        "anthropic:claude-sonnet-4-5",
        2,
        "$0.50",
        "/ws/out/fixes.patch",
    )
    assert "--suggest-fixes" in run.argv() and "--fix-budget" in run.argv()
    off = run_plan(read_inputs({})[0], push, Path("/ws"), Path("/ws/out"))
    assert not off.suggest_fixes and off.fix_patch is None
    _, problems = read_inputs(
        {"INPUT_SUGGEST_FIXES": "sure", "INPUT_FIX_BUDGET": "lots", "INPUT_FIX_CANDIDATES": "0"}
    )
    assert problems == (
        "input suggest_fixes: expected true or false, got 'sure'",
        "input fix_candidates: must be at least 1, got '0'",
        "input fix_budget: a number of requests (200) or of US dollars ($0.50, 0.5usd), got 'lots'",
    )


def test_the_event_and_the_approval_reach_the_run_for_its_trust_decision() -> None:
    """The run decides what may be evaluated (gate.trust): the plan hands it whose commits the event is
    about and the head a maintainer approved, only on the `labeled` event of the configured label."""
    approved = settings(
        "pull_request_target",
        pull_payload(fork=True, action="labeled", label="eval-approved"),
        fork_approval_label="eval-approved",
        max_cost="2",
    )
    event = plan(approved, HELD).command.event  # type: ignore[union-attr]
    assert (event.name, event.origin, event.head, event.base, event.approved) == (
        "pull_request_target",
        "fork",
        HEAD,
        BASE,
        HEAD,
    )
    for other in (
        settings(
            "pull_request_target",
            pull_payload(fork=True, action="labeled", label="bug"),
            fork_approval_label="eval-approved",
        ),
        settings(
            "pull_request_target",
            pull_payload(fork=True, action="synchronize", label="eval-approved"),
            fork_approval_label="eval-approved",
        ),
        settings("pull_request", pull_payload(fork=True, action="labeled", label="eval-approved")),
    ):
        assert plan(other, HELD).command.event.approved == ""  # type: ignore[union-attr]
    assert plan(settings(), HELD).command.event.origin == "own"  # type: ignore[union-attr]


def test_saved_results_are_rendered_only_when_made_for_this_head_and_run() -> None:
    """The merge job (a pull request's run: its head, this run) and the publishing workflow (the head
    and the run that triggered it) render only results the gate made there."""
    env = {"GITHUB_SHA": "m" * 40, "GITHUB_RUN_ID": "99"}
    merge = replace(
        settings(results="shards/*.json"), made_for=read_settings(env, pull_payload(), Path("/")).made_for
    )
    command = plan(merge, WorkspaceFacts(results_files=("/ws/shards/1.json",))).command
    assert isinstance(command, ReportPlan)
    assert (command.made_for_commit, command.made_for_run) == (HEAD, "99")
    argv = " ".join(command.argv())
    assert f"--made-for-commit {HEAD} --made-for-run 99" in argv
    payload = {"workflow_run": {"id": 5, "head_sha": HEAD}}
    publish = read_settings({**env, "GITHUB_EVENT_NAME": "workflow_run"}, payload, Path("/"))
    assert (publish.made_for.commit, publish.made_for.run) == (HEAD, "5")
