"""Domain-free helpers the whole package uses: escaping and shortening untrusted text, secret
redaction, statistics, optimal assignment, text normalisation, bounded regular expressions and a fast
JSON Schema check. Pure: no I/O, and nothing here knows what a suite is."""

__all__ = [
    "assignment",
    "bounded_regex",
    "escape",
    "globs",
    "json_types",
    "redact",
    "schema_check",
    "source_text",
    "stats",
    "strict_json",
    "text_normalization",
    "wording",
]
