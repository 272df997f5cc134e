"""What the reports say about how a run was made, as plain sentences each renderer escapes: which
model ran each suite (and ``--model`` / ``--judge-model`` when they chose it, and the baseline's when
it differs), and which changed files made each suite run under ``--changed-since``. Pure."""

from __future__ import annotations

from collections.abc import Mapping

from gate.results.outcomes import RunResults, SuiteResult


def model_name(suite: SuiteResult) -> str:
    """``openai/gpt-4.1-mini``: the model that ran the suite, with its provider when known."""
    return f"{suite.provider}/{suite.model}" if suite.provider else suite.model


def _models(results: RunResults) -> dict[str, str]:
    return {suite.name: model_name(suite) for suite in results.suites if suite.model}


def _said(models: Mapping[str, str]) -> str:
    """One model for every suite, or each suite's."""
    distinct = sorted(set(models.values()))
    if len(distinct) == 1:
        return distinct[0]
    return "; ".join(f"{name}: {model}" for name, model in sorted(models.items()))


def model_lines(results: RunResults, baseline: RunResults | None = None) -> list[str]:
    """``model: openai/gpt-4.1-mini (--model, instead of the suites' own)``, the judge model when
    ``--judge-model`` chose it, and the baseline's models when they differ from the head's."""
    models = _models(results)
    lines = []
    if models:
        chosen = results.settings.model
        by_flag = f" (--model {chosen}, instead of the suites' own)" if chosen else ""
        lines.append(f"{'model' if len(set(models.values())) == 1 else 'models'}: {_said(models)}{by_flag}")
    judge = results.settings.judge_model
    if judge:
        lines.append(f"judge model: {judge} (--judge-model, instead of the suites' judges)")
    if baseline is not None:
        base = {name: model for name, model in _models(baseline).items() if name in models}
        if base and any(models[name] != model for name, model in base.items()):
            lines.append(f"the baseline ran {_said(base)}")
    return lines


def trigger_line(suite: str, triggered_by: Mapping[str, str]) -> str:
    """``weather: prompts/weather.md (prompt), tools/weather.json (tool definitions)``."""
    files = ", ".join(f"{path} ({why})" if why else path for path, why in sorted(triggered_by.items()))
    return f"{suite}: {files}"


def trigger_lines(results: RunResults) -> list[str]:
    """Under ``--changed-since``: for each suite that ran, the changed files that made it run."""
    if not results.settings.changed_since:
        return []
    return [trigger_line(s.name, s.triggered_by) for s in results.suites if s.triggered_by]
