"""The model edge: provider-neutral requests, replies and errors (``base``), the SDK adapters
(``make_provider`` imports an adapter module, and so its SDK, only on demand: ``validate`` never
imports one), the adaptive concurrency limiter and retries (``concurrency``), and an agent program's
traffic in its own API (``wire_requests``, ``wire_replies``, ``upstream_http``)."""

from __future__ import annotations

from collections.abc import Iterable

from gate.limits import REQUEST_TIMEOUT_SECONDS
from gate.providers.base import BudgetReached, ModelReply, ModelRequest, Provider, ProviderError

__all__ = [
    "base",
    "concurrency",
    "upstream_http",
    "wire_replies",
    "wire_requests",
    "BudgetReached",
    "ModelReply",
    "ModelRequest",
    "Provider",
    "ProviderError",
    "SDK_PACKAGES",
    "make_provider",
    "missing_sdks",
]


# The package each provider's adapter needs, and the extra of tool-eval-gate that installs it.
SDK_PACKAGES = {"openai": "openai", "anthropic": "anthropic"}


def missing_sdks(providers: Iterable[str]) -> list[str]:
    """The SDK packages that ``providers`` need and that are not installed (without importing them:
    ``validate`` and the pre-commit hook install tool-eval-gate without the SDKs)."""
    from importlib.util import find_spec

    needed = sorted({SDK_PACKAGES[p] for p in providers if p in SDK_PACKAGES})
    return [package for package in needed if find_spec(package) is None]


def make_provider(name: str, *, timeout: float = REQUEST_TIMEOUT_SECONDS) -> Provider:
    """The adapter for ``name`` ("openai" or "anthropic"). No SDK client is built until a request."""
    if name == "openai":
        from gate.providers.openai_provider import OpenAIProvider

        return OpenAIProvider(timeout=timeout)
    if name == "anthropic":
        from gate.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(timeout=timeout)
    raise ValueError(f"unknown provider {name!r}")
