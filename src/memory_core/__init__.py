"""The domain of iflow-memory: entries, scoring, selection, ports and use cases (stdlib + pydantic only)."""

from memory_core.entries.records import Entry

__all__ = ["Category", "Confidence", "Entry", "Source", "content_hash"]


def __getattr__(name: str):
    """The pydantic-typed aliases and the hash (hashlib: ~2 ms) load on first use, so importing the core stays
    cheap (ADR 10)."""
    if name == "content_hash":
        from memory_core.entries.hashing import content_hash

        return content_hash
    if name in ("Category", "Confidence", "Source"):
        from memory_core.entries import models

        return getattr(models, name)
    raise AttributeError(f"module 'memory_core' has no attribute {name!r}")
