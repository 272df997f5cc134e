"""The Docker action's entrypoint: ``python -m gate.github.entrypoint``.

Reads the action's inputs (``INPUT_<NAME>``) and the event, runs ``tool-eval-gate run`` in-process
(or, with the ``results`` input, re-renders saved results: the publishing half of the two-workflow
pattern for fork PRs), then writes the job summary, annotations and step outputs, posts the sticky
PR comment and the review, hands the written files back to the workspace's owner and exits with
the run's exit code. Publishing problems are warnings; they never change the exit code.

The pure parts (``read_inputs``, ``read_event``, ``run_arguments``) are separate from ``main``,
which does the I/O.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.errors import EXIT_INCOMPLETE, EXIT_INVALID_INPUT, EXIT_PASSED, GateError, InputError, Problem
from gate.github import actions_env

COMMENT_LIMIT = 65536
TRUE = ("true", "yes", "1", "on")
FALSE = ("false", "no", "0", "off", "")


@dataclass(frozen=True)
class ActionInputs:
    github_token: str = ""
    suites: tuple[str, ...] = ()
    threshold: str = ""
    changed_only: bool = True
    comment: bool = True
    review_comments: bool = True
    fail_on: str = "threshold"
    errors: str = "count"
    concurrency: str = ""
    trials: str = ""
    shard: str = ""
    baseline: str = ""
    cache: str = ""
    replay: bool = False
    openai_api_key: str = ""
    anthropic_api_key: str = ""
    openai_base_url: str = ""
    anthropic_base_url: str = ""
    output_dir: str = "tool-eval-gate-results"
    marker: str = "default"
    results: tuple[str, ...] = ()
    pr_number: str = ""
    max_cost: str = ""
    max_requests: str = ""
    timeout: str = ""


@dataclass(frozen=True)
class EventContext:
    event_name: str
    repository: str
    pr_number: int | None = None
    base_sha: str = ""
    head_sha: str = ""
    is_fork: bool = False
    is_dependabot: bool = False
    # For push events: the commit before the push (change detection base), "" when unknown.
    before_sha: str = ""
    # For workflow_run events: the head SHA of the run that produced the results.
    workflow_run_head_sha: str = ""


def _flag(value: str, name: str, default: bool) -> bool:
    text = value.strip().lower()
    if not text:
        return default
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise InputError(f"input {name}: expected true or false, got {value!r}")


def _list(value: str) -> tuple[str, ...]:
    return tuple(part for part in value.replace(",", "\n").split() if part)


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    """The action's inputs from ``INPUT_<NAME>`` variables (GitHub upper-cases the names). Pure."""

    def get(name: str, default: str = "") -> str:
        value = env.get(f"INPUT_{name.upper()}")
        return value.strip() if value is not None and value.strip() else default

    defaults = ActionInputs()
    return ActionInputs(
        github_token=get("github_token"),
        suites=_list(get("suites")),
        threshold=get("threshold"),
        changed_only=_flag(get("changed_only"), "changed_only", defaults.changed_only),
        comment=_flag(get("comment"), "comment", defaults.comment),
        review_comments=_flag(get("review_comments"), "review_comments", defaults.review_comments),
        fail_on=get("fail_on", defaults.fail_on),
        errors=get("errors", defaults.errors),
        concurrency=get("concurrency"),
        trials=get("trials"),
        shard=get("shard"),
        baseline=get("baseline"),
        cache=get("cache"),
        replay=_flag(get("replay"), "replay", defaults.replay),
        openai_api_key=get("openai_api_key"),
        anthropic_api_key=get("anthropic_api_key"),
        openai_base_url=get("openai_base_url"),
        anthropic_base_url=get("anthropic_base_url"),
        output_dir=get("output_dir", defaults.output_dir),
        marker=get("marker", defaults.marker),
        results=_list(get("results")),
        pr_number=get("pr_number"),
        max_cost=get("max_cost"),
        max_requests=get("max_requests"),
        timeout=get("timeout"),
    )


