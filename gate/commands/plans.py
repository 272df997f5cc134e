"""What one ``run`` or ``report`` will do, as typed values: the one plan type of each command.

The command line becomes a plan (``RunPlan.from_args``, ``ReportPlan.from_args``), and so do the
GitHub action's inputs (``gate.github.action_plan``); the commands execute plans
(``gate.commands.run.execute``, ``gate.commands.report.execute``) and return an ``Outcome``: the exit
code and the run's ``Conclusion``, which every output renders. ``argv`` is the command line that
does what a plan does (the action logs it, so that a user can rerun it). Pure.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Literal

from gate.errors import Problem
from gate.reports.markdown import SUMMARY_LIMIT
from gate.trust.facts import EventFacts
from gate.util.json_types import JsonObject
from gate.verdict.curtailment import TrialsPolicy
from gate.verdict.policy import DEFAULT_MAX_ERROR_RATE, FailOn

if TYPE_CHECKING:
    from gate.trust.decision import Trust
    from gate.verdict.conclusion import Conclusion

ErrorsPolicy = Literal["count", "ignore"]


def _number(value: float) -> str:
    """A number as short as it reads back exactly (``2.0`` -> ``2``, ``0.123456789`` unchanged)."""
    text = f"{value:g}"
    return text if float(text) == value else repr(value)


def _options(pairs: tuple[tuple[str, object], ...]) -> list[str]:
    """``--flag value`` for every pair whose value is set (a ``True`` flag stands alone)."""
    argv: list[str] = []
    for flag, value in pairs:
        if value is None or value is False or value == "":
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, tuple):
            for item in value:
                argv += [flag, str(item)]
        else:
            argv += [flag, _number(value) if isinstance(value, (int, float)) else str(value)]
    return argv


def _values(plan: type[RunPlan | ReportPlan], args: argparse.Namespace) -> JsonObject:
    """The plan's fields from the parsed command line (lists become tuples)."""
    values = {f.name: getattr(args, f.name) for f in fields(plan)}
    return {name: tuple(v) if isinstance(v, list) else v for name, v in values.items()}


