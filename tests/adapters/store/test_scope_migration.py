"""The scope-by-authorship migration (issue 21, ADR 23; SQLite 11, PostgreSQL 4): rows stored before scopes
(`name:<project>`) and the writer's project entries become universal; a bank's imported rows keep their scope
until their project's next import re-decides them, which the migration asks for by clearing the import markers."""

from __future__ import annotations

import pytest

from memory_core.entries.models import EntryDraft
from tests.fakes import T0

ROWS = {  # description: (source, scope before)
    "Stored before scopes existed, for a project named app.": ("import", "name:app"),
    "The writer scoped this one to its source project.": ("retro", "git:" + "a" * 40),
    "A stranger's bank, imported into its repository's scope.": ("import", "git:" + "b" * 40),
    "Universal from the start.": ("retro", None),
}


def _fill(store) -> dict[str, str]:
    ids = {}
    for description, (source, scope) in ROWS.items():
        draft = EntryDraft(name="n", description=description, category="patterns", source=source, scope=scope)
        ids[description] = store.upsert(draft, T0).entry_id
    store.add_scope(ids["The writer scoped this one to its source project."], "path:/elsewhere")
    store.set_metadata("imported:/work/app", "2026-11-01T00:00:00Z")
    return ids


def _check(store, ids: dict[str, str]) -> None:
    scopes = {d: store.get(i).scope for d, i in ids.items()}
    assert scopes == {"Stored before scopes existed, for a project named app.": None,
                      "The writer scoped this one to its source project.": None,
                      "A stranger's bank, imported into its repository's scope.": "git:" + "b" * 40,
                      "Universal from the start.": None}
    assert store.get_metadata("imported:/work/app") is None, "every bank is imported, so re-decided, once more"
    assert {s.id for s in store.ranking_stats(["path:/nowhere"])} == set(ids.values()) - {
        ids["A stranger's bank, imported into its repository's scope."]}


def test_sqlite_migration_11_widens_stored_rows_and_re_decides_banks(tmp_path):
    import sqlite3

    from memory_adapters.store.sqlite.schema import LATEST_VERSION
    from memory_adapters.store.sqlite.store import SqliteEntryStore

    path = str(tmp_path / "memory.db")
    store = SqliteEntryStore(path)
    ids = _fill(store)
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE _metadata SET value = '10' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    reopened = SqliteEntryStore(path)
    try:
        _check(reopened, ids)
        assert reopened.get_metadata("schema_version") == str(LATEST_VERSION)
        assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM entry_scopes").fetchone() == (0,)
    finally:
        reopened.close()


@pytest.mark.slow
def test_postgres_migration_4_widens_stored_rows_and_re_decides_banks(postgres_url):
    from memory_adapters.store.postgres.schema import LATEST_VERSION
    from memory_adapters.store.postgres.store import PostgresEntryStore

    store = PostgresEntryStore(postgres_url)
    ids = _fill(store)
    store.connection.write("DELETE FROM schema_migrations WHERE version >= 4")  # later ones are idempotent
    store.close()
    reopened = PostgresEntryStore(postgres_url)
    try:
        _check(reopened, ids)
        assert reopened.connection.read("SELECT MAX(version) FROM schema_migrations")[0][0] == LATEST_VERSION
    finally:
        reopened.close()
