"""Where the entries live: the SQLite file of the global store (the default) or a PostgreSQL server's URL.

The URL comes from `IFLOW_MEMORY_DATABASE_URL` (it wins) or the config key `memory_database_url`. A password is
taken only from the environment's URL or from libpq's own `PGPASSWORD` / `~/.pgpass`: a config file is committed
or shared, so a password written there is dropped (with a warning that does not repeat it). Every URL shown to a
person goes through `mask_database_url`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Optional

DATABASE_URL_ENV = "IFLOW_MEMORY_DATABASE_URL"
SCHEMES = ("postgresql", "postgres")


class DatabaseUrlError(ValueError):
    """A database URL this program cannot use; the message never holds the password."""


@dataclass(frozen=True)
class DatabaseChoice:
    """The chosen database: `url` None means the SQLite store; `origin` says where the URL came from."""

    url: Optional[str] = None
    origin: str = "default"

    @property
    def is_postgres(self) -> bool:
        """Whether entries live on a PostgreSQL server."""
        return self.url is not None

    def describe(self) -> str:
        """The URL with its password masked (or "SQLite"), for the diagnostic line and `doctor`."""
        return mask_database_url(self.url) if self.url else "SQLite"


def _split(url: str):
    from urllib.parse import urlsplit  # with ipaddress ~2 ms: not on the session start's SQLite path

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise DatabaseUrlError("the database URL cannot be parsed") from None
    if parts.scheme.lower() not in SCHEMES:
        raise DatabaseUrlError(f"the database URL must start with postgresql:// (got {parts.scheme or 'no'} scheme)")
    return parts


def check_database_url(url: str) -> None:
    """Raise DatabaseUrlError unless `url` is a PostgreSQL URL this program can use."""
    _split(url)


def configured_url(configured: str, environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The environment's URL, else the config file's, else None (unchecked: the store checks it when opened)."""
    environ = os.environ if environ is None else environ
    return environ.get(DATABASE_URL_ENV, "").strip() or configured or None


def mask_database_url(url: str) -> str:
    """The URL with any password (in the user part or as a query parameter) replaced by ***: the adapter's mask,
    so every message of the program shows a URL the same way."""
    from memory_adapters.store.postgres.connection import masked_url

    return masked_url(url)


def without_password(url: str) -> str:
    """The URL with the password (user part and `password=` parameter) removed."""
    from urllib.parse import parse_qsl, urlencode, urlunsplit

    parts = _split(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        netloc = f"{user.split(':', 1)[0]}@{host}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k.lower() != "password"])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def carries_password(url: str) -> bool:
    """Whether the URL holds a password."""
    from urllib.parse import parse_qsl

    parts = _split(url)
    return parts.password is not None or any(k.lower() == "password" for k, _ in parse_qsl(parts.query))


def choose_database(configured: str, environ: Optional[Mapping[str, str]] = None) -> DatabaseChoice:
    """The environment's URL, else the config file's (already stripped of any password), else SQLite;
    DatabaseUrlError for a URL that is not a PostgreSQL one."""
    url = configured_url(configured, environ)
    if url is None:
        return DatabaseChoice()
    check_database_url(url)
    return DatabaseChoice(url, "memory_database_url" if url == configured else DATABASE_URL_ENV)
