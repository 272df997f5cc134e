"""The checks of the build, each reporting at a ``file:line:column``: what the schema errors damage and
how they are worded, what validates but can never work, matcher specs no one can mean, state paths
and templates. Pure."""

__all__ = ["schema_damage", "schema_messages"]
