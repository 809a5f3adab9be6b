"""`iflow-memory migrate`: a store copied into PostgreSQL and back into SQLite keeps every field, vector, scope,
tombstone and `_metadata` value; a second run writes nothing; an interrupted run is finished by the next; a target
of another embedding space, or the source itself, is refused; a password never shows; the copy ranks as the
source does."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from memory_adapters.store.postgres.store import PostgresEntryStore
from memory_adapters.store.sqlite.store import SqliteEntryStore
from memory_core.errors import StorageError
from memory_core.entries.models import EntryDraft
from memory_core.anchors.anchor import Anchor
from memory_core.entries.records import CATEGORIES, SOURCES, HistoryEvent
from memory_core.embedding.space import EmbeddingSpace, space_metadata
from tests._helpers import (
    DEMO_PROJECT, PYTHON, SEMANTIC_ACTIVE, TIMEOUT_S, app_env, db_rows, diagnostic_line, entry_names, model_env,
    run_app, write_settings,
)

pytestmark = pytest.mark.slow

URL_ENV = "IFLOW_MEMORY_DATABASE_URL"
SECRET = "Migrate-Pa55word"
T0 = datetime(2024, 3, 1, 9, 30, tzinfo=timezone.utc)
SPACE = EmbeddingSpace("local", "test-model", 8)
STAGED = EmbeddingSpace("local", "next-model", 4)
INTERNAL = ("schema_version", "vectors_version", "database_id")


def fill(store, count: int) -> list[str]:
    """`count` entries using every field, recalled, with vectors (not the last two), an extra scope, a staged
    re-embed, a pinned space, an import marker and two tombstones (the last two entries, deleted)."""
    ids = []
    for n in range(count):
        draft = EntryDraft(
            name=f"Lesson {n} about parsers", description=f"Validate parser input number {n} before use.",
            reasoning=f"Incident {n}: a crash in production.", category=CATEGORIES[n % 3],
            keywords=[f"parser-{n}", "validation"], references=[f"src/parser_{n}.py"],
            confidence=("high", "medium", "low")[n % 3], source=SOURCES[n % 4],
            source_project="shop" if n % 2 else None, observation_count=1 + n % 5,
            scope="git:feedface" if n % 4 == 0 else None)
        ids.append(store.upsert(draft, T0 + timedelta(hours=n, seconds=n)).entry_id)
    store.record_recall(ids[::3], T0 + timedelta(days=3))
    store.record_recall(ids[::6], T0 + timedelta(days=4, minutes=7))
    rng = random.Random(7)
    store.set_vectors([(entry_id, [rng.uniform(-1, 1) for _ in range(SPACE.dimensions)]) for entry_id in ids[:-4]])
    for key, value in space_metadata(SPACE):
        store.set_metadata(key, value)
    store.add_scope(ids[0], "git:c0ffee")
    store.start_staging(STAGED)
    store.set_staged_vector(ids[1], [0.1, -0.2, 0.3, 1e-7])
    store.set_metadata("imported:/home/alice/shop", "2024-03-01T09:30:00Z")
    store.delete(ids[-1])
    store.delete(ids[-2])
    return ids[:-2]


def sqlite_source(path: Path, count: int = 14) -> list[str]:
    """An SQLite store at `path` filled by `fill`; returns the ids of its entries."""
    store = SqliteEntryStore(str(path))
    try:
        return fill(store, count)
    finally:
        store.close()


def sqlite_tables(path: Path) -> dict:
    """Every table a copy must carry, read straight from the file (not through the code under test)."""
    return {
        "entries": db_rows(path, 'SELECT id, name, description, reasoning, category, keywords, "references", '
                                 "observation_count, confidence, recall_count, last_recalled_at, created_at, "
                                 "updated_at, source, source_project, scope, embedding, COALESCE(anchors, '[]') "
                                 "FROM entries ORDER BY rowid"),
        "scopes": db_rows(path, "SELECT id, scope FROM entry_scopes ORDER BY id, scope"),
        "staged": db_rows(path, "SELECT id, vector FROM staged_vectors ORDER BY id"),
        "tombstones": db_rows(path, "SELECT id, deleted_at FROM deleted_entries ORDER BY id"),
        "metadata": db_rows(path, f"SELECT key, value FROM _metadata WHERE key NOT IN {INTERNAL} ORDER BY key"),
        "history": db_rows(path, "SELECT entry_id, action, at, actor, detail FROM entry_history ORDER BY seq"),
        "retired": db_rows(path, "SELECT * FROM retired_entries ORDER BY id"),
        "aliases": db_rows(path, "SELECT * FROM entry_aliases ORDER BY old_id"),
        "bank_blocks": db_rows(path, "SELECT * FROM bank_blocks ORDER BY bank, category, name"),
    }


def add_lives(path: Path, ids: list[str]) -> dict:
    """Anchors on one entry, one edited (its old id an alias), one retired, a merge event and a bank's blocks; returns
    {"edited": new id, "retired": its id}."""
    store = SqliteEntryStore(str(path))
    try:
        anchor = Anchor("src/parser_0.py:3", "b" * 40, "r" * 16, "git:feedface", "c" * 40)
        store.set_anchors(ids[0], [anchor], HistoryEvent(ids[0], "confirmed", T0, "alice via cli"))
        edit = EntryDraft(name="Lesson 2 about parsers", description="Validate parser input 2 before any use.",
                          category=CATEGORIES[2])
        edited = store.replace_text(ids[2], edit, HistoryEvent(edit.entry_id, "edited", T0 + timedelta(days=5),
                                                               "alice via cli", {"old_id": ids[2]})).id
        store.retire(ids[1], HistoryEvent(ids[1], "retired", T0 + timedelta(days=6), "alice via mcp",
                                          {"reason": "superseded"}), superseded_by=edited)
        store.record_event(HistoryEvent(ids[3], "merged", T0 + timedelta(days=7), "alice via writer",
                                        {"from": "Lesson 3, again"}))
        store.set_bank_blocks("git:feedface|patterns.md", {("patterns", "Lesson 3 about parsers"): ids[3]})
        return {"edited": edited, "retired": ids[1]}
    finally:
        store.close()


def migrate(home: Path, *args, env=None):
    """`iflow-memory migrate ARGS --json` in this process; (the process result, its JSON or None)."""
    done = run_app("memory_apps.cli", ["migrate", *map(str, args), "--json"], home, env=env)
    return done, json.loads(done.stdout) if done.returncode == 0 else None


def with_password(url: str) -> str:
    """The same database with a password in the URL (the test server trusts local sockets: it is not checked)."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, f"{parts.username or 'postgres'}:{SECRET}@{host}", parts.path, parts.query,
                       parts.fragment))


