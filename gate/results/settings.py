"""What a run records about how it ran (``RunResults.settings``): the gate policy it was asked for,
the prices used, the requests, cost and cache answers, and with ``--baseline auto`` what the base
side did. Typed here once; the results file keeps the keys it always had (``to_dict`` /
``from_dict``), and reads those that older files wrote (``errors_count``, ``any-failure``).

A field that is None was not recorded (results built by hand, a base side's own results): it is
not written back either, so a file re-rendered by this version keeps its keys. Keys this version
does not model are kept in ``extra`` and written back as they were read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from gate.util.json_types import JsonObject, JsonValue

FailOn = Literal["threshold", "regression", "regression_or_threshold", "any_failure"]
FAIL_ON_VALUES: tuple[FailOn, ...] = get_args(FailOn)
ErrorsPolicy = Literal["count", "ignore"]  # whether cases that could not be evaluated count


def _number(value: object) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _rate(value: object) -> float | None:
    """A share from 0 to 1 (None: not one)."""
    number = _number(value)
    return number if number is not None and 0 <= number <= 1 else None


def _text(value: object) -> str | None:
    return str(value) if value else None


def _texts(value: object) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass(frozen=True)
class CacheCounts:
    """How many answers the response cache gave (``hits``) and did not have (``misses``)."""

    hits: int = 0
    misses: int = 0

    @classmethod
    def from_dict(cls, data: object) -> CacheCounts | None:
        if not isinstance(data, Mapping):
            return None
        return cls(_count(data.get("hits")), _count(data.get("misses")))

    def to_dict(self) -> JsonObject:
        return {"hits": self.hits, "misses": self.misses}


@dataclass(frozen=True)
class PriceRecord:
    """The price a model's cost was estimated with, in USD per million tokens, and where it came from
    (``input`` None: no price was known); ``answered_for``: the model asked for, when another model
    of that server answered."""

    source: str
    input: float | None = None
    output: float | None = None
    cached_input: float | None = None
    answered_for: str | None = None

    @property
    def known(self) -> bool:
        return self.input is not None

    @classmethod
    def from_dict(cls, data: object) -> PriceRecord:
        if not isinstance(data, Mapping):
            return cls(source="")
        return cls(
            source=str(data.get("source", "")),
            input=_number(data.get("input")),
            output=_number(data.get("output")),
            cached_input=_number(data.get("cached_input")),
            answered_for=str(data["answered_for"]) if data.get("answered_for") else None,
        )

    def to_dict(self) -> JsonObject:
        price: JsonObject = {"source": self.source}
        if self.known:
            price.update(input=self.input, output=self.output, cached_input=self.cached_input)
        return {**price, **({"answered_for": self.answered_for} if self.answered_for else {})}


@dataclass(frozen=True)
class BaseSideRecord:
    """What the base side of ``--baseline auto`` was and did: the ref and its merge base, the lines the
    PR changed, the suites new in the PR, and the base side's requests, cost and cache answers."""

    ref: str = ""
    merge_base: str = ""
    changed_lines: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    suites_without_base: tuple[str, ...] = ()
    # Of those, the suites the merge base holds whose base side could not be set up (the suite did not
    # load there, its MCP server did not start): their regressions cannot be told.
    suites_base_failed: tuple[str, ...] = ()
    requests: int = 0
    estimated_cost_usd: float = 0.0
    cache: CacheCounts | None = None

    @classmethod
    def from_dict(cls, data: object) -> BaseSideRecord | None:
        if not isinstance(data, Mapping):
            return None
        lines = data.get("changed_lines")
        without = data.get("suites_without_base")
        failed = data.get("suites_base_failed")
        return cls(
            ref=str(data.get("ref", "")),
            merge_base=str(data.get("merge_base", "")),
            changed_lines={
                str(path): tuple(n for n in numbers if isinstance(n, int))
                for path, numbers in (lines.items() if isinstance(lines, Mapping) else ())
                if isinstance(numbers, (list, tuple))
            },
            suites_without_base=tuple(str(s) for s in without) if isinstance(without, list) else (),
            suites_base_failed=tuple(str(s) for s in failed) if isinstance(failed, list) else (),
            requests=_count(data.get("requests")),
            estimated_cost_usd=_number(data.get("estimated_cost_usd")) or 0.0,
            cache=CacheCounts.from_dict(data.get("cache")),
        )

    def to_dict(self) -> JsonObject:
        return {
            "mode": "auto",
            "ref": self.ref,
            "merge_base": self.merge_base,
            "changed_lines": {path: list(lines) for path, lines in self.changed_lines.items()},
            "suites_without_base": list(self.suites_without_base),
            **({"suites_base_failed": list(self.suites_base_failed)} if self.suites_base_failed else {}),
            "requests": self.requests,
            "estimated_cost_usd": self.estimated_cost_usd,
            **({"cache": self.cache.to_dict()} if self.cache is not None else {}),
        }


@dataclass(frozen=True)
class MadeFor:
    """The commit and the CI run the results were made for (``gate.trust.made_for``): what a job that
    merges or publishes results checks before it renders them. ``commit``: the commit the run's event
    is about when the checkout holds it (a pull request's head, also under its merge ref), else the
    checkout's HEAD ("" outside git); ``run``: the GitHub Actions run (``GITHUB_RUN_ID``, "" outside)."""

    commit: str = ""
    run: str = ""

    @classmethod
    def from_dict(cls, data: object) -> MadeFor | None:
        if not isinstance(data, Mapping):
            return None
        return cls(str(data.get("commit") or ""), str(data.get("run") or ""))

    def to_dict(self) -> JsonObject:
        return {"commit": self.commit, "run": self.run}


