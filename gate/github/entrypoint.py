"""The Docker action's entrypoint: ``python -m gate.github.entrypoint``.

Three phases: the settings are read from the runner's variables and the event file
(``action_settings``), the plan decides what to do from them and from what git says about the
workspace (``action_plan``, pure), and ``main`` executes the plan: runs ``tool-eval-gate run``
in-process (or ``report`` to re-render saved results), writes the job summary, annotations and every
documented step output, posts the sticky PR comment and the review, and hands the written files
(``.git/index`` included) back to the workspace's owner, on every exit path. Publishing problems are
warnings; they never change the exit code.
"""

from __future__ import annotations

import contextlib
import glob
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gate import CACHE_DIRECTORY
from gate.commands.plans import Outcome as CommandOutcome
from gate.commands.plans import ReportPlan, RunPlan
from gate.errors import (
    EXIT_GATE_FAILED,
    EXIT_INCOMPLETE,
    EXIT_INVALID_INPUT,
    EXIT_PASSED,
    GateError,
    InputError,
    Problem,
)
from gate.files.links import first_link
from gate.fixes.suggestions import Suggestion, suggestions
from gate.github import actions_env
from gate.github.action_plan import (
    FIX_PATCH,
    HTML_FILE,
    JUNIT_FILE,
    NOTHING_AFFECTED,
    OUTPUT_FILES,
    READ_ONLY_NOTICE,
    REPORT_FILE,
    RESULTS_FILE,
    Plan,
    WorkspaceFacts,
    comment_mode,
    plan,
)
from gate.github.action_settings import ActionSettings, EventContext, read_settings
from gate.reports.markdown import COMMENT_LIMIT
from gate.util.json_types import JsonObject

if TYPE_CHECKING:
    from gate.analysis.analyse import Recommendation
    from gate.github.publisher import Publisher
    from gate.verdict.conclusion import Conclusion
    from gate.verdict.policy import Verdict

# Every output action.yml documents, written on every exit path ("" when it does not apply).
OUTPUT_NAMES = (
    "pass_rate",
    "passed",
    "failed",
    "errors",
    "verdict",
    "reasons",
    "junit_path",
    "results_path",
    "report_path",
    "html_path",
    "comment_url",
    "review_comments_posted",
    "fix_patch_path",
    "exit_code",
    "cache_trusted",
)


# -- I/O helpers ---------------------------------------------------------------------------------


def _say(*commands: str) -> None:
    """The action's own workflow commands (each escaped where it was made)."""
    actions_env.write_commands(commands)


@contextlib.contextmanager
def _run_environment(settings: ActionSettings) -> Iterator[None]:
    """For the duration of the in-process run only (the SDKs and git read the process environment):
    the provider keys and base URLs of the inputs, the run the results are made in, and git's trust
    in the workspace (the container runs as root; the checkout belongs to the runner user, which git
    refuses as "dubious ownership"). Everything is restored afterwards."""
    inputs, workspace = settings.inputs, settings.workspace
    index = int(os.environ.get("GIT_CONFIG_COUNT", "0") or 0)
    values = {
        "CI": "true",  # an action run is a CI run: answers a pull request can write are not trusted
        "GITHUB_RUN_ID": settings.run_id,
        "OPENAI_API_KEY": inputs.openai_api_key,
        "ANTHROPIC_API_KEY": inputs.anthropic_api_key,
        "OPENAI_BASE_URL": inputs.openai_base_url,
        "ANTHROPIC_BASE_URL": inputs.anthropic_base_url,
        f"GIT_CONFIG_KEY_{index}": "safe.directory",
        f"GIT_CONFIG_VALUE_{index}": str(workspace),
        "GIT_CONFIG_COUNT": str(index + 1),
    }
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            if value:
                os.environ[name] = value
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


def _facts(settings: ActionSettings) -> WorkspaceFacts:
    links = _links(settings)
    if settings.inputs.results:
        return WorkspaceFacts(
            results_files=tuple(_resolve_results(settings.inputs.results, settings.workspace)), links=links
        )
    return WorkspaceFacts(links=links)