def test_sqlite_to_postgresql_to_sqlite_keeps_every_field_vector_scope_tombstone_and_the_space(
        tmp_path, isolated_home, postgres_url):
    source = tmp_path / "G" / "memory.db"
    ids = sqlite_source(source)
    there, report = migrate(isolated_home, "--global-store", source.parent, "--to", with_password(postgres_url),
                            "--source-user", "alice")
    assert there.returncode == 0, there.stderr
    assert report["entries"] == {"new": 12, "updated": 0, "unchanged": 0, "unreadable": 0}
    assert report["vectors"] == 10 and report["staged_vectors"] == 1 and report["tombstones"]["copied"] == 2
    assert SECRET not in there.stdout + there.stderr and ":***@" in report["target"]

    # The server answers like the file: every field, the exact float32 vectors, scopes, tombstones, metadata.
    sqlite, server = SqliteEntryStore(str(source)), PostgresEntryStore(postgres_url)
    try:
        assert server.all_entries() == sqlite.all_entries()
        assert dict(server.vectors()) == dict(sqlite.vectors())
        assert server.deleted_ids() == sqlite.deleted_ids()
        for key in ("embedding_provider", "embedding_model", "embedding_dimensions", "staged_embedding_model",
                    "imported:/home/alice/shop"):
            assert server.get_metadata(key) == sqlite.get_metadata(key) is not None
        assert {s.id for s in server.ranking_stats(["git:c0ffee"])} == {s.id for s in sqlite.ranking_stats(
            ["git:c0ffee"])} and ids[0] in {s.id for s in server.ranking_stats(["git:c0ffee"])}
        assert {server.source_user(entry_id) for entry_id in ids} == {"alice"}
    finally:
        sqlite.close()
        server.close()

    back = tmp_path / "back" / "memory.db"
    home, report = migrate(isolated_home, "--to", back, env={URL_ENV: postgres_url})
    assert home.returncode == 0, home.stderr
    assert report["entries"]["new"] == 12 and report["source_user"] is None
    assert sqlite_tables(back) == sqlite_tables(source)