def _checked_out(workspace: Path, commit: str) -> bool:
    """Whether ``commit`` is HEAD of the workspace or one of its ancestors (a merge ref included)."""
    if not commit:
        return False
    try:
        done = subprocess.run(
            ["git", "-C", str(workspace), "merge-base", "--is-ancestor", commit, "HEAD"],
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def read_event(
    event_name: str, payload: Mapping[str, Any], actor: str = "", repository: str = ""
) -> EventContext:
    """The pull request (if any) of the triggering event. Pure."""
    pull = payload.get("pull_request") if isinstance(payload, Mapping) else None
    repo_name = repository or str((payload.get("repository") or {}).get("full_name", ""))
    if isinstance(pull, Mapping):
        base = pull.get("base") or {}
        head = pull.get("head") or {}
        base_repo = (base.get("repo") or {}).get("full_name", "")
        head_repo = (head.get("repo") or {}).get("full_name", "")  # None when the fork was deleted
        user = ((pull.get("user") or {}).get("login")) or ""
        return EventContext(
            event_name=event_name,
            repository=repo_name or base_repo,
            pr_number=int(pull["number"]) if pull.get("number") is not None else None,
            base_sha=str(base.get("sha") or ""),
            head_sha=str(head.get("sha") or ""),
            is_fork=bool(base_repo) and head_repo != base_repo,
            is_dependabot=actor == "dependabot[bot]" or user == "dependabot[bot]",
        )
    run = payload.get("workflow_run") if isinstance(payload, Mapping) else None
    if isinstance(run, Mapping):
        pulls = run.get("pull_requests") or []
        number = pulls[0].get("number") if pulls and isinstance(pulls[0], Mapping) else None
        return EventContext(
            event_name=event_name,
            repository=repo_name,
            pr_number=int(number) if number is not None else None,
            head_sha=str(run.get("head_sha") or ""),
            workflow_run_head_sha=str(run.get("head_sha") or ""),
            is_dependabot=actor == "dependabot[bot]",
        )
    before = str(payload.get("before") or "") if isinstance(payload, Mapping) else ""
    if set(before) <= {"0"}:  # a new branch: no previous commit
        before = ""
    return EventContext(
        event_name=event_name,
        repository=repo_name,
        head_sha=str(payload.get("after") or "") if isinstance(payload, Mapping) else "",
        before_sha=before,
        is_dependabot=actor == "dependabot[bot]",
    )


def run_arguments(
    inputs: ActionInputs,
    event: EventContext,
    workspace: Path,
    output_dir: Path,
    *,
    replay: bool = False,
) -> list[str]:
    """The ``tool-eval-gate run`` arguments for these inputs and this event. Pure."""
    argv = [str(workspace / path) for path in inputs.suites]
    argv += ["--root", str(workspace)]
    base = event.base_sha or event.before_sha
    if inputs.changed_only and base:
        argv += ["--changed-since", base]
    for flag, value in (
        ("--threshold", inputs.threshold),
        ("--trials", inputs.trials),
        ("--concurrency", inputs.concurrency),
        ("--shard", inputs.shard),
        ("--max-cost", inputs.max_cost),
        ("--max-requests", inputs.max_requests),
        ("--timeout", inputs.timeout),
    ):
        if value:
            argv += [flag, value]
    if inputs.baseline:
        argv += ["--baseline", str(workspace / inputs.baseline)]
    if inputs.cache:
        argv += ["--cache", str(workspace / inputs.cache)]
    if replay or inputs.replay:
        argv.append("--replay")
    argv += ["--errors", inputs.errors, "--fail-on", inputs.fail_on]
    argv += [
        "--junit",
        str(output_dir / "junit.xml"),
        "--json",
        str(output_dir / "results.json"),
        "--markdown",
        str(output_dir / "report.md"),
    ]
    return argv


def report_arguments(
    inputs: ActionInputs, workspace: Path, output_dir: Path, files: Sequence[str]
) -> list[str]:
    """The ``tool-eval-gate report`` arguments that merge and re-render saved results. Pure."""
    argv = list(files)
    for flag, value in (
        ("--threshold", inputs.threshold),
        ("--errors", inputs.errors),
        ("--fail-on", inputs.fail_on),
    ):
        if value:
            argv += [flag, value]
    if inputs.baseline:
        argv += ["--baseline", str(workspace / inputs.baseline)]
    argv += [
        "--marker",
        inputs.marker,
        "--junit",
        str(output_dir / "junit.xml"),
        "--json",
        str(output_dir / "results.json"),
        "--markdown",
        str(output_dir / "report.md"),
    ]
    return argv


# -- I/O helpers ---------------------------------------------------------------------------------


def _say(*lines: str) -> None:
    for line in lines:
        if line:
            print(line)
    sys.stdout.flush()


@contextlib.contextmanager
def _provider_environment(inputs: ActionInputs) -> Iterator[None]:
    """Put the provider keys and base URLs of the inputs into ``os.environ`` (where the SDKs read
    them) for the duration of the run, then restore what was there."""
    values = {
        "OPENAI_API_KEY": inputs.openai_api_key,
        "ANTHROPIC_API_KEY": inputs.anthropic_api_key,
        "OPENAI_BASE_URL": inputs.openai_base_url,
        "ANTHROPIC_BASE_URL": inputs.anthropic_base_url,
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


def _configure_git(workspace: Path, env: Mapping[str, str]) -> None:
    """Trust the workspace for git (the container runs as root; the checkout belongs to the runner
    user, which git refuses as "dubious ownership")."""
    # Scoped to this process and its children, whatever HOME is (git >= 2.31 reads these like `-c`).
    index = int(os.environ.get("GIT_CONFIG_COUNT", "0") or 0)
    os.environ[f"GIT_CONFIG_KEY_{index}"] = "safe.directory"
    os.environ[f"GIT_CONFIG_VALUE_{index}"] = str(workspace)
    os.environ["GIT_CONFIG_COUNT"] = str(index + 1)
    # And in the global config, for git commands of later steps in the same container.
    git_env = dict(os.environ)
    if env.get("HOME"):
        git_env["HOME"] = env["HOME"]
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
    """Give files written into the workspace back to the workspace's owner (we may be root)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return
    try:
        owner = workspace.stat()
    except OSError:
        return
    for top in paths:
        if not top.exists():
            continue
        walk = [top] if top.is_file() else [top, *top.rglob("*")]
        for path in walk:
            try:
                stat = path.lstat()
                if (stat.st_uid, stat.st_gid) != (owner.st_uid, owner.st_gid):
                    os.lchown(path, owner.st_uid, owner.st_gid)
            except OSError:
                pass


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


def _call(module: Any, argv: list[str]) -> tuple[int, list[Problem]]:
    """Run a command's ``main`` the way the CLI does: expected errors become exit codes."""
    try:
        return int(module.main(argv)), []
    except InputError as exc:
        print(f"tool-eval-gate: {exc}", file=sys.stderr)
        return exc.exit_code, list(exc.problems)
    except GateError as exc:
        print(f"tool-eval-gate: {exc}", file=sys.stderr)
        return exc.exit_code, []


def _suite_problems(paths: Sequence[str], workspace: Path) -> list[Problem]:
    from gate.suite_loader import load_suites

    try:
        return list(load_suites(list(paths) or [workspace], root=workspace).problems)
    except GateError:
        return []


def _publish(
    inputs: ActionInputs,
    event: EventContext,
    env: Mapping[str, str],
    body: str,
    recommendations: Sequence[Any],
) -> dict[str, str]:
    """Post the review, then the sticky comment (which lists what the review could not place)."""
    from gate.github.publisher import Publisher, PublishWarning, ReviewOutcome, skipped_section
    from gate.report_markdown import marker_line

    assert event.pr_number is not None
    publisher = Publisher(
        inputs.github_token,
        event.repository,
        event.pr_number,
        env.get("GITHUB_API_URL") or "https://api.github.com",
        namespace=inputs.marker,
        # One run makes a handful of requests and at most three writes: no pacing needed.
        seconds_between_requests=0.0,
        seconds_between_writes=0.0,
    )
    outputs: dict[str, str] = {}
    if event.workflow_run_head_sha:
        # The results came from another workflow's artifact: only publish on the PR whose head
        # is the commit that workflow ran on (an artifact could name any PR).
        try:
            actual = publisher._pull_request().head.sha
        except Exception as exc:  # noqa: BLE001
            _say(actions_env.annotation("warning", f"could not read pull request #{event.pr_number}: {exc}"))
            return outputs
        if actual != event.workflow_run_head_sha:
            _say(
                actions_env.annotation(
                    "warning",
                    f"pull request #{event.pr_number} is at {actual[:12]}, not at the commit the results are for "
                    f"({event.workflow_run_head_sha[:12]}): nothing was posted",
                )
            )
            return outputs
    if inputs.review_comments and recommendations:
        outcome = publisher.review(recommendations, event.head_sha)
        if isinstance(outcome, ReviewOutcome):
            body = body.rstrip("\n") + "\n" + skipped_section(outcome.skipped) if outcome.skipped else body
            outputs["review_comments_posted"] = str(len(outcome.posted))
        elif isinstance(outcome, PublishWarning):
            pass
    if inputs.comment:
        from gate.github.publisher import fit_comment

        url = publisher.upsert_comment(fit_comment(body, COMMENT_LIMIT), marker_line(inputs.marker))
        if isinstance(url, str):
            outputs["comment_url"] = url
    return outputs


# -- main ----------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None, env: MutableMapping[str, str] | None = None) -> int:
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

    try:
        inputs = read_inputs(env)
    except InputError as exc:
        _say(actions_env.annotation("error", str(exc)))
        return EXIT_INVALID_INPUT

    # Never let a key reach the log.
    for secret in (inputs.openai_api_key, inputs.anthropic_api_key, inputs.github_token):
        _say(actions_env.mask(secret))
    # Nor any other secret-looking variable of the job (keys given through `env:` rather than inputs).
    from gate.redact import Redactor

    for secret in Redactor.from_env(env).secrets:
        if secret not in (inputs.openai_api_key, inputs.anthropic_api_key, inputs.github_token):
            _say(actions_env.mask(secret))

    workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd())
    output_dir = workspace / inputs.output_dir
    output_dir.mkdir(parents=True, exist_ok=True)
    _configure_git(workspace, env)

    payload: dict[str, Any] = {}
    event_path = env.get("GITHUB_EVENT_PATH")
    if event_path and Path(event_path).is_file():
        try:
            payload = json.loads(Path(event_path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            _say(actions_env.annotation("warning", f"could not read the event file: {exc}"))
    event = read_event(
        env.get("GITHUB_EVENT_NAME", ""),
        payload,
        env.get("GITHUB_ACTOR", ""),
        env.get("GITHUB_REPOSITORY", ""),
    )
    if inputs.pr_number:
        try:
            event = EventContext(**{**event.__dict__, "pr_number": int(inputs.pr_number)})
        except ValueError:
            _say(actions_env.annotation("error", f"input pr_number: not a number: {inputs.pr_number!r}"))
            return EXIT_INVALID_INPUT

    if (
        event.event_name == "pull_request_target"
        and event.is_fork
        and _checked_out(workspace, event.head_sha)
    ):
        # pull_request_target runs with the base repository's secrets and a write token; a workspace
        # that contains the fork's commits means PR-controlled files would run with them.
        _say(
            actions_env.annotation(
                "error",
                "Refusing to run: this pull_request_target workflow checked out the fork's commits, so "
                "pull-request-controlled suites would run with the repository's secrets. Use the two-workflow "
                "(workflow_run) pattern of docs/github-action.md instead.",
                title="tool-eval-gate",
            )
        )
        return EXIT_INVALID_INPUT

    no_secrets = not (
        inputs.openai_api_key
        or inputs.anthropic_api_key
        or env.get("OPENAI_API_KEY")
        or env.get("ANTHROPIC_API_KEY")
        or inputs.openai_base_url
        or inputs.anthropic_base_url
    )
    restricted = (event.is_fork and event.event_name == "pull_request") or event.is_dependabot
    summary_path = env.get("GITHUB_STEP_SUMMARY")
    notes: list[str] = []

    problems: list[Problem] = []
    replay = False
    if inputs.results:
        from gate.commands import report as command

        files = _resolve_results(inputs.results, workspace)
        cmd_args = report_arguments(inputs, workspace, output_dir, files)
    else:
        from gate.commands import run as command  # type: ignore[no-redef]

        if restricted and no_secrets:
            who = "a Dependabot pull request" if event.is_dependabot else "a pull request from a fork"
            if inputs.cache:
                replay = True
                notes.append(
                    f"This is {who}: GitHub gives it no secrets and a read-only token, so the gate runs "
                    "replay-only from the response cache (cases not in the cache are errors)."
                )
            else:
                notes.append(
                    f"This is {who}: GitHub gives it no secrets and a read-only token, so no model can be "
                    "called and nothing can be posted. The evaluation was skipped. Use the two-workflow "
                    "(`workflow_run`) pattern of docs/github-action.md, or commit a response cache and set "
                    "the `cache` input to replay it."
                )
        cmd_args = run_arguments(inputs, event, workspace, output_dir, replay=replay)

    for note in notes:
        _say(actions_env.annotation("notice", note, title="tool-eval-gate"))

    skipped = bool(notes) and not replay and not inputs.results
    if skipped:
        code = EXIT_PASSED
        results = None
    else:
        _say(f"::group::tool-eval-gate {'report' if inputs.results else 'run'}")
        with _provider_environment(inputs):
            code, problems = _call(command, cmd_args)
        _say("::endgroup::")
        if code == EXIT_INVALID_INPUT and not problems and not inputs.results:
            problems = _suite_problems([str(workspace / path) for path in inputs.suites], workspace)
        results = _load(output_dir / "results.json") if code != EXIT_INVALID_INPUT else None

    verdict = analysis = comparison = None
    if results is not None:
        from gate.analysis import analyse
        from gate.baseline import compare
        from gate.verdict import GatePolicy, decide

        baseline = _load(workspace / inputs.baseline) if inputs.baseline else None
        comparison = compare(results, baseline) if baseline is not None else None
        verdict = decide(results, GatePolicy.from_settings(results.settings), comparison)
        analysis = analyse(results)
        if not results.suites and (event.base_sha or event.before_sha) and inputs.changed_only:
            notes.append("No suite is affected by the changes in this pull request: nothing to evaluate.")
            _say(actions_env.annotation("notice", notes[-1], title="tool-eval-gate"))

    actions_env.write_commands(actions_env.annotations_for(results, verdict, problems))

    # The job summary: the full report (1 MiB form), or what happened instead.
    report_path = output_dir / "report.md"
    if summary_path:
        if results is not None and report_path.is_file():
            text = report_path.read_text(encoding="utf-8")
        else:
            text = _fallback_summary(code, notes, problems)
        if notes and results is not None:
            text = "".join(f"> {note}\n\n" for note in notes) + text
        actions_env.append_summary(text, summary_path)

    outputs: dict[str, object] = {
        "pass_rate": f"{verdict.pass_rate:.4f}" if verdict is not None else "",
        "passed": verdict.passed_count if verdict is not None else 0,
        "failed": verdict.failed_count if verdict is not None else 0,
        "errors": verdict.error_count if verdict is not None else 0,
        "verdict": _verdict_word(code, verdict, skipped),
        "exit_code": code,
        "junit_path": _relative(output_dir / "junit.xml", workspace)
        if (output_dir / "junit.xml").is_file()
        else "",
        "results_path": _relative(output_dir / "results.json", workspace) if results is not None else "",
        "report_path": _relative(report_path, workspace) if report_path.is_file() else "",
    }

    # The PR comment and review.
    can_publish = (
        event.pr_number is not None and inputs.github_token and (inputs.comment or inputs.review_comments)
    )
    if can_publish and restricted and event.event_name == "pull_request":
        _say(
            actions_env.annotation(
                "notice",
                "The token of this pull request is read-only: no comment or review is posted; the "
                "results are in the job summary and the output directory.",
                title="tool-eval-gate",
            )
        )
    elif can_publish and (results is not None or problems):
        from gate.report_markdown import marker_line

        if results is not None and verdict is not None and analysis is not None:
            from gate.report_markdown import render

            run_url = _run_url(env)
            body = render(
                results,
                verdict,
                analysis,
                comparison,
                limit=COMMENT_LIMIT - 4096,
                full_report_hint=f"the job summary and the artifacts of {run_url}"
                if run_url
                else "the job summary",
                marker=inputs.marker,
            )
            recommendations = analysis.recommendations
        else:
            body = marker_line(inputs.marker) + "\n" + _fallback_summary(code, notes, problems)
            recommendations = ()
        try:
            outputs.update(_publish(inputs, event, env, body, recommendations))
        except Exception as exc:  # noqa: BLE001 - publishing never changes the verdict
            _say(actions_env.annotation("warning", f"publishing to the pull request failed: {exc}"))

    if env.get("GITHUB_OUTPUT"):
        actions_env.set_outputs(outputs, env["GITHUB_OUTPUT"])
    _chown_back(workspace, [output_dir] + ([workspace / inputs.cache] if inputs.cache else []))
    return code


def _load(path: Path) -> Any:
    if not path.is_file():
        return None
    from gate.report_json import load_results

    try:
        return load_results(path)
    except GateError as exc:
        _say(actions_env.annotation("warning", f"could not read {path.name}: {exc}"))
        return None


def _verdict_word(code: int, verdict: Any, skipped: bool) -> str:
    if skipped:
        return "skipped"
    if code == EXIT_INVALID_INPUT:
        return "invalid"
    if code == EXIT_INCOMPLETE or verdict is None:
        return "incomplete"
    return "passed" if code == EXIT_PASSED else "failed"


def _run_url(env: Mapping[str, str]) -> str:
    server, repo, run_id = (
        env.get("GITHUB_SERVER_URL"),
        env.get("GITHUB_REPOSITORY"),
        env.get("GITHUB_RUN_ID"),
    )
    return f"{server}/{repo}/actions/runs/{run_id}" if server and repo and run_id else ""


def _fallback_summary(code: int, notes: Sequence[str], problems: Sequence[Problem]) -> str:
    from gate.escape import md_inline_code

    lines = ["## tool-eval-gate", ""]
    lines += [f"> {note}" for note in notes]  # our own words, not untrusted text
    if notes:
        lines.append("")
    if problems:
        lines.append(f"**Invalid input:** {len(problems)} problem(s) in the suite files; nothing was run.")
        lines.append("")
        lines += [f"- {md_inline_code(p.render())}" for p in problems[:200]]
    elif code == EXIT_INVALID_INPUT:
        lines.append("**Invalid input:** see the step log.")
    elif code == EXIT_INCOMPLETE:
        lines.append("**The evaluation could not be completed:** see the step log.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
