"""``run --model`` and ``--judge-model``: the suites run with another model than the one they name,
for "would switching models break us?".

``[PROVIDER:]NAME``: a model of each suite's own provider (``gpt-4.1-mini``), or of another
(``anthropic:claude-sonnet-4-5``; only the prefixes ``openai:`` and ``anthropic:`` are providers, so
served names such as ``llama3.1:8b`` or ``openai/gpt-4o`` stay names). The suites' parameters come
along as written; those the new provider has no place for are refused before any request, per
suite, as ``validate`` would refuse them in the suite. Switching to Anthropic uses the Messages API
(``api: responses`` is OpenAI's). Pure.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gate.suite.model import PROVIDERS, Agent, Api, Judge, ModelParams, Provider, Suite
from gate.suite.model_family import provider_problems
from gate.util.escape import show

MAX_MODEL_NAME = 256  # characters (served names such as accounts/x/models/llama-v3p1-405b are ~50)


def model_name_problem(name: str) -> str | None:
    """Why ``name`` can never be a model a provider serves (None: it can be one): empty, white space
    around it, a control or format character in it (a newline, NUL, a bidirectional override), or
    longer than any served name. Such a name was sent as written, and failed at the provider or,
    worse, ran a model literally named so on a server that takes any name."""
    if not name:
        return "the model name is empty"
    for char in name:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
            return f"the model name holds a control character ({char!r})"
    if name != name.strip():
        return f"the model name {show(name, 80)} has white space around it"
    if len(name) > MAX_MODEL_NAME:
        return f"the model name is {len(name):,} characters long (at most {MAX_MODEL_NAME})"
    return None


class ModelChoiceError(ValueError):
    """A ``[PROVIDER:]NAME`` that names no model: the message says why."""


@dataclass(frozen=True)
class ModelChoice:
    """A model asked for on the command line: its name, and its provider when one was named."""

    text: str  # as given, for messages
    name: str
    provider: Provider | None = None

    @classmethod
    def parse(cls, text: str) -> ModelChoice:
        """The choice ``text`` makes; :class:`ModelChoiceError` when it names no model (``''``,
        ``anthropic:`` alone, a name with a newline...)."""
        head, colon, rest = text.partition(":")
        provider = next((p for p in PROVIDERS if colon and head == p), None)
        name = rest if provider is not None else text
        if provider is not None and not rest:
            raise ModelChoiceError(f"{text!r} names a provider and no model: write {head}:MODEL")
        problem = model_name_problem(name)
        if problem is not None:
            raise ModelChoiceError(problem)
        return cls(text, name, provider)

    def applied(self, provider: Provider, api: Api) -> tuple[Provider, Api]:
        """The provider and API a suite's model runs with under this choice."""
        chosen = self.provider or provider
        return chosen, api if chosen == "openai" else "chat"


def _agent(agent: Agent, choice: ModelChoice) -> Agent:
    if agent.provider == "":  # an agent program picks its own model: --model leaves it alone
        return agent
    provider, api = choice.applied(agent.provider, agent.api)
    return replace(agent, provider=provider, model=choice.name, api=api)


def _judge(judge: Judge, choice: ModelChoice) -> Judge:
    provider, api = choice.applied(judge.provider, judge.api)
    return replace(judge, provider=provider, model=choice.name, api=api)


def with_models(
    suites: Sequence[Suite], model: ModelChoice | None, judge: ModelChoice | None
) -> tuple[list[Suite], list[str]]:
    """The suites with their agent's model (``model``) and their judge's (``judge``, for suites that
    have a judge) replaced, and what each suite's parameters make impossible under the choice."""
    chosen: list[Suite] = []
    problems: list[str] = []
    for suite in suites:
        agent, judge_model = suite.agent, suite.judge
        if model is not None:
            agent = _agent(agent, model)
            problems += [
                f"--model {model.text}: suite {suite.name} ({suite.path}): agent.params.{name}: {message}"
                for name, message in provider_problems(agent.provider, agent.api, agent.params)
            ]
        if judge is not None and judge_model is not None:
            judge_model = _judge(judge_model, judge)
            params = ModelParams(reasoning_effort=judge_model.reasoning_effort)
            problems += [
                f"--judge-model {judge.text}: suite {suite.name} ({suite.path}): judge.{name}: {message}"
                for name, message in provider_problems(judge_model.provider, judge_model.api, params)
            ]
        chosen.append(replace(suite, agent=agent, judge=judge_model))
    return chosen, problems