def test_anchors_history_retired_entries_aliases_and_bank_blocks_go_there_and_back(
        tmp_path, isolated_home, postgres_url):
    source = tmp_path / "G" / "memory.db"
    ids = sqlite_source(source)
    lives = add_lives(source, ids)
    there, report = migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url)
    assert there.returncode == 0, there.stderr
    assert report["entries"]["new"] == 11 and report["lifecycle"] == {
        "history_events": 4, "retired": 1, "unretired": 0, "aliases": 1, "bank_files": 1}
    sqlite, server = SqliteEntryStore(str(source)), PostgresEntryStore(postgres_url)
    try:
        assert server.all_entries() == sqlite.all_entries() and server.get(ids[0]).anchors
        assert server.all_history() == sqlite.all_history() and len(server.history(lives["edited"])) == 1
        assert server.retired_entries() == sqlite.retired_entries() and server.get(lives["retired"]) is None
        assert server.resolve(ids[2]) == lives["edited"]
        assert server.bank_blocks("git:feedface|patterns.md") == {("patterns", "Lesson 3 about parsers"): ids[3]}
        assert server.import_entries([(EntryDraft(name="Lesson 1 about parsers", description="Validate parser "
                                                  "input number 1 before use.", category=CATEGORIES[1]), None)],
                                     T0)[0].status == "retired"
    finally:
        sqlite.close()
        server.close()
    again, report = migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url)
    assert report["changed"] is False and sum(report["lifecycle"].values()) == 0, again.stderr

    back = tmp_path / "back" / "memory.db"
    home, report = migrate(isolated_home, "--to", back, env={URL_ENV: postgres_url})
    assert home.returncode == 0, home.stderr
    assert sqlite_tables(back) == sqlite_tables(source)


def test_a_second_run_copies_nothing_and_says_so(tmp_path, isolated_home, postgres_url):
    source = tmp_path / "G" / "memory.db"
    sqlite_source(source)
    first, _ = migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url)
    assert first.returncode == 0, first.stderr
    again, report = migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url)
    assert again.returncode == 0, again.stderr
    assert report["changed"] is False and report["batches"] == 0
    assert report["entries"] == {"new": 0, "updated": 0, "unchanged": 12, "unreadable": 0}
    assert report["tombstones"] == {"copied": 0, "unchanged": 2} and report["metadata"]["copied"] == []
    said = run_app("memory_apps.cli", ["migrate", "--global-store", source.parent, "--to", postgres_url],
                   isolated_home)
    assert said.returncode == 0 and said.stdout.startswith("Nothing to copy:"), said.stdout + said.stderr
    assert "12 entries" in said.stdout

    # The same back into SQLite: the second run finds the file already holding everything.
    back = tmp_path / "back.db"
    for expected in (12, 0):
        done, report = migrate(isolated_home, "--to", back, env={URL_ENV: postgres_url})
        assert done.returncode == 0 and report["entries"]["new"] == expected, done.stderr


def test_a_changed_source_copies_only_what_changed(tmp_path, isolated_home, postgres_url):
    source = tmp_path / "G" / "memory.db"
    ids = sqlite_source(source)
    migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url)
    store = SqliteEntryStore(str(source))
    store.record_recall(ids[2:4], T0 + timedelta(days=9))
    expected = store.get_many(ids[2:4])
    store.close()
    done, report = migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url)
    assert report["entries"] == {"new": 0, "updated": 2, "unchanged": 10, "unreadable": 0}, done.stderr
    server = PostgresEntryStore(postgres_url)
    assert server.get_many(ids[2:4]) == expected and [e.recall_count for e in expected] == [1, 2]
    server.close()


