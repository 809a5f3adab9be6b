"""PostgreSQL under concurrent processes: reinforcing upserts and recalls lose no update, and processes that open
a new database together migrate it once."""

from __future__ import annotations

import multiprocessing

import psycopg

from memory_core.entries.models import EntryDraft
from tests.fakes import T0

PROCESSES = 4
ROUNDS = 40
SHARED = EntryDraft(name="Shared", description="Every process reinforces this learning", category="patterns")


def own(worker: int) -> EntryDraft:
    """The entry only this worker writes."""
    return EntryDraft(name="Own", description=f"Only worker {worker} writes this", category="heuristics")


def reinforce(url: str, worker: int, start) -> None:
    """One process: ROUNDS times, reinforce the shared entry and its own, and recall the shared one."""
    from memory_adapters.store.postgres.store import PostgresEntryStore

    store = PostgresEntryStore(url)
    start.wait()
    for _ in range(ROUNDS):
        store.upsert(SHARED, T0)
        store.upsert(own(worker), T0)
        store.record_recall([SHARED.entry_id], T0)
    store.close()


def open_store(url: str, start) -> None:
    """One process opening (and so migrating) the database as soon as all are ready."""
    from memory_adapters.store.postgres.store import PostgresEntryStore

    start.wait()
    PostgresEntryStore(url).close()


def run_together(target, args_of) -> None:
    """Run PROCESSES processes, `target(*args_of(n), start)`, released at once; each must exit cleanly."""
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(PROCESSES)
    workers = [context.Process(target=target, args=(*args_of(n), start)) for n in range(PROCESSES)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [w.exitcode for w in workers] == [0] * PROCESSES


def test_concurrent_reinforcement_loses_no_update(postgres_url, make_store):
    run_together(reinforce, lambda n: (postgres_url, n))
    store = make_store("postgres")
    shared = store.get(SHARED.entry_id)
    assert shared.observation_count == PROCESSES * ROUNDS
    assert shared.recall_count == PROCESSES * ROUNDS
    assert [store.get(own(n).entry_id).observation_count for n in range(PROCESSES)] == [ROUNDS] * PROCESSES
    assert store.count() == PROCESSES + 1


def test_processes_opening_a_new_database_together_migrate_it_once(postgres_server):
    url = postgres_server.new_database(migrated=False)
    try:
        run_together(open_store, lambda n: (url,))
        with psycopg.connect(url) as conn:
            versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
            entries = conn.execute("SELECT to_regclass('entries') IS NOT NULL").fetchone()[0]
        from memory_adapters.store.postgres.schema import LATEST_VERSION

        assert versions == list(range(1, LATEST_VERSION + 1)) and entries
    finally:
        postgres_server.drop_database(url)
