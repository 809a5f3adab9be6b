"""The store a viewer serves, in words for people: the backend and where it is, a PostgreSQL URL's password
masked (as `doctor` and `migrate` show it)."""

from __future__ import annotations


def store_label(service) -> str:
    """`SQLite <database file>` or `PostgreSQL <URL with its password masked>` for an opened `MemoryService`; ""
    for a service with no container (a test's stand-in for the pages that only read through the service)."""
    container = getattr(service, "container", None)
    if container is None:
        return ""
    url = container.config.database_url()
    if url:
        from memory_apps.database_url import mask_database_url

        return f"PostgreSQL {mask_database_url(url)}"
    return f"SQLite {container.store().path}"
