"""The action's inputs, each declared once, and read once from ``INPUT_<NAME>``.

Two kinds. The action's own inputs are ``ActionInputs``' fields, each declared with ``action_input``:
its description and its default. The run's options that the action takes as inputs of the same name
and meaning are ``RunPlan``'s fields declared with an ``action`` text (``gate.commands.plans``): each
is read as the command line reads its flag (the same type, the same default) into
``ActionInputs.options``. action.yml and docs/github-action.md's input tables are written from these
declarations (``.ci/action_inputs.py``; a test holds them equal). Pure: a bad input is recorded as a
message naming it, never raised.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from gate.commands.arguments import positive_int
from gate.commands.options import Declared, declared
from gate.commands.plans import RunPlan

TRUE = ("true", "yes", "1", "on")
FALSE = ("false", "no", "0", "off")
COMMANDS = ("allow", "refuse")


def action_input(description: str, *, default: Any, written: str = "") -> Any:
    """A field of ``ActionInputs``: one input of the action, its ``description`` and its default
    (``written``: action.yml's, when it is not the field's own, as the token's expression)."""
    return field(default=default, metadata={"description": description, "written": written})


@dataclass(frozen=True)
class ActionInputs:
    """What the action was asked: its own inputs, then the run's options its inputs set."""

    github_token: str = action_input(
        "Token used to post the sticky PR comment and the review. Needs `pull-requests: write`.",
        default="",
        written="${{ github.token }}",
    )
    suites: tuple[str, ...] = action_input(
        "Suite files or directories to search for *.suite.yaml, separated by spaces or new lines, relative "
        "to the repository root. Empty: the whole repository.",
        default=(),
    )
    changed_only: bool = action_input(
        "Run only the suites the changes affect: on a pull request its changes, on a push those since "
        "`before`, in a merge queue's `merge_group` those since the queue's base.",
        default=True,
    )
    baseline: str = action_input(  # auto (compare with the merge base on pull requests), off, or a file
        "auto: on pull requests, evaluate the affected suites at the merge base too (same trials; "
        "unchanged requests come from the cache) and report what the PR changed; off: no comparison; or a "
        "results JSON of the base branch.",
        default="auto",
    )
    cache: str = action_input(
        "Response cache directory inside the repository, used by every run (empty: .tool-eval-gate/cache). "
        "Answers found there are reused without calling the model; persist it with actions/cache, also on "
        "pushes to the base branch, so that pull requests start warm. Fork and Dependabot PRs, which get no "
        "secrets, run replay-only from it. Keep it untracked: on a pull request a cache holding files "
        "tracked by git, or reached through a symlink, is never read (a fork's run is then unverified).",
        default="",
    )
    # "allow": the suites may make the gate run their commands (``run --allow-commands``); "refuse".
    commands: str = action_input(
        "allow: run the programs the suites name (an agent program, an MCP server), as `run "
        "--allow-commands` does; refuse (the default): such a suite is refused (exit 2). Commands never run "
        "on pull_request_target, workflow_run, issue_comment or another event where the repository's "
        "secrets can meet a pull request's code (they run on pull_request, pull_request_review, "
        "pull_request_review_comment, push, merge_group, schedule, workflow_dispatch, repository_dispatch "
        "and release). On a fork's or Dependabot's pull request a run with allow is not verified (exit 3) "
        "before anything starts, whatever key it has: the job runs the pull request's code. An agent "
        "program needs its own dependencies, which the action's image does not have: run the CLI in your "
        "job and publish with `results` (docs/agent-programs.md). Each command runs as a user of its own "
        "(a uid with no group, no access to the keys, the cache or the outputs), ended with its trial "
        "(SECURITY.md).",
        default="refuse",
    )
    comment: bool = action_input(
        "Post (and update in place) one sticky PR comment with the report.", default=True
    )
    review_comments: bool = action_input(
        "Post a PR review with comments on the changed lines of the tool definitions and prompts the "
        "analysis implicates.",
        default=True,
    )
    openai_api_key: str = action_input(
        "API key for OpenAI or an OpenAI-compatible server. Pass a secret.", default=""
    )
    anthropic_api_key: str = action_input("API key for Anthropic. Pass a secret.", default="")
    openai_base_url: str = action_input(
        "Base URL of an OpenAI-compatible server (Azure, vLLM, Ollama, ...) or a proxy. Suites can never "
        "choose it.",
        default="",
    )
    anthropic_base_url: str = action_input(
        "Base URL for the Anthropic API (or a proxy). Suites can never choose it.", default=""
    )
    output_dir: str = action_input(
        "Directory (relative to the repository) for junit.xml, results.json, report.md and report.html.",
        default="tool-eval-gate-results",
    )
    marker: str = action_input(
        "Id of the sticky comment's hidden marker; give each gate on the same PR its own.", default="default"
    )
    results: tuple[str, ...] = action_input(
        "Publish saved results instead of running: results JSON files or globs (e.g. the shards of a "
        "matrix downloaded as artifacts). They are merged into one verdict, one comment and one JUnit file. "
        "Only results the gate made for the commit this job is about in this run are rendered (on "
        "workflow_run: the head and the run that triggered it); any other, a file a pull request "
        "committed among them, is refused (exit 2).",
        default=(),
    )
    pr_number: str = action_input(
        "The pull request to publish to, when the event does not carry it (e.g. a workflow_run).", default=""
    )
    comment_author: str = action_input(
        "The login the sticky comment and review comments are written under, used to recognise our own "
        "comments (a token that may not read `GET /user`, like GITHUB_TOKEN, cannot tell). A GitHub App "
        "token: `<app-slug>[bot]`.",
        default="github-actions[bot]",
    )
    fork_approval_label: str = action_input(
        "On pull_request_target, a label (e.g. eval-approved) by which a maintainer approves one live "
        "evaluation of a fork's pull request: the run triggered by adding that label evaluates the PR's "
        "suite, prompt and tool files as data (no PR code runs) with the repository's keys, that exact head "
        "commit (or its merge into the base) and never a later one, and needs `max_cost`. Empty: forks are "
        "never run live.",
        default="",
    )
    # The run's options the inputs set, read as the command line reads them (the others keep their
    # defaults), and the names of those given (an empty input is not given).
    options: RunPlan = RunPlan()
    given: frozenset[str] = frozenset()


def run_options() -> tuple[Declared, ...]:
    """The run's options that the action takes as inputs, in their order."""
    return tuple(each for each in declared(RunPlan) if each.option.action)


def read_inputs(env: Mapping[str, str]) -> tuple[ActionInputs, tuple[str, ...]]:
    """The action's inputs from ``INPUT_<NAME>`` variables (GitHub upper-cases the names), and a
    message naming the input for each bad one. Pure."""

    def get(name: str) -> str:
        value = env.get(f"INPUT_{name.upper()}")
        return value.strip() if value is not None else ""

    problems: list[str] = []
    values: dict[str, Any] = {}
    for f in fields(ActionInputs):
        if "description" in f.metadata and get(f.name):
            values[f.name] = _own(f.name, get(f.name), f.default, problems)
    options: dict[str, Any] = {}
    for each in run_options():
        if get(each.name):
            options[each.name] = _option(each, get(each.name), problems)
    defaults = ActionInputs()
    read = replace(defaults, **values, options=RunPlan(**options), given=frozenset(options))
    read = replace(read, commands=read.commands.lower())
    if read.pr_number:
        _check(positive_int, "pr_number", read.pr_number, problems)
    if read.commands not in COMMANDS:
        problems.append(f"input commands: choose from {', '.join(COMMANDS)} (got {read.commands!r})")
    for name in ("output_dir", "cache"):
        path = Path(getattr(read, name))
        if path.is_absolute() or ".." in path.parts:
            problems.append(f"input {name}: a directory inside the repository, got {getattr(read, name)!r}")
            read = replace(read, **{name: getattr(defaults, name)})
    return read, tuple(problems)


def _own(name: str, text: str, default: Any, problems: list[str]) -> Any:
    """One of the action's own inputs, read as its default's type says."""
    if isinstance(default, bool):
        return _flag(text, name, default, problems)
    if isinstance(default, tuple):
        return _list(text)
    return text


def _option(each: Declared, text: str, problems: list[str]) -> Any:
    """A run option's input, read as its flag is (a bad one: the option's default, and a message)."""
    spec = each.option
    if spec.kind == "switch":
        return _flag(text, each.name, each.default, problems)
    if spec.kind == "many":
        return _list(text)
    if spec.choices and text not in spec.choices:
        problems.append(f"input {each.name}: choose from {', '.join(spec.choices)} (got {text!r})")
        return each.default
    if spec.parse is None:
        return text
    return _check(spec.parse, each.name, text, problems, each.default)


def _check(parse: Callable[[str], Any], name: str, text: str, problems: list[str], bad: Any = None) -> Any:
    try:
        return parse(text)
    except argparse.ArgumentTypeError as exc:
        problems.append(f"input {name}: {exc}")
        return bad


def _flag(value: str, name: str, default: bool, problems: list[str]) -> bool:
    text = value.strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    problems.append(f"input {name}: expected true or false, got {value!r}")
    return default


def _list(value: str) -> tuple[str, ...]:
    return tuple(part for part in value.replace(",", "\n").split() if part)