@dataclass(frozen=True)
class RunPlan:
    """What ``tool-eval-gate run`` will do, as asked (see ``tool-eval-gate run --help``)."""

    paths: tuple[str, ...] = ()
    root: str | None = None
    changed_since: str | None = None
    cases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    rerun_failed: str | None = None
    threshold: float | None = None
    trials: int | None = None
    trials_policy: TrialsPolicy = "curtailed"
    concurrency: int = 8
    timeout: float = 60.0
    model: str | None = None  # [PROVIDER:]NAME instead of each suite's own model
    judge_model: str | None = None
    junit: str | None = None
    json: str | None = None
    markdown: str | None = None
    html: str | None = None
    baseline: str | None = None  # a results file, or "auto"
    baseline_json: str | None = None
    cache: str | None = None
    record: bool = False
    replay: bool = False
    allow_commands: bool = False
    # What the GitHub Actions event the run happens on says (none outside Actions): whose commits the
    # checkout holds, the head a maintainer approved; the trust decision reads it (gate.trust). Not a
    # flag: ``run`` reads the job's event file, the action its own event and inputs.
    event: EventFacts = EventFacts()
    shard: str | None = None
    max_requests: int | None = None
    max_cost: float | None = None
    prices: str | None = None
    errors: ErrorsPolicy = "count"
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE
    fail_on: FailOn | None = None
    quiet: bool = False
    skip_unreferenced: bool = False
    # --suggest-fixes: search for verified rewordings of the definitions the failures implicate.
    suggest_fixes: bool = False
    fix_model: str | None = None  # [PROVIDER:]NAME; None: each suite's judge's model
    fix_candidates: int = 3
    fix_budget: str | None = None  # requests ("200") or US dollars ("$0.50"); None: no cap
    fix_patch: str | None = None  # where the verified edits are written as a patch

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RunPlan:
        return cls(**_values(cls, args))

    @property
    def report_paths(self) -> tuple[str, ...]:
        return tuple(p for p in (self.json, self.junit, self.markdown, self.html) if p)

    def argv(self) -> tuple[str, ...]:
        """The ``tool-eval-gate run`` arguments that do what this plan does."""
        defaults = RunPlan()
        return (
            *self.paths,
            *_options(
                (
                    ("--root", self.root),
                    ("--changed-since", self.changed_since),
                    ("--case", self.cases),
                    ("--tag", self.tags),
                    ("--rerun-failed", self.rerun_failed),
                    ("--threshold", self.threshold),
                    ("--trials", self.trials),
                    (
                        "--trials-policy",
                        None if self.trials_policy == defaults.trials_policy else self.trials_policy,
                    ),
                    ("--concurrency", None if self.concurrency == defaults.concurrency else self.concurrency),
                    ("--timeout", None if self.timeout == defaults.timeout else self.timeout),
                    ("--model", self.model),
                    ("--judge-model", self.judge_model),
                    ("--shard", self.shard),
                    ("--max-requests", self.max_requests),
                    ("--max-cost", self.max_cost),
                    ("--prices", self.prices),
                    ("--baseline", self.baseline),
                    ("--baseline-json", self.baseline_json),
                    ("--cache", self.cache),
                    ("--record", self.record),
                    ("--replay", self.replay),
                    ("--allow-commands", self.allow_commands),
                    ("--errors", None if self.errors == defaults.errors else self.errors),
                    (
                        "--max-error-rate",
                        None if self.max_error_rate == defaults.max_error_rate else self.max_error_rate,
                    ),
                    ("--fail-on", self.fail_on.replace("_", "-") if self.fail_on else None),
                    ("--junit", self.junit),
                    ("--json", self.json),
                    ("--markdown", self.markdown),
                    ("--html", self.html),
                    ("--quiet", self.quiet),
                    ("--skip-unreferenced", self.skip_unreferenced),
                    ("--suggest-fixes", self.suggest_fixes),
                    ("--fix-model", self.fix_model),
                    (
                        "--fix-candidates",
                        None if self.fix_candidates == defaults.fix_candidates else self.fix_candidates,
                    ),
                    ("--fix-budget", self.fix_budget),
                    ("--fix-patch", self.fix_patch),
                )
            ),
        )


@dataclass(frozen=True)
class ReportPlan:
    """What ``tool-eval-gate report`` will do (see ``tool-eval-gate report --help``)."""

    results: tuple[str, ...]
    json: str | None = None
    junit: str | None = None
    markdown: str | None = None
    html: str | None = None
    markdown_limit: int = SUMMARY_LIMIT  # the job summary's form; a PR comment's is 64 KiB
    baseline: str | None = None
    threshold: float | None = None
    errors: ErrorsPolicy | None = None  # None: as the results record it
    max_error_rate: float | None = None  # None: as the results record it
    fail_on: FailOn | None = None
    marker: str = "default"
    full_report_hint: str = ""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ReportPlan:
        return cls(**_values(cls, args))

    def argv(self) -> tuple[str, ...]:
        """The ``tool-eval-gate report`` arguments that do what this plan does."""
        defaults = ReportPlan(())
        return (
            *self.results,
            *_options(
                (
                    ("--baseline", self.baseline),
                    ("--threshold", self.threshold),
                    ("--errors", self.errors),
                    ("--max-error-rate", self.max_error_rate),
                    ("--fail-on", self.fail_on.replace("_", "-") if self.fail_on else None),
                    ("--marker", None if self.marker == defaults.marker else self.marker),
                    ("--full-report-hint", self.full_report_hint),
                    (
                        "--markdown-limit",
                        None if self.markdown_limit == defaults.markdown_limit else self.markdown_limit,
                    ),
                    ("--junit", self.junit),
                    ("--json", self.json),
                    ("--markdown", self.markdown),
                    ("--html", self.html),
                )
            ),
        )


@dataclass(frozen=True)
class Outcome:
    """What executing a plan came to: the exit code, the run's conclusion (None when nothing was
    concluded: invalid input, or nothing to run), the suite files' problems behind an exit 2, and the
    run's trust (``cache_trusted`` renders it)."""

    code: int
    conclusion: Conclusion | None = None
    problems: tuple[Problem, ...] = ()
    trust: Trust | None = None  # what the run was allowed (None: it stopped before deciding it)
