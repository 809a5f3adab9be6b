"""Database ⇔ markdown agreement, checked the way a rebuild would read the markdown."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from memory_adapters.markdown.knowledge_bank import parse_file
from memory_core.entries.records import CATEGORIES

# The fields the markdown audit trail carries (recall counts and vectors live in the database and snapshots).
FIELDS = ("name", "description", "reasoning", "category", "observation_count", "confidence", "keywords",
          '"references"')


def database_state(db: Path) -> dict[str, tuple]:
    """{id: markdown-carried fields} of every entry in the database."""
    conn = sqlite3.connect(str(db))
    try:
        rows = conn.execute(f"SELECT id, {', '.join(FIELDS)} FROM entries").fetchall()
    finally:
        conn.close()
    return {row[0]: (row[1], row[2], row[3] or "", row[4], row[5], row[6], json.loads(row[7] or "[]"),
                     json.loads(row[8] or "[]")) for row in rows}


def markdown_ids(*directories: Path) -> dict[str, int]:
    """{id: observation count} of every entry in the knowledge-bank files of these directories."""
    found: dict[str, int] = {}
    for directory in directories:
        for category in CATEGORIES:
            path = directory / f"{category}.md"
            if path.exists():
                for entry in parse_file(str(path), category, "local"):
                    found[entry.entry_id] = max(found.get(entry.entry_id, 0), entry.observation_count)
    return found


def assert_agree(db: Path, *directories: Path) -> dict[str, tuple]:
    """Every database entry is in the markdown with its count, and the markdown holds nothing else."""
    state = database_state(db)
    markdown = markdown_ids(*directories)
    only_db = sorted(set(state) - set(markdown))
    only_md = sorted(set(markdown) - set(state))
    assert not only_db, f"{len(only_db)} entries are in the database only"
    assert not only_md, f"{len(only_md)} entries are in the markdown only (deleted ones would come back)"
    counts = {i: (state[i][4], markdown[i]) for i in state if state[i][4] != markdown[i]}
    assert not counts, f"observation counts differ (database, markdown): {counts}"
    return state