def _errors(data: Mapping[str, Any]) -> ErrorsPolicy | None:
    """``errors`` ("count" | "ignore"), or the boolean ``errors_count`` older files wrote."""
    value = data.get("errors", data.get("errors_count"))
    if isinstance(value, bool):
        return "count" if value else "ignore"
    if value in ("count", "ignore"):
        return "count" if value == "count" else "ignore"
    return None


def _fail_on(value: object) -> FailOn | None:
    """A ``fail_on`` rule, also in the CLI's spelling (``any-failure``); None when unknown."""
    text = str(value).replace("-", "_")
    return next((rule for rule in FAIL_ON_VALUES if rule == text), None)


_KEYS = (
    "errors",
    "errors_count",
    "max_error_rate",
    "fail_on",
    "threshold",
    "changed_since",
    "model",
    "judge_model",
    "trials",
    "trials_policy",
    "cases",
    "tags",
    "prices",
    "requests",
    "estimated_cost_usd",
    "cost_incomplete",
    "cache",
    "baseline",
    "made_for",
)


@dataclass(frozen=True)
class RunSettings:
    """How a run ran (see the module doc); None: not recorded."""

    errors: ErrorsPolicy | None = None
    max_error_rate: float | None = None  # the error budget (gate.verdict.policy)
    fail_on: FailOn | None = None
    threshold: float | None = None  # overrides every suite's threshold
    changed_since: str | None = None
    model: str | None = None  # --model: every suite ran this model instead of its own
    judge_model: str | None = None  # --judge-model: every judged check asked this model
    trials: int | None = None  # --trials: every case ran this many trials instead of its own
    trials_policy: str | None = None  # --trials-policy: curtailed or full
    cases: tuple[str, ...] = ()  # --case: the case ids the run was limited to
    tags: tuple[str, ...] = ()  # --tag: the tags the run was limited to
    prices: Mapping[str, PriceRecord] | None = None  # "provider/model" -> its price
    requests: int | None = None  # model requests sent (cache hits are free)
    estimated_cost_usd: float | None = None
    cost_incomplete: bool = False  # some model had no known price
    cache: CacheCounts | None = None
    baseline: BaseSideRecord | None = None  # --baseline auto: the base side
    made_for: MadeFor | None = None  # the commit and CI run the results were made for
    extra: Mapping[str, JsonValue] = field(default_factory=dict)

    def counted(self, *, requests: int, estimated_cost_usd: float, cost_incomplete: bool) -> RunSettings:
        """These settings with what the run spent recorded (what was recorded already stays)."""
        return replace(
            self,
            requests=self.requests if self.requests is not None else requests,
            estimated_cost_usd=(
                self.estimated_cost_usd if self.estimated_cost_usd is not None else estimated_cost_usd
            ),
            cost_incomplete=self.cost_incomplete or cost_incomplete,
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunSettings:
        prices = data.get("prices")
        return cls(
            errors=_errors(data),
            max_error_rate=_rate(data.get("max_error_rate")),
            fail_on=_fail_on(data["fail_on"]) if "fail_on" in data else None,
            threshold=_number(data.get("threshold")),
            changed_since=_text(data.get("changed_since")),
            model=_text(data.get("model")),
            judge_model=_text(data.get("judge_model")),
            trials=_count(data["trials"]) if "trials" in data else None,
            trials_policy=_text(data.get("trials_policy")),
            cases=_texts(data.get("cases")),
            tags=_texts(data.get("tags")),
            prices=(
                {str(name): PriceRecord.from_dict(price) for name, price in prices.items()}
                if isinstance(prices, Mapping)
                else None
            ),
            requests=_count(data["requests"]) if "requests" in data else None,
            estimated_cost_usd=_number(data.get("estimated_cost_usd")),
            cost_incomplete=data.get("cost_incomplete") is True,
            cache=CacheCounts.from_dict(data.get("cache")),
            baseline=BaseSideRecord.from_dict(data.get("baseline")),
            made_for=MadeFor.from_dict(data.get("made_for")),
            extra={key: value for key, value in data.items() if key not in _KEYS},
        )

    def to_dict(self) -> JsonObject:
        """The ``settings`` object of the results file: the recorded fields under the keys they always
        had, then the keys this version does not model."""
        recorded: dict[str, object] = {
            "errors": self.errors,
            "max_error_rate": self.max_error_rate,
            "fail_on": self.fail_on,
            "threshold": self.threshold,
            "changed_since": self.changed_since,
            "model": self.model,
            "judge_model": self.judge_model,
            "trials": self.trials,
            "trials_policy": self.trials_policy,
            "cases": list(self.cases) or None,
            "tags": list(self.tags) or None,
            "prices": (
                {name: price.to_dict() for name, price in self.prices.items()}
                if self.prices is not None
                else None
            ),
            "requests": self.requests,
            "estimated_cost_usd": self.estimated_cost_usd,
            "cost_incomplete": True if self.cost_incomplete else None,
            "cache": self.cache.to_dict() if self.cache is not None else None,
            "baseline": self.baseline.to_dict() if self.baseline is not None else None,
            "made_for": self.made_for.to_dict() if self.made_for is not None else None,
        }
        return {**{k: v for k, v in recorded.items() if v is not None}, **self.extra}
