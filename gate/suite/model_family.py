"""What a model family accepts: the one place that decides which request parameters the gate may send.

Pure (no I/O, no SDK). The adapters ask it how to spell the output-token limit and whether a sampling
parameter may be sent; the judge (and any other model the gate itself configures) asks it for
settings the family accepts, so nothing the gate adds on its own is a parameter the API refuses:

- OpenAI reasoning models (o1, o3, o4, gpt-5 and their snapshots; not ``gpt-5-chat``) refuse
  ``temperature`` and ``top_p`` other than the default and refuse ``max_tokens`` on Chat Completions
  (they want ``max_completion_tokens``); the Responses API spells the limit ``max_output_tokens``.
- Anthropic with extended thinking: ``temperature`` may only be 1, ``top_k`` is refused, ``top_p``
  must be at least 0.95, ``tool_choice`` may not force a tool, and the thinking budget must be at
  least 1,024 tokens and below ``max_tokens``.

What a suite sets explicitly is sent as written (the API's refusal then names the parameter), except
where the loader refuses it before any request (``thinking_problems``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from gate.suite.model import Api, ModelParams, ReasoningEffort

DEFAULT_MAX_TOKENS = 1024  # Anthropic requires max_tokens; used when the suite gives none
MIN_THINKING_BUDGET = 1024  # the Messages API's smallest budget_tokens

TokenLimitKey = Literal["max_tokens", "max_completion_tokens", "max_output_tokens"]
TOKEN_LIMIT_KEYS: tuple[TokenLimitKey, ...] = get_args(TokenLimitKey)

# o1, o3, o4-mini, gpt-5, gpt-5-mini, gpt-5.1 ... and dated snapshots; gpt-5-chat is a chat model.
_OPENAI_REASONING = re.compile(r"^(o\d+(?![a-z])|gpt-5(?!-chat))")


@dataclass(frozen=True)
class Family:
    provider: str
    # OpenAI reasoning model: no temperature/top_p, max_completion_tokens, reasoning_effort accepted.
    reasoning: bool


def family_of(provider: str, model: str) -> Family:
    """The family of ``model`` as its name says (deployment names that hide it count as chat models)."""
    bare = model.rsplit("/", 1)[-1].lower()  # "openai/o3" through a proxy is still o3
    return Family(provider=provider, reasoning=provider == "openai" and bool(_OPENAI_REASONING.match(bare)))


def token_limit_key(provider: str, api: Api, model: str, params: ModelParams) -> TokenLimitKey:
    """How the output-token limit is spelled for this request."""
    if provider == "anthropic":
        return "max_tokens"
    if api == "responses":
        return "max_output_tokens"
    if params.max_completion_tokens is not None or params.max_output_tokens is not None:
        return "max_completion_tokens"
    return "max_completion_tokens" if family_of(provider, model).reasoning else "max_tokens"


def _given_limit(params: ModelParams) -> tuple[TokenLimitKey, int] | None:
    """The output-token limit the suite gave and the name it gave it under (the most specific name
    first, when several were given)."""
    for name in reversed(TOKEN_LIMIT_KEYS):
        value: int | None = getattr(params, name)
        if value is not None:
            return name, value
    return None


def token_limit(params: ModelParams) -> int | None:
    """The output-token limit the suite gave, under whichever of its three names."""
    given = _given_limit(params)
    return given[1] if given is not None else None


def anthropic_max_tokens(params: ModelParams) -> int:
    """``max_tokens`` for the Messages API (required there): with thinking and no limit given, room
    for the budget plus a default answer, so the budget is always below it."""
    given = token_limit(params)
    if given is not None:
        return given
    return DEFAULT_MAX_TOKENS + (params.thinking_budget or 0)


def cut_reason(provider: str, params: ModelParams, setting: str) -> str:
    """Why a reply ended unfinished, and what to change: the limit it was cut at (as the suite wrote
    it, or the default sent) and where to raise it (``setting``: ``agent.params``, ``judge``...)."""
    given = _given_limit(params)
    if given is not None:
        name, value = given
        return f"the reply was cut at {name}={value}: raise it ({setting}.{name})"
    if provider == "anthropic":
        sent = anthropic_max_tokens(params)
        return f"the reply was cut at max_tokens={sent} (the default): raise it (set {setting}.max_tokens)"
    return f"the reply was cut at the server's own output limit (no max_tokens set): set {setting}.max_tokens"


def gate_temperature(provider: str, model: str, wanted: float) -> float | None:
    """The temperature the gate may send of its own accord (the judge's 0): None where the family
    refuses it (OpenAI reasoning models accept only their default)."""
    return None if family_of(provider, model).reasoning else wanted


def judge_params(
    provider: str, model: str, max_tokens: int, reasoning_effort: ReasoningEffort | None
) -> ModelParams:
    """Settings of a model the gate configures itself (judge, user simulator): temperature 0 where
    the family takes it, the token limit under the name the family wants, the effort if given."""
    reasoning = family_of(provider, model).reasoning
    return ModelParams(
        temperature=gate_temperature(provider, model, 0.0),
        max_tokens=None if reasoning else max_tokens,
        max_completion_tokens=max_tokens if reasoning else None,
        reasoning_effort=reasoning_effort,
    )


def thinking_problems(params: ModelParams) -> list[tuple[str, str]]:
    """(parameter, message) for every setting the Messages API refuses together with thinking."""
    budget = params.thinking_budget
    if budget is None:
        return []
    problems: list[tuple[str, str]] = []
    if budget < MIN_THINKING_BUDGET:
        problems.append(("thinking", f"budget_tokens must be at least {MIN_THINKING_BUDGET} (got {budget})"))
    limit = token_limit(params)
    if limit is not None and budget >= limit:
        problems.append(
            ("thinking", f"budget_tokens ({budget}) must be below max_tokens ({limit}): raise max_tokens")
        )
    if params.temperature is not None and params.temperature != 1:
        problems.append(("temperature", "with thinking, temperature may only be 1 (or left out)"))
    if params.top_p is not None and params.top_p < 0.95:
        problems.append(("top_p", "with thinking, top_p must be between 0.95 and 1 (or left out)"))
    if params.tool_choice is not None and params.tool_choice not in ("auto", "none"):
        problems.append(
            ("tool_choice", "with thinking, tool_choice may only be auto or none (no forced tool)")
        )
    return problems


def provider_problems(provider: str, api: Api, params: ModelParams) -> list[tuple[str, str]]:
    """(parameter, message) for parameters the provider or API has no place for."""
    problems: list[tuple[str, str]] = []
    if provider == "anthropic":
        for name in ("reasoning_effort", "verbosity", "max_completion_tokens", "max_output_tokens"):
            if getattr(params, name) is not None:
                problems.append((name, f"{name} is an OpenAI parameter; Anthropic has no such setting"))
        if api != "chat":
            problems.append(
                ("api", "api: responses is the OpenAI Responses API; Anthropic has Messages only")
            )
        return problems + thinking_problems(params)
    if params.thinking_budget is not None:
        problems.append(("thinking", "extended thinking is Anthropic's; for OpenAI use reasoning_effort"))
    if api == "responses" and params.stop:
        problems.append(("stop", "the Responses API has no stop sequences; leave stop out or use api: chat"))
    if api == "responses" and params.seed is not None:
        problems.append(("seed", "the Responses API has no seed; leave seed out or use api: chat"))
    given = [name for name in TOKEN_LIMIT_KEYS if getattr(params, name) is not None]
    if len(given) > 1:
        problems.append((given[1], f"give one output-token limit, not {' and '.join(given)}"))
    return problems
