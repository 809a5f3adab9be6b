"""The error hierarchy every adapter translates its vendor errors into."""

from __future__ import annotations


class MemoryCoreError(Exception):
    """Base of every error iflow-memory raises on purpose."""


class InvalidEntry(MemoryCoreError):
    """An entry failed validation; `field` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class StorageError(MemoryCoreError):
    """The entry store could not be read or written."""


class DatabaseCorrupt(StorageError):
    """The database file exists but is not a usable SQLite database."""


class ForeignDatabase(DatabaseCorrupt):
    """The file is a sound SQLite database that holds another program's tables: moved aside, never migrated."""


class EmbeddingError(MemoryCoreError):
    """An embedding provider failed."""


class ProviderUnavailable(EmbeddingError):
    """The provider cannot be used now (not installed, no key, unreachable)."""


class RateLimited(EmbeddingError):
    """The provider answered HTTP 429; stop the batch and keep what was done.

    `partial` holds the vectors received before the limit hit (for the first texts of the call)."""

    def __init__(self, message: str = "rate limited", partial: "list[list[float]] | None" = None) -> None:
        super().__init__(message)
        self.partial = partial or []


class KeywordGenerationError(MemoryCoreError):
    """A keyword generation tier failed."""


class StoreNotFound(StorageError):
    """A read named a global store that does not exist; only a write creates one."""


def install_hint(extra: str) -> str:
    """The command that installs one optional extra: `pip install 'iflow-memory[gemini]'`."""
    return f"pip install 'iflow-memory[{extra}]'"
