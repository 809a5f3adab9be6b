"""The domain of iflow-memory: entries, scoring, selection, ports and use cases (stdlib + pydantic only)."""

__all__ = ["Category", "Confidence", "Entry", "Source", "content_hash"]


def __getattr__(name: str):
    """Everything loads on first use (the pydantic-typed aliases, the hash: hashlib ~2 ms, the entry record), so
    importing the core stays cheap (ADR 10)."""
    if name == "Entry":  # also lazy: a hook asking its warm process needs none of the domain
        from memory_core.entries.records import Entry

        return Entry
    if name == "content_hash":
        from memory_core.entries.hashing import content_hash

        return content_hash
    if name in ("Category", "Confidence", "Source"):
        from memory_core.entries import models

        return getattr(models, name)
    raise AttributeError(f"module 'memory_core' has no attribute {name!r}")
