"""Several processes on ONE database: no lost update, no "database is locked", migrations applied once.

The stress test is deterministic: every worker derives its operations from a seeded plan, so the parent
computes the exact observation and recall counts the database must end with.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import random
import sqlite3
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memory_adapters.vectors.float32 import pack_vector
from memory_core.entries.hashing import content_hash
from tests._helpers import PYTHON, TIMEOUT_S, app_env, db_rows

pytestmark = pytest.mark.slow

CATEGORIES = ("anti-patterns", "heuristics", "patterns")
POOL = [
    f"Shared learning number {i}: keep every database write in one short transaction and retry when busy "
    f"(variant {i * 7919 % 1000})."
    for i in range(20)
]
POOL_IDS = [content_hash(text) for text in POOL]
WORKERS = 4
OPS_PER_WORKER = 200
REEMBED_DIMS = 4
SEED = 20240611
HUNG_S = 2 * TIMEOUT_S  # waits that only a hang outlasts: workers start, meet and finish in far less


def _draft(index: int, worker: int):
    from memory_core.entries.models import EntryDraft

    return EntryDraft(name=f"Shared learning {index}", description=POOL[index],
                      reasoning=f"Observed by worker {worker}.", category=CATEGORIES[index % 3], source="retro")


def _vector(worker: int, step: int) -> list[float]:
    return [float(worker), float(step), 0.5, -0.5]


def _staged_vector(index: int) -> list[float]:
    return [-1.0, float(index), 0.25, 0.75]


def plan(worker: int) -> list[tuple]:
    """The deterministic mix of writes one worker performs."""
    rng = random.Random(SEED + worker)
    ops: list[tuple] = []
    for step in range(OPS_PER_WORKER):
        roll = rng.random()
        if roll < 0.5:
            ops.append(("upsert", rng.randrange(len(POOL))))
        elif roll < 0.75:
            ops.append(("recall", tuple(rng.sample(range(len(POOL)), rng.randint(1, 3)))))
        elif roll < 0.9:
            ops.append(("vector", rng.randrange(len(POOL)), step))
        else:
            ops.append(("meta", step))
    return ops


def _apply(store, worker: int, op: tuple) -> None:
    now = datetime.now(timezone.utc)
    if op[0] == "upsert":
        store.upsert(_draft(op[1], worker), now)
    elif op[0] == "recall":
        store.record_recall([POOL_IDS[i] for i in op[1]], now)
    elif op[0] == "vector":
        store.set_vector(POOL_IDS[op[1]], _vector(worker, op[2]))
    else:
        store.set_metadata(f"stress:{worker}:{op[1]}", f"{worker}-{op[1]}")
        store.set_metadata("stress:last-writer", str(worker))


def stress_worker(db_path: str, worker: int, barrier, results) -> None:
    """Open an own store, wait for the others, then run this worker's plan; report every failure."""
    errors: list[str] = []
    done = 0
    try:
        from memory_adapters.store.sqlite.store import SqliteEntryStore

        store = SqliteEntryStore(db_path)
        barrier.wait(timeout=HUNG_S)
        for op in plan(worker):
            try:
                _apply(store, worker, op)
                done += 1
            except Exception as exc:  # noqa: BLE001 - every failed write is reported to the parent
                errors.append(f"{op}: {type(exc).__name__}: {exc}")
        store.close()
    except Exception as exc:  # noqa: BLE001
        errors.append(f"worker {worker} crashed: {type(exc).__name__}: {exc}")
    results.put((worker, done, errors))


def reembed_worker(db_path: str, barrier, results) -> None:
    """A re-embed running alongside the writers: stage a vector per entry, then swap the set in."""
    errors: list[str] = []
    promoted = False
    try:
        from memory_adapters.store.sqlite.store import SqliteEntryStore
        from memory_core.embedding.space import EmbeddingSpace

        store = SqliteEntryStore(db_path)
        space = EmbeddingSpace("stress", "stress-model", REEMBED_DIMS)
        barrier.wait(timeout=HUNG_S)
        store.start_staging(space)
        for index, entry_id in enumerate(POOL_IDS):
            store.set_staged_vector(entry_id, _staged_vector(index))
        promoted = store.promote_staged(space)
        store.close()
    except Exception as exc:  # noqa: BLE001
        errors.append(f"re-embed: {type(exc).__name__}: {exc}")
    results.put(("reembed", promoted, errors))


def _collect(processes, results, expected: int, timeout: float = HUNG_S) -> list:
    """Every worker's report; a worker that dies without reporting fails the test at once, not at the timeout."""
    reports: list = []
    deadline = time.monotonic() + timeout
    while len(reports) < expected and time.monotonic() < deadline:
        try:
            reports.append(results.get(timeout=0.5))
        except queue.Empty:
            if not any(process.is_alive() for process in processes):
                break
    for process in processes:
        process.join(timeout=max(deadline - time.monotonic(), 1))
        if process.is_alive():
            process.kill()
            process.join()
    assert [p.exitcode for p in processes] == [0] * len(processes), \
        {p.name: p.exitcode for p in processes}
    assert len(reports) == expected, f"only {len(reports)} of {expected} workers reported"
    return reports


