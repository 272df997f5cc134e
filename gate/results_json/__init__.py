"""The JSON results file: its codec (``codec``: encode, schema-validated decode), its reading back
(``read_back``: bytes within their bounds to a document, a document to ``RunResults``) and the shards
of one run merged (``shard_merge``). Pure: reading and writing the file is ``gate.files``'s."""

__all__ = ["codec", "read_back", "shard_merge"]