def test_a_dry_run_says_what_it_would_copy_and_writes_nothing(tmp_path, isolated_home, postgres_url):
    source = tmp_path / "G" / "memory.db"
    sqlite_source(source)
    target = tmp_path / "new" / "memory.db"
    for where in (postgres_url, target):
        done, report = migrate(isolated_home, "--global-store", source.parent, "--to", where, "--dry-run")
        assert done.returncode == 0, done.stderr
        assert report["dry_run"] and report["entries"]["new"] == 12 and report["batches"] == 0
        assert "embedding_dimensions" in report["metadata"]["copied"]
    assert not target.parent.exists()
    server = PostgresEntryStore(postgres_url)
    assert server.count() == 0 and server.get_metadata("embedding_model") is None
    server.close()
    said = run_app("memory_apps.cli", ["migrate", "--global-store", source.parent, "--to", target, "--dry-run"],
                   isolated_home)
    assert said.stdout.startswith("Would copy (dry run, nothing written)") and "12 entries" in said.stdout


def test_a_run_that_fails_after_two_batches_is_finished_by_the_next(tmp_path, isolated_home, postgres_url,
                                                                    monkeypatch):
    from memory_adapters.store.copy.postgres_tables import PostgresCopyTables

    source = tmp_path / "G" / "memory.db"
    sqlite_source(source, count=32)  # 30 entries: 8 batches of 4
    real, calls = PostgresCopyTables.write_entries, []

    def failing(self, entries):
        if len(calls) == 2:
            raise StorageError("PostgreSQL at postgresql://…: server closed the connection unexpectedly")
        calls.append(len(entries))
        real(self, entries)

    monkeypatch.setattr(PostgresCopyTables, "write_entries", failing)
    cut, _ = migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url, "--batch-size", 4)
    assert cut.returncode == 2 and "database error" in cut.stderr and "Traceback" not in cut.stderr
    server = PostgresEntryStore(postgres_url)
    assert server.count() == 8 and server.get_metadata("embedding_model") is None  # two whole batches, no more
    server.close()

    monkeypatch.setattr(PostgresCopyTables, "write_entries", real)
    done, report = migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url, "--batch-size", 4)
    assert done.returncode == 0, done.stderr
    assert report["entries"] == {"new": 22, "updated": 0, "unchanged": 8, "unreadable": 0}
    assert report["tombstones"]["copied"] == 2 and report["batches"] == 6
    back = tmp_path / "back.db"
    migrate(isolated_home, "--to", back, env={URL_ENV: postgres_url})
    assert sqlite_tables(back) == sqlite_tables(source)


def test_a_killed_run_is_finished_by_the_next_with_exact_counts(tmp_path, isolated_home):
    source, target = tmp_path / "G" / "memory.db", tmp_path / "T" / "memory.db"
    sqlite_source(source, count=1502)  # 1,500 entries, one per transaction
    child = subprocess.Popen([PYTHON, "-m", "memory_apps.cli", "migrate", "--global-store", str(source.parent),
                              "--to", str(target), "--batch-size", "1"], env=app_env(isolated_home),
                             cwd=str(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    copied = 0
    try:
        deadline = time.monotonic() + TIMEOUT_S  # only against a hang: the run's end also ends the wait
        while copied < 50 and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
            copied = _count(target)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=TIMEOUT_S)
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    held = _count(target)
    assert 50 <= held < 1500
    done, report = migrate(isolated_home, "--global-store", source.parent, "--to", target)
    assert done.returncode == 0, done.stderr
    assert report["entries"] == {"new": 1500 - held, "updated": 0, "unchanged": held, "unreadable": 0}
    assert sqlite_tables(target) == sqlite_tables(source)


def _count(db: Path) -> int:
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as conn:
            return conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    except sqlite3.Error:
        return 0  # not created yet


def test_a_target_pinned_to_another_space_is_refused(tmp_path, isolated_home, postgres_url):
    source = tmp_path / "G" / "memory.db"
    sqlite_source(source)
    server = PostgresEntryStore(postgres_url)
    for key, value in space_metadata(EmbeddingSpace("openai", "text-embedding-3-small", 1536)):
        server.set_metadata(key, value)
    server.close()
    refused, _ = migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "openai/text-embedding-3-small/1536" in refused.stderr and "local/test-model/8" in refused.stderr
    server = PostgresEntryStore(postgres_url)
    assert server.count() == 0
    server.close()


def test_a_store_is_never_copied_into_itself(tmp_path, isolated_home, postgres_url):
    source = tmp_path / "G" / "memory.db"
    sqlite_source(source)
    same_file, _ = migrate(isolated_home, "--global-store", source.parent, "--to", source.parent)
    assert same_file.returncode == 1 and "the target is the source" in same_file.stderr
    migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url)
    same_server, _ = migrate(isolated_home, "--to", with_password(postgres_url),
                             env={URL_ENV: with_password(postgres_url)})
    assert same_server.returncode == 1 and "the target is the source" in same_server.stderr
    assert SECRET not in same_server.stderr


