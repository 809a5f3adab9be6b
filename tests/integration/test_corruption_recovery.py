"""Crash safety and corruption: a broken memory.db is detected, kept aside, served around and rebuilt.

A project with a 6-entry knowledge bank and a populated store (the injector imported the bank, then the writer
stored 2 more entries, which therefore exist only in the database and the dual-written markdown) is copied for
every scenario; the database is then truncated, overwritten with garbage or deleted.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import textwrap
import time
from pathlib import Path
from typing import Optional

import pytest

from memory_adapters.markdown_knowledge_bank import parse_file
from memory_core.hashing import content_hash
from tests.integration._helpers import (
    PYTHON, TIMEOUT_S, app_env, db_rows, diagnostic_line, entry_headers, run_in_process,
)

pytestmark = pytest.mark.slow

TITLE = "## Engineering Memory (from knowledge bank)"
CATEGORIES = ("anti-patterns", "heuristics", "patterns")
BANK = {
    "anti-patterns": """# Anti-Patterns

### Anti-Pattern: Parsing formats from memory
Writing a parser from an assumed format instead of reading real files.
- Observation count: 3
- Confidence: high

### Anti-Pattern: Swallowing database errors
Catching every database error and carrying on hides data loss until a user notices.
- Observation count: 1
- Confidence: medium
""",
    "heuristics": """# Heuristics

### Keep transactions short
A write transaction should cover one logical change; long ones block every other writer.
- Observation count: 2
- Confidence: high

### Prefer rename over rewrite
Write a temp file and rename it over the target so readers never see half a file.
- Observation count: 1
- Confidence: low
""",
    "patterns": """# Patterns

### Pattern: Round-trip fixtures
Keep a round-trip example for every file format the parser reads.
- Observation count: 4
- Confidence: high