def _links(settings: ActionSettings) -> tuple[tuple[str, str], ...]:
    """The output and cache directories, and the files the action writes into the output directory,
    reached through a symlink (a pull request can commit one): (input name, the link,
    workspace-relative)."""
    found = []
    for name, directory in (("output_dir", settings.output_dir), ("cache", settings.cache_dir)):
        written = [directory, *(directory / f for f in OUTPUT_FILES)] if name == "output_dir" else [directory]
        link = next(filter(None, (first_link(path, settings.workspace) for path in written)), None)
        if link is not None:
            found.append((name, link.relative_to(settings.workspace).as_posix()))
    return tuple(found)


def _clear_outputs(settings: ActionSettings, facts: WorkspaceFacts) -> None:
    """Before anything else, also before a refusal or an exit on invalid input: the files of the output
    directory are removed, and a link on the way to them (the link, never its target), so that what
    the workflow uploads from it (a shard's results.json, which the merge job renders) is this run's
    or nothing, never a file the pull request committed there. The files the action reads (``results``,
    ``baseline``, ``rerun_failed``) stay."""
    from gate.files.outputs import clear_outputs

    inputs, workspace = settings.inputs, settings.workspace
    read = [
        *facts.results_files,
        *(
            str(workspace / p)
            for p in (inputs.baseline, inputs.options.rerun_failed or "")
            if p not in ("", "auto", "off")
        ),
    ]
    written = [str(settings.output_dir / name) for name in OUTPUT_FILES]
    clear_outputs(written, keep=read, links_below=workspace)