def test_between_servers_the_writer_of_each_entry_is_kept(tmp_path, isolated_home, postgres_url, postgres_server):
    source = tmp_path / "G" / "memory.db"
    ids = sqlite_source(source)
    migrate(isolated_home, "--global-store", source.parent, "--to", postgres_url, "--source-user", "bob")
    other = postgres_server.new_database()
    try:
        done, report = migrate(isolated_home, "--from", postgres_url, "--to", other, "--source-user", "carol")
        assert done.returncode == 0 and report["entries"]["new"] == 12, done.stderr
        copy = PostgresEntryStore(other)
        assert {copy.source_user(entry_id) for entry_id in ids} == {"bob"}
        assert copy.get_metadata("embedding_dimensions") == "8"
        copy.close()
    finally:
        postgres_server.drop_database(other)


def test_invalid_input_exits_1_and_names_the_problem(tmp_path, isolated_home):
    source = tmp_path / "G" / "memory.db"
    missing, _ = migrate(isolated_home, "--global-store", tmp_path / "nowhere", "--to", tmp_path / "t.db")
    assert missing.returncode == 1 and "no memory store at" in missing.stderr
    assert not (tmp_path / "nowhere").exists() and not (tmp_path / "t.db").exists()
    sqlite_source(source)
    other_kind, _ = migrate(isolated_home, "--global-store", source.parent, "--to", f"mysql://u:{SECRET}@db/x")
    assert other_kind.returncode == 1 and "postgresql://" in other_kind.stderr and SECRET not in other_kind.stderr
    batch, _ = migrate(isolated_home, "--global-store", source.parent, "--to", tmp_path / "t.db",
                       "--batch-size", 0)
    assert batch.returncode == 1 and "--batch-size" in batch.stderr
    no_target = run_app("memory_apps.cli", ["migrate", "--global-store", source.parent], isolated_home)
    assert no_target.returncode == 1 and "--to" in no_target.stderr


def test_a_new_path_becomes_a_private_store_directory_that_list_reads(tmp_path, isolated_home):
    source, target = tmp_path / "G" / "memory.db", tmp_path / "S"
    sqlite_source(source)

    done, report = migrate(isolated_home, "--global-store", source.parent, "--to", target)
    listed = run_app("memory_apps.cli", ["list", "--global-store", target, "--json"], isolated_home)

    assert done.returncode == 0, done.stderr
    assert target.is_dir() and (target.stat().st_mode & 0o777) == 0o700, "a store directory, not a bare file"
    assert report["target"] == str(target / "memory.db") and report["entries"]["new"] == 12
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)) == 12


def test_a_file_that_is_not_an_sqlite_database_is_refused_untouched(tmp_path, isolated_home):
    source, target = tmp_path / "G" / "memory.db", tmp_path / "notes.txt"
    sqlite_source(source)
    target.write_text("my notes\n", encoding="utf-8")

    refused, _ = migrate(isolated_home, "--global-store", source.parent, "--to", target)

    assert refused.returncode == 1 and "not an SQLite database" in refused.stderr, refused.stderr
    assert target.read_text(encoding="utf-8") == "my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["G", "home", "notes.txt"], "nothing moved aside or added"