### Pattern: Quarantine, never delete
Move a corrupt data file aside with a timestamp so nothing a user wrote is ever destroyed.
- Observation count: 2
- Confidence: medium
""",
}
WRITTEN = [
    {"name": "Bound the busy retries", "description": "Retry a busy SQLite write a few times with jittered "
     "backoff, then fail with a clear message.", "category": "heuristics",
     "reasoning": "Unbounded retries hung the hook."},
    {"name": "Rebuild from the audit trail", "description": "Every stored learning is also written to markdown so "
     "a lost database can be rebuilt from it.", "category": "patterns",
     "reasoning": "A corrupt file cost a week of notes."},
]
LATER = {"name": "Check the header first", "description": "Read the 100-byte SQLite header before trusting a "
         "database file.", "category": "patterns"}


def run_app(module: str, args, home: Path, stdin: Optional[str] = None) -> subprocess.CompletedProcess:
    env = app_env(home)
    env.pop("CLAUDE_PROJECT_DIR", None)  # the hook must take the project from the event
    return subprocess.run([PYTHON, "-m", module, *map(str, args)], env=env, cwd=str(home), input=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT_S)


def run_writer(entry: dict, project: Path, store: Path, home: Path) -> subprocess.CompletedProcess:
    """The retro writer, in-process; the session starts below run as the processes they are."""
    return run_in_process("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root",
                                                 project, "--entry-json", json.dumps(entry)], home,
                          env={"CLAUDE_PROJECT_DIR": None})


def run_injector(project: Path, store: Path, home: Path) -> subprocess.CompletedProcess:
    return run_app("memory_apps.injector", ["--project-root", project, "--global-store", store, "--limit", "20"],
                   home)


def run_hook(project: Path, store: Path, home: Path) -> subprocess.CompletedProcess:
    return run_app("memory_apps.cli", ["hook", "session-start", "--global-store", store], home,
                   stdin=json.dumps({"source": "startup", "cwd": str(project)}))


def markdown_files(case: Path) -> dict[str, bytes]:
    files = sorted((case / "proj" / "docs" / "knowledge-bank").glob("*.md")) + sorted((case / "G").glob("*.md"))
    return {str(f.relative_to(case)): f.read_bytes() for f in files}


def markdown_ids(case: Path) -> set[str]:
    ids = set()
    for directory in (case / "proj" / "docs" / "knowledge-bank", case / "G"):
        for category in CATEGORIES:
            path = directory / f"{category}.md"
            if path.exists():
                ids |= {content_hash(e.description) for e in parse_file(str(path), category, "local")}
    return ids


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """home/, proj/ (6-entry bank) and G/ (memory.db with 8 entries) after one injection and two writes."""
    root = tmp_path_factory.mktemp("corruption-template")
    (root / "home").mkdir()
    bank = root / "proj" / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    for category, text in BANK.items():
        (bank / f"{category}.md").write_text(text, encoding="utf-8")
    # Corruption handling does not depend on vectors; no model load keeps each of the many runs short.
    (root / "proj" / ".claude").mkdir()
    (root / "proj" / ".claude" / "iflow-dev.local.md").write_text("memory_embedding_provider: none\n",
                                                                  encoding="utf-8")
    home, project, store = root / "home", root / "proj", root / "G"
    first = run_injector(project, store, home)
    assert first.returncode == 0 and first.stdout.startswith(TITLE), first.stderr
    for entry in WRITTEN:
        result = run_writer(entry, project, store, home)
        assert result.returncode == 0, result.stderr
    ids = {row[0] for row in db_rows(store / "memory.db", "SELECT id FROM entries")}
    assert len(ids) == 8 and ids == markdown_ids(root)
    # Fold the WAL into the main file, so corrupting memory.db corrupts the whole database.
    conn = sqlite3.connect(str(store / "memory.db"))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return root


def _corrupt(db: Path, mode: str) -> Optional[bytes]:
    """Break the database; returns the bytes left in its place (None when deleted)."""
    for suffix in ("-wal", "-shm"):
        assert not Path(str(db) + suffix).exists(), "the template store was closed cleanly"
    if mode == "truncate":
        data = db.read_bytes()
        data = data[: len(data) // 2]
    elif mode == "garbage":
        data = random.Random(11).randbytes(db.stat().st_size)
    else:
        db.unlink()
        return None
    db.write_bytes(data)
    return data


def _check_block(block: str, expect_fallback: bool, entries: int) -> None:
    assert block.startswith(TITLE + "\n\n"), block[:200]
    assert block.endswith("---\n")
    diagnostic = diagnostic_line(block)
    assert diagnostic.startswith("*Memory:"), diagnostic
    if expect_fallback:
        assert "semantic: fallback (database corrupt" in diagnostic, diagnostic
    else:
        assert "semantic: fallback" not in diagnostic, diagnostic
    assert len(entry_headers(block)) == entries, "every entry of the knowledge bank and the audit trail is served"


def _run_reader(kind: str, project: Path, store: Path, home: Path, expect_fallback: bool, entries: int = 8) -> None:
    if kind == "injector":
        result = run_injector(project, store, home)
        block = result.stdout
    else:
        result = run_hook(project, store, home)
        answer = json.loads(result.stdout)
        assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        block = answer["hookSpecificOutput"]["additionalContext"]
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    _check_block(block, expect_fallback, entries)


SCENARIOS = [
    ("truncate", "injector"), ("truncate", "hook"), ("truncate", "writer"),
    ("garbage", "injector"), ("garbage", "hook"), ("garbage", "writer"),
    ("delete", "injector"), ("delete", "hook"),
]


@pytest.mark.parametrize("mode,first", SCENARIOS, ids=[f"{m}-{f}-first" for m, f in SCENARIOS])
def test_broken_database_is_kept_aside_served_around_and_rebuilt(tmp_path, template, mode, first):
    case = tmp_path / "case"
    shutil.copytree(template, case)
    home, project, store = case / "home", case / "proj", case / "G"
    db = store / "memory.db"
    left = _corrupt(db, mode)
    markdown_before = markdown_files(case)
    corrupt = left is not None

    if first == "writer":
        written = run_writer(LATER, project, store, home)
        assert written.returncode == 0, written.stderr
        assert "Traceback" not in written.stderr, written.stderr
        _run_reader("injector", project, store, home, expect_fallback=False, entries=9)
        _run_reader("hook", project, store, home, expect_fallback=False, entries=9)
    else:
        # The first reader meets the broken file: the markdown pipeline serves the session meanwhile.
        _run_reader(first, project, store, home, expect_fallback=corrupt)
        _run_reader("hook" if first == "injector" else "injector", project, store, home, expect_fallback=False)
        assert markdown_files(case) == markdown_before, "reading sessions never touch the markdown"
        written = run_writer(LATER, project, store, home)
        assert written.returncode == 0, written.stderr
        assert "Traceback" not in written.stderr, written.stderr

    moved = sorted(store.glob("memory.db.corrupt-*"))
    if corrupt:
        assert len(moved) == 1, "a corrupt database is moved aside exactly once"
        assert moved[0].read_bytes() == left, "the corrupt file is kept byte for byte, never deleted"
    else:
        assert moved == []
    # The writer dual-wrote its entry; every markdown entry (the 2 earlier writes included) is in the database.
    after = markdown_files(case)
    assert set(after) == set(markdown_before)
    expected = markdown_ids(case)
    assert content_hash(LATER["description"]) in expected
    assert {content_hash(e["description"]) for e in WRITTEN} <= expected
    assert len(expected) == 9
    ids = {row[0] for row in db_rows(db, "SELECT id FROM entries")}
    assert ids == expected, "the rebuilt database holds exactly the markdown's entries, keyed by content hash"
    assert db_rows(db, "PRAGMA integrity_check") == [("ok",)]


# -- a writer killed mid-write ---------------------------------------------------------------------------------
KILLED_WRITER = textwrap.dedent("""
    import sys
    from datetime import datetime, timezone
    from memory_adapters.sqlite_store import SqliteEntryStore
    from memory_core.models import EntryDraft

    store = SqliteEntryStore(sys.argv[1])
    drafts = [EntryDraft(name=f"Loop entry {i}", description=f"Loop entry number {i}: " + "filler text " * 200,
                         reasoning="r" * 4000, category="patterns", source="retro") for i in range(10)]
    print("ready", flush=True)
    n = 0
    while True:
        store.upsert(drafts[n % 10], datetime.now(timezone.utc))
        store.record_recall([drafts[n % 10].entry_id], datetime.now(timezone.utc))
        n += 1
        print(n, flush=True)
