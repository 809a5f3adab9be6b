"""A broken memory.db is detected, kept aside, served around and rebuilt from the markdown.

A project with a 6-entry knowledge bank and a populated store (the injector imported the bank, then the writer
stored 2 more entries, which therefore exist only in the database and the dual-written markdown) is copied for
every scenario; the database is then truncated, overwritten with garbage or deleted.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Optional

import pytest

from memory_adapters.markdown.knowledge_bank import parse_file
from memory_core.entries.hashing import content_hash
from tests._helpers import (
    db_rows, diagnostic_line, entry_headers, run_app, run_hook, upsert_args,
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


def run_writer(entry: dict, project: Path, store: Path, home: Path) -> subprocess.CompletedProcess:
    """The retro writer, in-process; the session starts below run as the processes they are."""
    return run_app("memory_apps.writer", upsert_args(store, project, entry), home)


def run_injector(project: Path, store: Path, home: Path) -> subprocess.CompletedProcess:
    return run_app("memory_apps.injector", ["--project-root", project, "--global-store", store, "--limit", "20"],
                   home)


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