def test_four_processes_times_two_hundred_mixed_writes_lose_nothing(tmp_path):
    db_path = str(tmp_path / "store" / "memory.db")
    from memory_adapters.store.sqlite.store import SqliteEntryStore

    # Seed the pool so recall updates always hit existing rows: each entry starts at observation_count 1.
    seed = SqliteEntryStore(db_path)
    for index in range(len(POOL)):
        seed.upsert(_draft(index, -1), datetime.now(timezone.utc))
    seed.close()

    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(WORKERS + 1)
    results = ctx.Queue()
    processes = [ctx.Process(target=stress_worker, args=(db_path, w, barrier, results), name=f"writer-{w}")
                 for w in range(WORKERS)]
    processes.append(ctx.Process(target=reembed_worker, args=(db_path, barrier, results), name="re-embed"))
    for process in processes:
        process.start()
    reports = _collect(processes, results, len(processes))

    failures = [error for report in reports for error in report[2]]
    assert failures == [], "failed writes:\n" + "\n".join(failures[:20])
    assert not any("locked" in error for error in failures)
    writes = {report[0]: report[1] for report in reports if report[0] != "reembed"}
    assert writes == {w: OPS_PER_WORKER for w in range(WORKERS)}
    assert [report[1] for report in reports if report[0] == "reembed"] == [True], "the re-embed swapped its set in"

    # Expected totals straight from the plans.
    observations = [1] * len(POOL)
    recalls = [0] * len(POOL)
    vectors: dict[int, set[bytes]] = {i: {pack_vector(_staged_vector(i))} for i in range(len(POOL))}
    meta: dict[str, str] = {}
    for worker in range(WORKERS):
        for op in plan(worker):
            if op[0] == "upsert":
                observations[op[1]] += 1
            elif op[0] == "recall":
                for index in op[1]:
                    recalls[index] += 1
            elif op[0] == "vector":
                vectors[op[1]].add(pack_vector(_vector(worker, op[2])))
            else:
                meta[f"stress:{worker}:{op[1]}"] = f"{worker}-{op[1]}"

    db = Path(db_path)
    assert db_rows(db, "PRAGMA integrity_check") == [("ok",)]
    rows = db_rows(db, "SELECT id, description, observation_count, recall_count, embedding FROM entries")
    assert len(rows) == len(POOL), "one row per description: the content-hash key stops duplicates"
    by_id = {row[0]: row for row in rows}
    assert set(by_id) == set(POOL_IDS)
    for index, entry_id in enumerate(POOL_IDS):
        _, description, obs, recall_count, embedding = by_id[entry_id]
        assert description == POOL[index]
        assert obs == observations[index], f"entry {index}: lost observation updates"
        assert recall_count == recalls[index], f"entry {index}: lost recall updates"
        assert embedding is not None and bytes(embedding) in vectors[index], f"entry {index}: torn vector"
    stored_meta = dict(db_rows(db, "SELECT key, value FROM _metadata WHERE key LIKE 'stress:%:%'"))
    assert stored_meta == meta
    assert db_rows(db, "SELECT value FROM _metadata WHERE key = 'embedding_provider'") == [("stress",)]
    assert db_rows(db, "SELECT COUNT(*) FROM staged_vectors") == [(0,)]
    # The full-text index still matches its content table.
    conn = sqlite3.connect(db_path)
    try:
        conn.execute("INSERT INTO entries_fts(entries_fts) VALUES ('integrity-check')")
        assert conn.execute("SELECT COUNT(*) FROM entries_fts WHERE entries_fts MATCH 'transaction'").fetchone() \
            == (len(POOL),)
    finally:
        conn.close()


# -- migrations: several processes opening a brand-new database together --------------------------------
ROUNDS = 6


def open_worker(db_paths: list[str], log_path: str, barrier, results) -> None:
    """For each new database: wait for the others, then open it; every applied migration is logged."""
    errors: list[str] = []
    versions: list[str] = []
    try:
        import memory_adapters.store.sqlite.schema as schema
        from memory_adapters.store.sqlite.store import SqliteEntryStore

        for number, migration in list(schema.MIGRATIONS.items()):
            def logged(conn, fts5, _migration=migration, _number=number):
                with open(log_path, "a", encoding="utf-8") as log:
                    log.write(f"{os.getpid()} {_number} {conn.execute('PRAGMA database_list').fetchone()[2]}\n")
                return _migration(conn, fts5)

            schema.MIGRATIONS[number] = logged
        for db_path in db_paths:
            barrier.wait(timeout=HUNG_S)
            try:
                store = SqliteEntryStore(db_path)
                versions.append(store.get_metadata("schema_version"))
                store.close()
            except Exception as exc:  # noqa: BLE001
                errors.append(f"{db_path}: {type(exc).__name__}: {exc}")
    except Exception as exc:  # noqa: BLE001
        errors.append(f"crashed: {type(exc).__name__}: {exc}")
    results.put((versions, errors))


