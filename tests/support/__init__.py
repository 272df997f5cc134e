"""Test support: the scripted OpenAI/Anthropic-compatible model server (and other loopback fakes)."""