""")


def test_process_killed_mid_write_leaves_a_consistent_database(tmp_path):
    db = tmp_path / "store" / "memory.db"
    script = tmp_path / "loop.py"
    script.write_text(KILLED_WRITER, encoding="utf-8")
    process = subprocess.Popen([PYTHON, str(script), str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=app_env(tmp_path))
    try:
        assert process.stdout.readline().strip() == "ready", process.stderr.read()
        time.sleep(0.5)
    finally:
        process.send_signal(signal.SIGKILL)
        out, err = process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL
    committed = [int(line) for line in out.split() if line.isdigit()]
    assert committed, f"the loop committed nothing before the kill: {err}"
    last = committed[-1]

    conn = sqlite3.connect(str(db))  # a normal open replays or discards the WAL
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        conn.execute("INSERT INTO entries_fts(entries_fts) VALUES ('integrity-check')")
        observations, recalls, rows = conn.execute(
            "SELECT SUM(observation_count), SUM(recall_count), COUNT(*) FROM entries").fetchone()
    finally:
        conn.close()
    # Each loop iteration is one upsert then one recall, each its own transaction: the database holds every
    # iteration reported as done, plus at most the parts of the next one that committed before the kill.
    assert last <= observations <= last + 1
    assert observations - 1 <= recalls <= observations
    assert rows == min(observations, 10)

    from memory_adapters.sqlite_store import SqliteEntryStore

    store = SqliteEntryStore(str(db), full_check=True)
    try:
        assert db_rows(db, "PRAGMA integrity_check") == [("ok",)]
        assert store.count() == rows == len(store.all_entries())
        assert sum(e.observation_count for e in store.all_entries()) == observations
    finally:
        store.close()


# -- no space left, read-only and unusable store paths -----------------------------------------------------------
def _drafts(n: int):
    from memory_core.models import EntryDraft

    return [EntryDraft(name=f"Kept {i}", description=f"Entry {i} stored before the disk filled up.",
                       category=CATEGORIES[i % 3]) for i in range(n)]


def test_full_disk_raises_a_clear_storage_error_and_keeps_earlier_entries(tmp_path):
    from datetime import datetime, timezone

    from memory_adapters.sqlite_store import SqliteEntryStore
    from memory_core.errors import StorageError
    from memory_core.models import EntryDraft

    path = str(tmp_path / "store" / "memory.db")
    store = SqliteEntryStore(path)
    now = datetime.now(timezone.utc)
    kept = _drafts(5)
    for draft in kept:
        store.upsert(draft, now)
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count={pages}")  # SQLITE_FULL on the next page the file needs
    big = EntryDraft(name="Too big", description="a long description " * 1000, reasoning="why " * 4000,
                     category="patterns")

    with pytest.raises(StorageError) as raised:
        store.upsert(big, now)

    assert "disk is full" in str(raised.value)
    assert "Traceback" not in str(raised.value)
    assert store.count() == 5
    assert [store.get(d.entry_id).name for d in kept] == [d.name for d in kept]
    assert store.get(big.entry_id) is None
    store.close()
    reopened = SqliteEntryStore(path, full_check=True)
    assert db_rows(Path(path), "PRAGMA integrity_check") == [("ok",)] and reopened.count() == 5
    reopened.close()


def _writer_in_process(args: list[str], capsys) -> tuple[int, str, str]:
    from memory_apps import writer

    try:
        code = writer.main(args)
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _project_with_settings(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "iflow-dev.local.md").write_text(
        "memory_embedding_provider: none\nmemory_keyword_provider: local\n", encoding="utf-8")
    return project


def _entry_args(store: Path, project: Path, entry: dict) -> list[str]:
    return ["--action", "upsert", "--global-store", str(store), "--project-root", str(project),
            "--entry-json", json.dumps(entry)]


def _simulate_on_every_connection(monkeypatch, pragma_for) -> None:
    """Run one extra PRAGMA on each connection the store opens (how a test makes SQLite full or read-only)."""
    from memory_adapters.sqlite_store import SqliteEntryStore

    original = SqliteEntryStore._configure

    def configure(self) -> None:
        original(self)
        self._conn.execute(pragma_for(self._conn))

    monkeypatch.setattr(SqliteEntryStore, "_configure", configure)


def _stored(store: Path) -> list[tuple]:
    return db_rows(store / "memory.db", "SELECT id, name, observation_count FROM entries ORDER BY id")


def test_writer_on_a_full_disk_exits_2_and_loses_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    project = _project_with_settings(tmp_path)
    store = tmp_path / "G"
    for n in range(3):
        code, _, err = _writer_in_process(_entry_args(store, project, {
            "name": f"Earlier {n}", "description": f"Earlier learning {n} about full disks.", "category": "patterns"}),
            capsys)
        assert code == 0, err
    before = _stored(store)
    markdown_before = (store / "patterns.md").read_bytes()
    _simulate_on_every_connection(
        monkeypatch, lambda conn: f"PRAGMA max_page_count={conn.execute('PRAGMA page_count').fetchone()[0]}")

    code, out, err = _writer_in_process(_entry_args(store, project, {
        "name": "Huge", "description": "x" * 19_000, "reasoning": "y " * 9_000, "category": "patterns"}), capsys)

    assert code == 2, (out, err)
    assert "disk is full" in err, err
    assert out == ""
    assert "Traceback" not in err
    monkeypatch.undo()
    assert _stored(store) == before
    assert (store / "patterns.md").read_bytes() == markdown_before


def test_writer_on_a_read_only_store_exits_2_and_loses_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    project = _project_with_settings(tmp_path)
    store = tmp_path / "G"
    code, _, err = _writer_in_process(_entry_args(store, project, {
        "name": "Earlier", "description": "Stored before the directory became read-only.", "category": "patterns"}),
        capsys)
    assert code == 0, err
    before = _stored(store)
    entry = {"name": "Refused", "description": "This write meets a read-only store.", "category": "patterns"}
    if os.geteuid() != 0:
        # A real read-only directory and file.
        os.chmod(store / "memory.db", 0o400)
        os.chmod(store, 0o500)
        try:
            result = run_app("memory_apps.writer", _entry_args(store, project, entry), tmp_path)
        finally:
            os.chmod(store, 0o700)
            os.chmod(store / "memory.db", 0o600)
        code, out, err = result.returncode, result.stdout, result.stderr
    else:
        # chmod does not stop root: make SQLite itself refuse writes (what a read-only file gives).
        _simulate_on_every_connection(monkeypatch, lambda conn: "PRAGMA query_only=ON")
        code, out, err = _writer_in_process(_entry_args(store, project, entry), capsys)
        monkeypatch.undo()

    assert code == 2, (out, err)
    assert "read-only" in err or "readonly" in err, err
    assert "Traceback" not in err
    assert out == ""
    assert _stored(store) == before, "nothing already stored is lost"


def test_unusable_store_path_exits_2_with_the_reason(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a regular file\n", encoding="utf-8")
    project = tmp_path / "proj"
    project.mkdir()

    result = run_writer(LATER, project, blocker / "store", home)

    assert result.returncode == 2, result.stderr
    assert "Not a directory" in result.stderr, result.stderr
    assert "moved it to" not in result.stderr, "a path that cannot be opened is not a corrupt database"
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert blocker.read_text(encoding="utf-8") == "a regular file\n"