def test_processes_opening_a_new_database_together_migrate_it_once(tmp_path):
    from memory_adapters.store.sqlite.schema import LATEST_VERSION, MIGRATIONS
    from memory_adapters.store.sqlite.store import SqliteEntryStore

    reference = SqliteEntryStore(str(tmp_path / "reference.db"))
    reference.close()
    expected_objects = sorted(db_rows(tmp_path / "reference.db", "SELECT type, name FROM sqlite_master"))

    db_paths = [str(tmp_path / f"round-{n}" / "memory.db") for n in range(ROUNDS)]
    log_path = str(tmp_path / "migrations.log")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    results = ctx.Queue()
    processes = [ctx.Process(target=open_worker, args=(db_paths, log_path, barrier, results), name=f"opener-{n}")
                 for n in range(4)]
    for process in processes:
        process.start()
    reports = _collect(processes, results, len(processes))

    errors = [error for _, errs in reports for error in errs]
    assert errors == [], "\n".join(errors)
    assert all(versions == [str(LATEST_VERSION)] * ROUNDS for versions, _ in reports)
    applied: dict[tuple[str, int], int] = {}
    for line in Path(log_path).read_text(encoding="utf-8").splitlines():
        _, number, path = line.split(" ", 2)
        key = (os.path.realpath(path), int(number))
        applied[key] = applied.get(key, 0) + 1
    for db_path in db_paths:
        for number in MIGRATIONS:
            assert applied.get((os.path.realpath(db_path), number)) == 1, \
                f"migration {number} of {db_path} ran {applied.get((os.path.realpath(db_path), number), 0)} times"
        objects = sorted(db_rows(Path(db_path), "SELECT type, name FROM sqlite_master"))
        assert objects == expected_objects, "each schema object exists exactly once"
        assert db_rows(Path(db_path), "SELECT value FROM _metadata WHERE key = 'schema_version'") \
            == [(str(LATEST_VERSION),)]
        assert db_rows(Path(db_path), "PRAGMA integrity_check") == [("ok",)]


# -- the real apps racing on one global store ---------------------------------------------------------------
BANK = {
    "patterns": "# Patterns\n\n### Pattern: Read before parsing\nRead real files before writing a parser.\n"
                "- Observation count: 2\n- Confidence: high\n",
    "anti-patterns": "# Anti-Patterns\n\n### Anti-Pattern: Silent fallbacks\nSwallowing database errors hides "
                     "data loss from the user.\n- Observation count: 1\n- Confidence: medium\n",
    "heuristics": "# Heuristics\n\n### Retry busy writers\nRetry a busy SQLite writer with jittered backoff.\n"
                  "- Observation count: 3\n- Confidence: high\n",
}


def test_writers_and_injectors_started_together_all_succeed(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "project"
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    for category, text in BANK.items():
        (bank / f"{category}.md").write_text(text, encoding="utf-8")
    store = tmp_path / "global-store"
    entries = [
        {"name": f"Race entry {n}", "description": f"Concurrent writer number {n} stores this learning about "
         f"short transactions ({n}).", "category": CATEGORIES[n], "reasoning": f"Race {n}."}
        for n in range(3)
    ]
    commands = [
        [PYTHON, "-m", "memory_apps.writer", "--action", "upsert", "--global-store", str(store),
         "--project-root", str(project), "--entry-json", json.dumps(entry)]
        for entry in entries
    ] + [
        [PYTHON, "-m", "memory_apps.injector", "--project-root", str(project), "--global-store", str(store),
         "--limit", "20"]
        for _ in range(2)
    ]
    processes = [subprocess.Popen(cmd, env=app_env(home), cwd=str(home), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for cmd in commands]
    outputs = [process.communicate(timeout=HUNG_S) for process in processes]

    for cmd, process, (out, err) in zip(commands, processes, outputs):
        label = cmd[2]
        assert process.returncode == 0, f"{label} exited {process.returncode}: {err}"
        assert "database is locked" not in err.lower(), f"{label}: {err}"
        assert "Traceback" not in err, f"{label}: {err}"
    for (out, _), entry in zip(outputs[:3], entries):
        assert out.strip() == f"Stored: {entry['name']} (id: {content_hash(entry['description'])})"
    for out, _ in outputs[3:]:
        assert out.startswith("## Engineering Memory"), out

    db = store / "memory.db"
    assert db_rows(db, "PRAGMA integrity_check") == [("ok",)]
    ids = {row[0] for row in db_rows(db, "SELECT id FROM entries")}
    assert {content_hash(e["description"]) for e in entries} <= ids
    assert len(ids) == 3 + len(BANK)
    assert db_rows(db, "SELECT COUNT(*) FROM entries WHERE observation_count != 1 AND source = 'retro'") == [(0,)]
    for entry in entries:
        marker = f"- Content-Hash: sha256:{content_hash(entry['description'])}"
        text = (store / f"{entry['category']}.md").read_text(encoding="utf-8")
        assert text.count(marker) == 1, "each entry dual-written once to the global markdown"
