"""What ``tool-eval-gate init`` writes into a repository, as text: a starter suite made from the
agent's tools (one case per tool, its required arguments as matchers to fill in, and a case where no
tool may be called), the workflow (pull requests compared with their merge base, the response cache,
the push run that keeps it warm), the pre-commit entry and the ``.gitignore`` lines. Pure: the tools
come parsed (:mod:`gate.assembly.tool_formats`), the command writes the files.

Every value the suite takes from a tool definition is written as a JSON string (a valid YAML
double-quoted scalar, so a description with ``: `` or quotes, or a tool named ``true``, stays text),
and what goes into a comment is one line of printable text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gate.suite.model import Provider, ToolDef
from gate.suite.templating import PLACEHOLDER
from gate.util import schema_check
from gate.util.escape import truncate

ACTION = "tool-eval-gate/tool-eval-gate"  # the action's repository, as `uses:` names it
REPOSITORY_URL = f"https://github.com/{ACTION}"
OUTPUT_DIRECTORY = "tool-eval-gate-results"  # the action's output_dir default
SCHEMA_URL = "https://raw.githubusercontent.com/tool-eval-gate/tool-eval-gate/v1/schemas/suite.schema.json"
KEY_INPUTS: dict[str, tuple[str, str]] = {
    "openai": ("openai_api_key", "OPENAI_API_KEY"),
    "anthropic": ("anthropic_api_key", "ANTHROPIC_API_KEY"),
}
_COMMENT_CHARS = 100


def _text(value: str) -> str:
    """A YAML scalar that reads back as exactly ``value`` (JSON's string form, ASCII only)."""
    return json.dumps(value)


def _comment(value: str) -> str:
    """One printable line, cut short, for a YAML comment."""
    line = " ".join(re.sub(r"[^\x20-\x7e\u00a0-\u2027\u202a-\ufffd]", " ", value).split())
    return truncate(line, _COMMENT_CHARS, brief=True)


@dataclass(frozen=True)
class Starter:
    """The suite to write: its name, the agent's provider and model, the tools and where their file
    is (relative to the suite's directory; None: no tool file), and the system prompt file (None: an
    inline prompt). With ``command``, the agent is the team's program (no provider, model or prompt:
    it picks its own), ``watch`` the globs of its code. With ``server``, tools also come from that MCP
    server's ``tools/list`` (``server_watch`` its code)."""

    name: str
    provider: Provider
    model: str
    tools: tuple[ToolDef, ...]
    tools_file: str | None
    prompt_file: str | None = None
    command: tuple[str, ...] = ()
    watch: tuple[str, ...] = ()
    server: tuple[str, ...] = ()
    server_watch: tuple[str, ...] = ()


def _placeholder_in(value: Any) -> bool:
    """Whether a ``{{ name }}`` placeholder stands in any text of ``value`` (expectations are not
    templated: validate refuses one in an expected argument)."""
    if isinstance(value, str):
        return PLACEHOLDER.search(value) is not None
    if isinstance(value, dict):
        return any(_placeholder_in(k) or _placeholder_in(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_placeholder_in(v) for v in value)
    return False


def _expectable(parameters: Any, name: str, values: list[Any]) -> list[Any]:
    """The enum ``values`` of argument ``name`` that an expectation can name: those the tool's own
    schema accepts at that argument (an enum may hold a value its ``type`` refuses) and that hold no
    template placeholder."""
    if not isinstance(parameters, dict):
        return []
    schema = {**parameters, "required": []}
    return [v for v in values if not _placeholder_in(v) and schema_check.is_valid(schema, {name: v})]


def _matcher(parameters: Any, name: str) -> tuple[str, str]:
    """A matcher for one required argument (``one_of`` the enum values an expectation can name, else
    anything) and its comment."""
    properties = parameters.get("properties") if isinstance(parameters, dict) else None
    schema = properties.get(name) if isinstance(properties, dict) else None
    schema = schema if isinstance(schema, dict) else {}
    kind = schema.get("type")
    kind = "/".join(map(str, kind)) if isinstance(kind, list) else str(kind or "any type")
    description = _comment(str(schema.get("description") or ""))
    what = f"{kind}: {description}" if description else kind
    enum = schema.get("enum")
    values = _expectable(parameters, name, enum) if isinstance(enum, list) else []
    if values:
        return "{one_of: " + json.dumps(values) + "}", f"{what} (keep the values you expect)"
    return "{anything: true}", f"{what}; write the value you expect, or a matcher"


def _case(tool: ToolDef) -> list[str]:
    required = [r for r in tool.parameters.get("required", ()) if isinstance(r, str)]
    lines = [
        f"  - id: {_text('calls-' + tool.name)}",
        f"    # {_comment(tool.description) or 'no description'}",
        f"    input: {_text(f'(write a request that needs {tool.name})')}",
        "    expect:",
        "      calls:",
        f"        - tool: {_text(tool.name)}",
    ]
    if required:
        lines.append("          args:")
        for name in required:
            matcher, comment = _matcher(tool.parameters, name)
            lines.append(f"            {_text(name)}: {matcher}   # {comment}")
        properties = tool.parameters.get("properties")
        if isinstance(properties, dict) and set(properties) - set(required):
            lines.append("          allow_extra_args: true   # its optional arguments may be sent too")
    return lines


def _list(words: Sequence[str]) -> str:
    """A flow sequence of strings, each written as JSON (see :func:`_text`)."""
    return "[" + ", ".join(_text(word) for word in words) + "]"


def _tool_items(starter: Starter) -> str:
    items = [f"{{file: {_text(starter.tools_file)}}}"] if starter.tools_file else []
    if starter.server:
        watch = f", watch: {_list(starter.server_watch)}" if starter.server_watch else ""
        items.append(f"{{mcp: {{command: {_list(starter.server)}{watch}}}}}")
    return "[" + ", ".join(items) + "]"


def _agent(starter: Starter) -> list[str]:
    """The suite's ``agent:`` lines: the program, or the model with its prompt."""
    if starter.command:
        return [
            "agent:",
            "  # Your agent program: per trial the gate writes the case's messages to its standard input and",
            "  # reads its answers (docs/agent-programs.md shows the few lines of adapter code); its model",
            "  # requests go through the gate's recording proxy. It runs with run --allow-commands.",
            f"  command: {_list(starter.command)}",
            f"  watch: {_list(starter.watch)}   # its code: a change to these runs the suite",
            "  timeout_s: 120",
            "  # The tools its cases expect, served to it as an MCP server (TOOL_EVAL_GATE_MCP_URL).",
            f"  tools: {_tool_items(starter)}",
        ]
    prompt = (
        f"{{file: {_text(starter.prompt_file)}}}"
        if starter.prompt_file
        else _text("You are a helpful assistant. (Write your agent's system prompt, or {file: prompt.md}.)")
    )
    return [
        "agent:",
        f"  provider: {starter.provider}",
        f"  model: {_text(starter.model)}",
        f"  system_prompt: {prompt}",
        f"  tools: {_tool_items(starter)}",
    ]


def starter_suite(starter: Starter) -> str:
    """The starter suite's YAML text."""
    run = "run --allow-commands" if starter.command or starter.server else "run"
    lines = [
        f"# yaml-language-server: $schema={SCHEMA_URL}",
        "# A starter suite: one case per tool (write the request and the arguments you expect), and one",
        "# where no tool may be called. Check it offline with `tool-eval-gate validate`, then run it with",
        f"# `tool-eval-gate {run} --html out/report.html` (which finds every *.suite.yaml).",
        "version: 1",
        f"name: {_text(starter.name)}",
        *_agent(starter),
        "threshold: 0.9",
        "cases:",
    ]
    for tool in starter.tools:
        lines += _case(tool)
    lines += [
        "  - id: no-tool-needed",
        f"    input: {_text('Hello! What can you help me with?')}",
        "    expect: {no_calls: true}",
    ]
    return "\n".join(lines) + "\n"


def precommit_config(version: str) -> str:
    """A ``.pre-commit-config.yaml`` with the offline validate hook (and the manual live run)."""
    return "\n".join(
        [
            "repos:",
            f"  - repo: {REPOSITORY_URL}",
            f"    rev: v{version}   # a release tag; `pre-commit autoupdate` moves it to the newest",
            "    hooks:",
            "      - id: tool-eval-gate-validate   # offline checks of the suites, prompts and tools",
            "      # - id: tool-eval-gate-run    # live run (keys): pre-commit run --hook-stage manual",
            "",
        ]
    )


def gitignore_lines(cache_directory: str) -> tuple[str, ...]:
    """The ``.gitignore`` lines for the response cache (``cache_directory``'s top directory) and the
    action's output directory."""
    return (f"{cache_directory.split('/')[0]}/", f"{OUTPUT_DIRECTORY}/")


def workflow(branch: str, providers: Sequence[Provider]) -> str:
    """The pull-request workflow (see ``WORKFLOW``) for the default branch ``branch`` and the keys
    of ``providers``."""
    keys = "\n".join(
        f"          {KEY_INPUTS[p][0]}: ${{{{ secrets.{KEY_INPUTS[p][1]} }}}}"
        for p in dict.fromkeys(providers)
    )
    return WORKFLOW.replace("@BRANCH@", branch).replace("@KEYS@", keys).replace("@ACTION@", ACTION)


# The shipped examples/workflows/tool-eval-gate.yml, which tests/commands/test_starter.py holds equal to
# this template for the main branch and an OpenAI key.
WORKFLOW = """\
# The simplest set-up: on every pull request, run the suites affected by the change twice, as they
# are in the PR and as they were at the merge base (`baseline: auto`, the default on pull requests),
# comment with what the PR changed (regressions and fixes, significance-aware), review the changed
# tool definitions, and fail the check on a significant regression or a suite under its threshold.
# The response cache (.tool-eval-gate/cache, the action's default, used by every run) is persisted
# with actions/cache/restore and /save: requests the PR did not change are answered from it, so the
# base side costs nothing once the base branch's run is cached, and a re-run of the same PR sends no
# request at all.
# The push trigger keeps the base branch's cache warm: a push runs the suites its changes affect and
# stores their answers (caches saved on the default branch are readable from every PR). The cache
# stays untracked (the gate writes a .gitignore into .tool-eval-gate/): on a pull request a cache
# holding committed files is never read, and never saved (the cache_trusted output), so a PR cannot
# answer for the model.
# No `paths:` filter on purpose: the action finds the affected suites itself (from the suites' own
# prompt, tool and mock references, wherever they live), so the check always reports and a required
# check is never left pending; a PR that touches no suite passes in seconds with no model call.
# Fork and Dependabot PRs get no secrets: the step then replays the restored cache only (cases whose
# requests the model never answered are errors: incomplete, never a pass; see docs/github-action.md,
# "What a fork PR's result means", and tool-eval-gate-fork-safe.yml / -publish.yml to comment on them).
name: tool-eval-gate
on:
  pull_request:
  push:
    branches: [@BRANCH@]
permissions:
  contents: read
  pull-requests: write   # the sticky comment and the review
concurrency:
  group: tool-eval-gate-${{ github.event.pull_request.number }}
  cancel-in-progress: true

jobs:
  gate:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0   # change detection and the base side read the merge base from git
      - uses: actions/cache/restore@v4
        with:
          path: .tool-eval-gate/cache   # the action's default cache directory (never committed)
          # The newest entry of this branch (or pull request), else of the base branch.
          key: tool-eval-gate-${{ github.head_ref || github.ref_name }}-${{ github.run_id }}
          restore-keys: |
            tool-eval-gate-${{ github.head_ref || github.ref_name }}-
            tool-eval-gate-${{ github.base_ref || github.ref_name }}-
            tool-eval-gate-
      - id: gate
        uses: @ACTION@@v1
        with:
@KEYS@
          threshold: "0.9"
          max_cost: "5"      # USD, both sides together
          # baseline: auto   # the default on pull requests; `off` compares with nothing
      # Saved (a new entry per run: caches are immutable) only when the gate says the directory holds
      # nothing but its own answers: files a pull request committed there would otherwise come back
      # in its next run, restored as untracked files, after the PR removed them from git.
      - if: always() && steps.gate.outputs.cache_trusted == 'true'
        uses: actions/cache/save@v4
        with:
          path: .tool-eval-gate/cache
          key: tool-eval-gate-${{ github.head_ref || github.ref_name }}-${{ github.run_id }}
      - if: always()
        uses: actions/upload-artifact@v4
        with:
          name: tool-eval-gate-results
          path: tool-eval-gate-results/
"""


def program_workflow(
    branch: str,
    requirements: Sequence[str],
    npm_prefixes: Sequence[str],
    providers: Sequence[Provider] = ("openai",),
) -> str:
    """The workflow of suites that start commands (see ``PROGRAM_WORKFLOW``) for the default branch
    ``branch``: the CLI installed with the program's ``requirements`` files, ``npm ci`` in each of
    ``npm_prefixes`` (Node set up when there is one), the key secret of each of ``providers`` in the
    CLI's environment."""
    node = "".join(
        [
            "      - uses: actions/setup-node@v4             # a JavaScript agent\n",
            '        with: {node-version: "20"}\n',
        ]
        if npm_prefixes
        else []
    )
    return (
        PROGRAM_WORKFLOW.replace("@BRANCH@", branch)
        .replace("@NODE@", node)
        .replace("@PIP@", "".join(f"\n          -r {r}" for r in requirements))
        .replace("@NPM@", "".join(f"      - run: npm ci --prefix {p}\n" for p in npm_prefixes))
        .replace(
            "@ENV_KEYS@",
            "\n".join(
                f"          {KEY_INPUTS[p][1]}: ${{{{ secrets.{KEY_INPUTS[p][1]} }}}}"
                for p in dict.fromkeys(providers)
            ),
        )
    )


# The shipped examples/workflows/tool-eval-gate-agent-program.yml, which tests/commands/test_starter.py
# holds equal to this template for its example programs.
PROGRAM_WORKFLOW = """\
# The team's own agent programs under the gate (docs/agent-programs.md): a program needs its own
# dependencies, so the CLI evaluates it in this job (with `--allow-commands`), and the action only
# publishes what the CLI wrote (`results:`): the comment, the review, the summary, the annotations.
# The response cache is restored before the run and saved after it only on pushes to main, never on
# a pull request: the pull request's programs run beside the cache directory and could write answers
# of their own into it, which a saved cache would bring back, trusted, in its next run (the action's
# `cache_trusted` output says the same for the runs it evaluates itself; a CLI run cannot set it).
# Pushes to main evaluate the suites the push changed against the commit before, so their answers are
# in the cache that pull requests restore.
# A fork's (or Dependabot's) pull request is not evaluated here: installing its programs runs its code
# in this job before the gate (setup.py, npm scripts), where it could write any answer, result or the
# gate itself; its run is not verified (exit 3) before anything of the checkout runs.
# The CLI runs as root (sudo), so that each program and MCP server runs as a user of its own: it
# cannot read the key from the gate, write the cache or the outputs, or outlive its trial (SECURITY.md,
# "What the gate starts is contained"), which needs the checkout readable by other users (hence the
# chmod of the home directory it lies in); `exec` leaves no shell holding the key, and the checkout
# keeps no token in .git/config for a program to read.
name: tool-eval-gate
on:
  pull_request:
  push:
    branches: [@BRANCH@]
permissions:
  contents: read
  pull-requests: write   # the sticky comment and the review
jobs:
  gate:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
        with: {fetch-depth: 0, persist-credentials: false}
      - name: A fork's programs are not run here (not verified)
        if: >-
          github.event_name == 'pull_request' &&
          (github.event.pull_request.head.repo.full_name != github.repository ||
          github.event.pull_request.user.login == 'dependabot[bot]')
        run: |
          echo "::error title=tool-eval-gate::not verified: the programs of a fork's or Dependabot's" \\
            "pull request are not run with this job's rights; a maintainer who has read them pushes" \\
            "the commits to a branch of the repository"
          exit 3
      - uses: actions/setup-python@v5
        with: {python-version: "3.12"}
@NODE@      - uses: actions/cache/restore@v4          # the response cache: unchanged requests cost nothing
        with:
          path: .tool-eval-gate/cache
          key: tool-eval-gate-${{ github.head_ref || github.ref_name }}-${{ github.run_id }}
          restore-keys: |
            tool-eval-gate-${{ github.head_ref || github.ref_name }}-
            tool-eval-gate-${{ github.base_ref || github.ref_name }}-
            tool-eval-gate-
      # The CLI as README installs it: from the repository until 1.0 is on PyPI, then
      # 'tool-eval-gate[all]==1.0.0' (the same release as the action's tag below).
      - run: >-
          pip install 'tool-eval-gate[all] @ git+https://github.com/tool-eval-gate/tool-eval-gate'@PIP@
@NPM@      - run: >-
          chmod o+x "$HOME" &&
          exec sudo -E env "PATH=$PATH"
          tool-eval-gate run --allow-commands --changed-since "$BASE" --baseline auto
          --cache .tool-eval-gate/cache --json out/results.json --baseline-json out/results.base.json
          --junit out/junit.xml --markdown out/report.md
        env:
          BASE: ${{ github.event.pull_request.base.sha || github.event.before }}
@ENV_KEYS@
      # The steps below run even when this one fails (exit 1 failed, 2 invalid input, 3 incomplete or
      # not verified): the job keeps its failure, and whatever the CLI wrote is published.
      - if: always() && github.event_name == 'push'   # never from a pull request's run (see above)
        uses: actions/cache/save@v4
        with:
          path: .tool-eval-gate/cache
          key: tool-eval-gate-${{ github.head_ref || github.ref_name }}-${{ github.run_id }}
      - uses: tool-eval-gate/tool-eval-gate@v1
        if: always() && hashFiles('out/results.json') != ''
        with:
          results: out/results.json
          baseline: out/results.base.json
      - if: always()
        uses: actions/upload-artifact@v4
        with:
          name: tool-eval-gate-results
          path: tool-eval-gate-results/
"""