def _trust_workspace_for_later_steps(workspace: Path, env: Mapping[str, str]) -> None:
    """Add the workspace to ``safe.directory`` in the global git config of ``$HOME`` (shared by the
    job's later container steps)."""
    git_env = {**os.environ, "HOME": env.get("HOME") or os.environ.get("HOME", "")}
    try:
        existing = subprocess.run(
            ["git", "config", "--global", "--get-all", "safe.directory"],
            env=git_env,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split()
        if str(workspace) not in existing and "*" not in existing:
            subprocess.run(
                ["git", "config", "--global", "--add", "safe.directory", str(workspace)],
                env=git_env,
                capture_output=True,
                check=False,
            )
    except FileNotFoundError:
        _say(actions_env.annotation("warning", "git is not installed: change detection is unavailable"))


def _chown_back(workspace: Path, paths: Sequence[Path]) -> None:
    """Give what the run wrote into the workspace back to the workspace's owner (we may be root):
    each of ``paths`` with everything below it, and the directories on the way down to it (a run
    creates ``.tool-eval-gate/`` for its cache). Links are never followed: a path reached through
    one is left alone, and links found below are handed back themselves, never their targets."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    try:
        owner = workspace.stat()
    except OSError:
        return
    for top in paths:
        if first_link(top, workspace) is not None:
            continue
        relative = top.relative_to(workspace).parts if workspace in top.parents else ()
        on_the_way = [workspace.joinpath(*relative[:depth]) for depth in range(1, len(relative))]
        for path in (*on_the_way, *_tree(top)):
            try:
                stat = path.lstat()
                if (stat.st_uid, stat.st_gid) != (owner.st_uid, owner.st_gid):
                    os.lchown(path, owner.st_uid, owner.st_gid)
            except OSError:
                pass


def _tree(top: Path) -> Iterator[Path]:
    """``top`` and, when it is a real directory, everything below it (links not followed)."""
    if not top.exists() and not top.is_symlink():
        return
    yield top
    if top.is_symlink() or not top.is_dir():
        return
    for directory, subdirectories, files in os.walk(top, followlinks=False):
        for name in (*subdirectories, *files):
            yield Path(directory, name)


def _relative(path: Path, workspace: Path) -> str:
    try:
        return path.resolve().relative_to(workspace.resolve()).as_posix()
    except ValueError:
        return str(path)


def _resolve_results(patterns: Sequence[str], workspace: Path) -> list[str]:
    files: list[str] = []
    for pattern in patterns:
        full = str(workspace / pattern)
        matches = sorted(glob.glob(full, recursive=True))
        files.extend(matches or [full])
    return files


def _call(command: RunPlan | ReportPlan | None) -> CommandOutcome:
    """Execute the planned command in-process; expected errors become exit codes, as on the CLI."""
    from gate.commands import report, run
    from gate.trust.decision import NotVerified, Refused

    try:
        if isinstance(command, RunPlan):
            return run.execute(command)
        if isinstance(command, ReportPlan):
            return report.execute(command)
        raise AssertionError("a run or report plan has a command")
    except InputError as exc:
        print(f"tool-eval-gate: {exc}", file=sys.stderr)
        return CommandOutcome(exc.exit_code, problems=tuple(exc.problems))
    except (NotVerified, Refused):
        raise  # the trust decision stopped the run: the caller says so (verdict unverified / refused)
    except GateError as exc:
        print(f"tool-eval-gate: {exc}", file=sys.stderr)
        return CommandOutcome(exc.exit_code)


def _command_line(the_plan: Plan, workspace: Path) -> str:
    """The CLI line that does what the action runs, with workspace paths made relative (a user
    reruns it in the repository), neutralised for the log line it is printed on."""
    import shlex

    top, inside = str(workspace), str(workspace).rstrip("/") + "/"
    words = [
        "." if word == top else word[len(inside) :] if word.startswith(inside) else word
        for word in the_plan.command_line
    ]
    return actions_env.escape_data(shlex.join(["tool-eval-gate", *words]))


def _artifact_is_for_the_pull_request(publisher: Publisher, event: EventContext) -> bool:
    """The results came from another workflow's artifact, which could name any pull request: publish
    only on the pull request whose head is the commit that workflow ran on, in the repository it ran
    on (anyone can push a public commit, another pull request's head included, to a fork of their
    own and open a pull request from it: its artifact then names the other pull request)."""
    try:
        head = publisher._pull_request().head
        actual, repo = head.sha, head.repo.full_name if head.repo is not None else ""
    except Exception as exc:  # noqa: BLE001
        _say(actions_env.annotation("warning", f"could not read pull request #{event.pr_number}: {exc}"))
        return False
    if actual != event.workflow_run_head_sha:
        why = (
            f"is at {actual[:12]}, not at the commit the results are for ({event.workflow_run_head_sha[:12]})"
        )
    elif not repo or repo != event.workflow_run_head_repo:
        ran = event.workflow_run_head_repo or "an unknown repository"
        why = f"comes from {repo or 'a deleted repository'}, but the results were made by a run in {ran}"
    else:
        return True
    _say(actions_env.annotation("warning", f"pull request #{event.pr_number} {why}: nothing was posted"))
    return False


def _publish(
    settings: ActionSettings,
    body: str,
    recommendations: Sequence[Recommendation],
    *,
    create_comment: bool,
    verified: Sequence[Suggestion] = (),
) -> dict[str, str]:
    """Post the review (the recommendations, and the verified fixes as suggested changes), then the
    sticky comment (which lists what the review could not place)."""
    from gate.github.publisher import Publisher, ReviewOutcome, fit_comment, skipped_section
    from gate.reports.markdown import marker_line

    inputs, event = settings.inputs, settings.event
    assert event.pr_number is not None
    publisher = Publisher(
        inputs.github_token,
        event.repository,
        event.pr_number,
        settings.api_url,
        namespace=inputs.marker,
        # One run makes a handful of requests and at most three writes: no pacing needed.
        seconds_between_requests=0.0,
        seconds_between_writes=0.0,
        fallback_login=inputs.comment_author,
    )
    outputs: dict[str, str] = {}
    if event.workflow_run_head_sha and not _artifact_is_for_the_pull_request(publisher, event):
        return outputs
    if inputs.review_comments and (recommendations or verified):
        outcome = publisher.review(recommendations, event.head_sha, suggestions=verified)
        if isinstance(outcome, ReviewOutcome):
            body = body.rstrip("\n") + "\n" + skipped_section(outcome.skipped) if outcome.skipped else body
            outputs["review_comments_posted"] = str(len(outcome.posted))
    if inputs.comment:
        url = publisher.upsert_comment(
            fit_comment(body, COMMENT_LIMIT), marker_line(inputs.marker), create=create_comment
        )
        if isinstance(url, str):
            outputs["comment_url"] = url
    return outputs


# -- main: settings -> plan -> execute --------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What the run produced, for the summary, the outputs and the comment."""

    code: int
    problems: tuple[Problem, ...] = ()
    conclusion: Conclusion | None = None
    notices: tuple[str, ...] = ()
    # The trust decision stopped the run before anything started: "refused" or "unverified" (its
    # reason is in ``notices``); "" when it ran.
    stopped: str = ""
    cache_trusted: bool = False  # the run's trust says the cache holds only the gate's answers

    @property
    def evaluated(self) -> int:
        if self.conclusion is None:
            return 0
        v = self.conclusion.verdict
        return int(v.passed_count + v.failed_count + v.error_count)


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    from gate.cli import tolerate_closed_output

    restore = tolerate_closed_output()  # `docker run IMAGE --help | head -1`
    try:
        return _main(argv, env)
    finally:
        restore()


def _main(argv: Sequence[str] | None, env: Mapping[str, str] | None) -> int:
    from gate.cli import tolerate_unencodable_output

    tolerate_unencodable_output()  # annotations quote model text, which may hold a lone surrogate
    env = os.environ if env is None else env
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help", "--version"):
        from gate import __version__

        print(
            f"tool-eval-gate {__version__}: the GitHub Action entrypoint (inputs come from INPUT_* variables)"
        )
        return EXIT_PASSED
    if args:  # used as a plain CLI inside the image: `docker run IMAGE run ...`
        from gate.cli import main as cli_main

        return cli_main(args)

    from gate.cli import redact_stdio

    restore = redact_stdio(env)  # nothing printed can be a workflow command but the action's own
    try:
        return _run_action(env)
    finally:
        restore()


def _run_action(env: Mapping[str, str]) -> int:
    settings = read_settings(env, _read_payload(env), Path.cwd())
    _mask_secrets(settings, env)
    outputs: dict[str, object] = {name: "" for name in OUTPUT_NAMES}
    code = EXIT_INCOMPLETE
    try:
        code = _execute(settings, env, outputs)
    finally:
        outputs["exit_code"] = code
        if not outputs["verdict"]:
            outputs["verdict"] = "incomplete"
        if settings.output_path:
            actions_env.set_outputs(outputs, settings.output_path)
        own = settings.workspace / Path(CACHE_DIRECTORY).parts[0]  # .tool-eval-gate/, with its .gitignore
        written = [settings.output_dir, settings.cache_dir, own, settings.workspace / ".git" / "index"]
        rescued = settings.workspace.glob(
            "tool-eval-gate-results-*.json"
        )  # outputs that could not be written
        _chown_back(settings.workspace, [*written, *rescued])
    return code


def _read_payload(env: Mapping[str, str]) -> JsonObject | None:
    """The event's payload ({} without an event file; None when it cannot be read)."""
    from gate.files.event_file import EventFileError, read_event_payload

    event_path = env.get("GITHUB_EVENT_PATH")
    if not event_path:
        return {}
    try:
        return read_event_payload(event_path)
    except EventFileError as exc:
        _say(actions_env.annotation("warning", f"{exc}: whose commits this run holds is unknown"))
        return None


def _mask_secrets(settings: ActionSettings, env: Mapping[str, str]) -> None:
    """Never let a key reach the log, nor any other secret-looking variable of the job (keys given
    through `env:` rather than inputs)."""
    from gate.util.redact import Redactor

    inputs = settings.inputs
    own = (inputs.openai_api_key, inputs.anthropic_api_key, inputs.github_token)
    for secret in own + tuple(s for s in Redactor.from_env(env).secrets if s not in own):
        _say(actions_env.mask(secret))


def _execute(settings: ActionSettings, env: Mapping[str, str], outputs: dict[str, object]) -> int:
    facts = _facts(settings)  # the links a pull request put on the way to the outputs: refused below
    _clear_outputs(settings, facts)
    if not facts.links:  # never created through a link
        settings.output_dir.mkdir(parents=True, exist_ok=True)
    _trust_workspace_for_later_steps(settings.workspace, env)
    the_plan = plan(settings, facts)
    outputs["cache_trusted"] = "false"  # until the run says otherwise
    for notice in the_plan.notices:
        _say(actions_env.annotation("notice", notice, title="tool-eval-gate"))
    if the_plan.read_only_notice:
        _say(actions_env.annotation("notice", READ_ONLY_NOTICE, title="tool-eval-gate"))
    if the_plan.mode == "refuse":
        for error in the_plan.errors:
            _say(actions_env.annotation("error", error, title="tool-eval-gate"))
        _summarise(settings, Outcome(the_plan.exit_code, notices=the_plan.notices + the_plan.errors))
        outputs["verdict"] = the_plan.refusal_verdict
        return the_plan.exit_code
    outcome = _evaluate(settings, the_plan)
    outputs["cache_trusted"] = "true" if outcome.cache_trusted else "false"
    conclusion = outcome.conclusion
    actions_env.write_commands(actions_env.annotations_for(conclusion, outcome.problems))
    command = the_plan.command
    _summarise(settings, outcome, command.marker if isinstance(command, ReportPlan) else "default")
    outputs.update(_outcome_outputs(settings, outcome))
    mode = comment_mode(the_plan, outcome.evaluated, len(outcome.problems))
    if mode != "none" and (conclusion is not None or outcome.problems):
        body, recommendations = _comment_body(settings, outcome)
        verified = suggestions(conclusion.results.fixes) if conclusion is not None else ()
        try:
            create = mode == "upsert"
            outputs.update(
                _publish(settings, body, recommendations, create_comment=create, verified=verified)
            )
        except Exception as exc:  # noqa: BLE001 - publishing never changes the verdict
            _say(actions_env.annotation("warning", f"publishing to the pull request failed: {exc}"))
    if outcome.code == EXIT_GATE_FAILED and not the_plan.gates:
        return EXIT_PASSED
    return outcome.code


def _evaluate(settings: ActionSettings, the_plan: Plan) -> Outcome:
    """Run (or re-render) as planned, in-process; its conclusion is what every output renders."""
    inputs, event, workspace = settings.inputs, settings.event, settings.workspace
    from gate.trust.decision import NotVerified, Refused

    _say(f"::group::{actions_env.escape_data(_command_line(the_plan, workspace))}")
    try:
        with _run_environment(settings):
            done = _call(the_plan.command)
    except (NotVerified, Refused) as exc:  # evaluating here cannot give a true verdict: say why
        _say("::endgroup::", actions_env.annotation("error", str(exc), title="tool-eval-gate"))
        stopped = "refused" if isinstance(exc, Refused) else "unverified"
        return Outcome(exc.exit_code, notices=(*the_plan.notices, str(exc)), stopped=stopped)
    _say("::endgroup::")
    trust = done.trust
    notices = the_plan.notices
    if trust is not None and trust.note:  # e.g. a cache the pull request could write: not read
        notices += (trust.note,)
        _say(actions_env.annotation("warning", trust.note, title="tool-eval-gate"))
    cached = trust is not None and trust.savable
    conclusion = done.conclusion
    if conclusion is None:
        return Outcome(done.code, done.problems, notices=notices, cache_trusted=cached)
    if not conclusion.results.suites and (event.base_sha or event.before_sha) and inputs.changed_only:
        notices += (NOTHING_AFFECTED,)
        _say(actions_env.annotation("notice", NOTHING_AFFECTED, title="tool-eval-gate"))
    return Outcome(done.code, done.problems, conclusion, notices, cache_trusted=cached)


def _summarise(settings: ActionSettings, outcome: Outcome, marker: str = "default") -> None:
    """The job summary: the full report (1 MiB form, the report file's text), or what happened
    instead."""
    if not settings.summary_path:
        return
    if outcome.conclusion is not None:
        from gate.reports.markdown import SUMMARY_LIMIT, render

        text = render(
            outcome.conclusion, limit=SUMMARY_LIMIT, marker=marker, html_report=_html_report(settings)
        )
        text = _quoted(outcome.notices) + text
    else:
        text = _fallback_summary(outcome.code, outcome.notices, outcome.problems)
    actions_env.append_summary(text, settings.summary_path)


def _outcome_outputs(settings: ActionSettings, outcome: Outcome) -> dict[str, object]:
    verdict = outcome.conclusion.verdict if outcome.conclusion is not None else None
    output_dir, workspace = settings.output_dir, settings.workspace

    fixes = outcome.conclusion.results.fixes if outcome.conclusion is not None else None

    def path_if_written(name: str) -> str:
        return _relative(output_dir / name, workspace) if (output_dir / name).is_file() else ""

    return {
        # Empty when nothing was evaluated (a rate of no cases is not 100%).
        "pass_rate": f"{verdict.pass_rate:.4f}" if verdict is not None and outcome.evaluated else "",
        "passed": verdict.passed_count if verdict is not None else 0,
        "failed": verdict.failed_count if verdict is not None else 0,
        "errors": verdict.error_count if verdict is not None else 0,
        "verdict": outcome.stopped or _verdict_word(outcome.code, verdict),
        # Why it failed or is incomplete (the error budget's word on each suite beyond it among them).
        "reasons": "\n".join(verdict.reasons) if verdict is not None else "",
        "junit_path": path_if_written(JUNIT_FILE),
        "results_path": path_if_written(RESULTS_FILE) if outcome.conclusion is not None else "",
        "report_path": path_if_written(REPORT_FILE),
        "html_path": path_if_written(HTML_FILE),
        # the verified edits, when there are some (an empty patch is no patch for git apply)
        "fix_patch_path": path_if_written(FIX_PATCH) if fixes is not None and fixes.patch else "",
    }


def _html_report(settings: ActionSettings) -> str:
    """Where a reader finds the HTML report, as Markdown: the file in the run's artifacts (the shipped
    workflows upload the output directory), "" when it was not written."""
    path = settings.output_dir / HTML_FILE
    if not path.is_file():
        return ""
    from gate.util.escape import md_inline_code

    where = md_inline_code(_relative(path, settings.workspace))
    if settings.run_url:
        run = f"[this run]({settings.run_url}#artifacts)"
        return f"{where} in the artifacts of {run} (download it, open it in a browser)"
    return where


def _comment_body(settings: ActionSettings, outcome: Outcome) -> tuple[str, Sequence[Recommendation]]:
    from gate.reports.markdown import marker_line

    marker = settings.inputs.marker
    if outcome.conclusion is None:
        return marker_line(marker) + "\n" + _fallback_summary(
            outcome.code, outcome.notices, outcome.problems
        ), ()
    from gate.reports.markdown import render

    hint = (
        f"the job summary and [the artifacts of this run]({settings.run_url}#artifacts)"
        if settings.run_url
        else "the job summary"
    )
    body = render(
        outcome.conclusion,
        limit=COMMENT_LIMIT - 4096,
        full_report_hint=hint,
        marker=marker,
        html_report=_html_report(settings),
    )
    return body, outcome.conclusion.advice


def _verdict_word(code: int, verdict: Verdict | None) -> str:
    if code == EXIT_INVALID_INPUT:
        return "invalid"
    if code == EXIT_INCOMPLETE and verdict is not None and not verdict.verified:
        return "unverified"  # a replay could not answer some requests
    if code == EXIT_INCOMPLETE or verdict is None:
        return "incomplete"
    return "passed" if code == EXIT_PASSED else "failed"


def _quoted(notes: Sequence[str]) -> str:
    """The action's notices as Markdown quotes, each escaped whole: a notice is plain text (the same
    words go to the step log) that can quote what a pull request chose, such as a committed file's
    name, and every field that reaches Markdown is escaped."""
    from gate.util.escape import md_text

    return "".join(f"> {md_text(note)}\n\n" for note in notes)


def _fallback_summary(code: int, notes: Sequence[str], problems: Sequence[Problem]) -> str:
    from gate.util.escape import md_inline_code

    lines = []
    if problems:
        lines.append(f"**Invalid input:** {len(problems)} problem(s) in the suite files; nothing was run.")
        lines.append("")
        lines += [f"- {md_inline_code(p.render())}" for p in problems[:200]]
    elif code == EXIT_INVALID_INPUT:
        lines.append("**Invalid input:** see the step log.")
    elif code == EXIT_INCOMPLETE:
        lines.append("**The evaluation could not be completed:** see the step log.")
    return "## tool-eval-gate\n\n" + _quoted(notes) + "".join(f"{line}\n" for line in lines)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
