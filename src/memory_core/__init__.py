"""The domain of iflow-memory: entries, scoring, selection, ports and use cases (stdlib + pydantic only)."""

from memory_core.hashing import content_hash
from memory_core.models import Category, Confidence, Entry, Source

__all__ = ["Category", "Confidence", "Entry", "Source", "content_hash"]
