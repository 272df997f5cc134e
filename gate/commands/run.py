"""``tool-eval-gate run``: run the agent over the suites' cases and gate on the pass rate.

The command line becomes a ``RunPlan`` (``gate.commands.plans``: each option declared once), and
``execute`` does what it says in three calls: ``prepare`` (``gate.commands.run_prepare``: load and
validate the suites, exit 2 with every ``path:line:column`` problem; keep the suites affected by
``--changed-since`` and this ``--shard``; decide trust, open the cache), ``run_sides``
(``gate.commands.run_sides``: every case and trial against the model, then the base side), and
``concluded`` / ``report`` (``gate.commands.run_conclude``: conclude once, write the requested outputs,
print a summary and the verdict line).

Exit codes: 0 the gate passed; 1 the gate failed; 2 invalid input; 3 the evaluation could not be
completed (authentication or another fatal provider error, a budget reached, errors beyond the
policy, or an interrupt) or is not verified (``gate.trust``, or a replay that could not answer). On
SIGINT / SIGTERM the trials in flight are cancelled, the outputs are written with what completed
(marked incomplete) and the exit code is 3.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

from gate.commands.arguments import Parser
from gate.commands.options import add_options, unpaired
from gate.commands.plans import Outcome, RunPlan
from gate.commands.run_choice import run_root
from gate.commands.run_conclude import concluded, report
from gate.commands.run_prepare import prepare
from gate.commands.run_sides import StopOnSignal, run_sides
from gate.containment.users import POOL
from gate.errors import EXIT_PASSED, InputError
from gate.files.event_file import EventFileError, read_event_payload
from gate.files.outputs import OutputPlan, OutputTarget, check_option_output, check_outputs, clear_outputs
from gate.git.tracked import is_tracked
from gate.trust.facts import EventFacts, ci_variable, event_facts

EPILOG = """\
exit codes:
  0  the gate passed
  1  the gate failed (a pass rate under its threshold, or per --fail-on)
  2  invalid input (usage, or a suite / prompt / tool file that fails validation)
  3  the evaluation could not be completed: authentication or another fatal provider error,
     a --max-requests / --max-cost budget reached, errors beyond the policy, or an interrupt;
     or it is not verified: a replay could not answer a request, or its answers could have
     been written by someone other than the model and the gate.
     On Ctrl-C / SIGTERM the trials in flight are cancelled and the outputs are still written,
     with what completed, marked incomplete.

environment:
  OPENAI_API_KEY, OPENAI_BASE_URL        OpenAI and OpenAI-compatible servers
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL  Anthropic
  (a suite can never choose where requests or keys are sent; --replay needs no key)
  TOOL_EVAL_GATE_COMMAND_USER            own (default as root: each command a user of its own) or
                                         gate (commands run as the gate's own user)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tool-eval-gate run",
        description="Run the agent's model over the suites' cases with mocked tools, score every tool call "
        "and gate on the pass rate.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_options(parser, RunPlan)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return execute(plan_of(list(sys.argv[1:] if argv is None else argv), os.environ)).code


def plan_of(argv: Sequence[str], environ: Mapping[str, str]) -> RunPlan:
    """The plan of the command line ``argv`` in the environment ``environ`` (its GitHub Actions event)."""
    return RunPlan.from_args(build_parser().parse_args(list(argv)), _event(environ))


def _event(environ: Mapping[str, str]) -> EventFacts:
    """What the GitHub Actions event of the job says (``GITHUB_EVENT_NAME``, the event file at
    ``GITHUB_EVENT_PATH``); no event outside Actions. An event file that cannot be read says nothing
    of whose commits the run holds: "unknown"."""
    name = environ.get("GITHUB_EVENT_NAME", "")
    if not name:
        return EventFacts()
    payload = None
    try:
        payload = read_event_payload(environ.get("GITHUB_EVENT_PATH", ""))
    except EventFileError as exc:
        print(f"warning: {exc}: whose commits this {name} run holds is unknown", file=sys.stderr)
    actor, repository = environ.get("GITHUB_ACTOR", ""), environ.get("GITHUB_REPOSITORY", "")
    return event_facts(name, payload, actor=actor, repository=repository)


def execute(plan: RunPlan) -> Outcome:
    """Run as ``plan`` says: check the outputs, prepare (load and select the suites, decide trust),
    run every case and trial (and the base side), conclude once, write the outputs and print the
    summary. Raises ``InputError`` (and the ``GateError``s of the run) for the CLI to report."""
    _check_options(plan)
    # Every output path is checked before any work: none can fail after the paid requests. In CI
    # none is written through a symlink of the repository (a pull request can commit one).
    # First of all, a file the checkout brought to an output path (git tracks it) is removed.
    no_links_below = run_root(plan) if ci_variable(os.environ) else None
    written = (plan.json, plan.junit, plan.markdown, plan.html, plan.baseline_json, plan.fix_patch)
    inputs = (plan.rerun_failed, plan.baseline if plan.baseline != "auto" else None)
    clear_outputs(written, keep=inputs, brought=is_tracked)
    outputs = check_outputs(plan, no_links_below=no_links_below)
    base_output = None
    try:
        base_output = (
            check_option_output("--baseline-json", plan.baseline_json, no_links_below)
            if plan.baseline_json
            else None
        )
        return _execute_checked(plan, outputs, base_output)
    finally:
        outputs.close()
        if base_output is not None:
            base_output.close()
        POOL.close()  # the reaper of the commands that ran as users of their own, if any ran


def _execute_checked(plan: RunPlan, outputs: OutputPlan, base_output: OutputTarget | None) -> Outcome:
    prepared = prepare(plan)
    if isinstance(prepared, Outcome):
        return prepared
    if plan.changed_since and not prepared.suites:
        print(f"no suite is affected by the changes since {plan.changed_since}", file=sys.stderr)
    with StopOnSignal(prepared.control) as signals:
        ran = run_sides(plan, prepared, signals)
        conclusion = concluded(plan, prepared, ran, signals, base_output)
        return report(plan, prepared, conclusion, outputs)


def _check_options(plan: RunPlan) -> None:
    """The options that go with another: --baseline-json with --baseline auto; the --fix-* options
    with --suggest-fixes, which needs the whole run (not a shard)."""
    if plan.baseline_json and plan.baseline != "auto":
        raise InputError("--baseline-json writes the base side of --baseline auto: add --baseline auto")
    alone = unpaired(plan)
    if alone:
        flag, switch = alone[0]
        raise InputError(f"{flag} goes with {switch}: add {switch}")
    if plan.suggest_fixes and plan.shard:
        raise InputError(
            "--suggest-fixes verifies a fix against every case it may break, which a shard does not hold: "
            "drop --shard (or --suggest-fixes)"
        )


__all__ = ["EXIT_PASSED", "build_parser", "execute", "main"]