def test_a_server_that_does_not_answer_exits_2_with_its_password_masked(tmp_path, isolated_home):
    source = tmp_path / "G" / "memory.db"
    sqlite_source(source)
    silent = f"postgresql://team:{SECRET}@/memory?host={tmp_path / 'no-server-here'}"
    failed, _ = migrate(isolated_home, "--global-store", source.parent, "--to", silent)
    assert failed.returncode == 2 and "database error" in failed.stderr and "Traceback" not in failed.stderr
    assert SECRET not in failed.stdout + failed.stderr


def test_the_help_shows_examples_what_is_copied_and_the_exit_statuses(isolated_home):
    shown = run_app("memory_apps.cli", ["migrate", "--help"], isolated_home)
    assert shown.returncode == 0 and "usage: iflow-memory migrate" in shown.stdout
    for words in ("examples:", "--to URL|PATH", "--dry-run", "--json", "--source-user", "--batch-size",
                  "tombstones", "Not copied", "query vectors", "exit status: 0 done", "2 database error"):
        assert words in shown.stdout, words
    listed = run_app("memory_apps.cli", ["--help"], isolated_home)
    assert "migrate" in listed.stdout


def test_the_copy_ranks_a_session_start_and_a_search_as_the_source_does(tmp_path, isolated_home, postgres_url):
    project = tmp_path / "demo-project"
    store = tmp_path / "G"
    import shutil

    shutil.copytree(DEMO_PROJECT, project)
    write_settings(project, embedding_provider="local")
    env = model_env(tmp_path)
    for command in (["import"], ["maintain"]):
        done = run_app("memory_apps.cli", [*command, "--project-root", project, "--global-store", store],
                       isolated_home, env=env)
        assert done.returncode == 0, done.stderr
    copied, report = migrate(isolated_home, "--global-store", store, "--to", postgres_url, env=env)
    assert copied.returncode == 0 and report["vectors"] == report["entries"]["new"] == 12, copied.stderr
    on_server = {**env, URL_ENV: postgres_url}
    # Each store is asked the same things in the same order (a search records recalls, which rank); the searches
    # list the weak matches too, so the orders compared are long enough to differ.
    for command in (["inject"], ["search", "parse untrusted input safely", "--json", "--all"],
                    ["search", "database migrations", "--json", "--all"]):
        args = [*command, "--project-root", project, "--global-store", store]
        answers = [run_app("memory_apps.cli", args, isolated_home, env=where) for where in (on_server, env)]
        for answer in answers:
            assert answer.returncode == 0, answer.stderr
        if command == ["inject"]:
            assert all(SEMANTIC_ACTIVE.search(diagnostic_line(a.stdout)) for a in answers), answers[0].stdout
            assert entry_names(answers[0].stdout) == entry_names(answers[1].stdout)
        else:
            # The order, not the scores: each backend scores keyword matches its own way (FTS5 bm25, ts_rank_cd).
            server, sqlite = ([hit["name"] for hit in json.loads(a.stdout)] for a in answers)
            assert server == sqlite and len(server) >= 3


def test_the_markdown_the_current_store_owes_is_written_before_its_entries_move(tmp_path, isolated_home,
                                                                                 postgres_url):
    store_dir = tmp_path / "G"
    store = SqliteEntryStore(str(store_dir / "memory.db"))
    try:
        store.queue_markdown(None)  # a writer killed after its commit, before its markdown: the outbox holds it
        store.upsert(EntryDraft(name="Quote CSV fields", description="Quote fields that hold delimiters.",
                                category="patterns"), T0)
    finally:
        store.close()
    assert not any(p.suffix == ".md" for p in store_dir.iterdir())
    moved, _ = migrate(isolated_home, "--global-store", store_dir, "--to", postgres_url)
    assert moved.returncode == 0, moved.stderr
    markdown = "".join(p.read_text(encoding="utf-8") for p in store_dir.glob("*.md"))
    assert "Quote CSV fields" in markdown
