"""Provider adapters. ``make_provider`` imports an adapter module (and so its SDK) only on demand."""

from __future__ import annotations

from gate.providers.base import BudgetReached, ModelReply, ModelRequest, Provider, ProviderError, ToolCall
from gate.providers.sdk_provider import DEFAULT_TIMEOUT

__all__ = [
    "BudgetReached",
    "ModelReply",
    "ModelRequest",
    "Provider",
    "ProviderError",
    "ToolCall",
    "make_provider",
]


def make_provider(name: str, *, timeout: float = DEFAULT_TIMEOUT) -> Provider:
    """The adapter for ``name`` ("openai" or "anthropic"). No SDK client is built until a request."""
    if name == "openai":
        from gate.providers.openai_provider import OpenAIProvider

        return OpenAIProvider(timeout=timeout)
    if name == "anthropic":
        from gate.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(timeout=timeout)
    raise ValueError(f"unknown provider {name!r}")
