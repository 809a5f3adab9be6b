"""A store per size for the hooks: the latency section's synthetic store (prose entries, vectors near real
embeddings, local space pinned, a git project marked imported), one synthetic entry in CITING citing a source
file, and a few written learnings embedded by the model itself, so that some prompts have a real answer."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from benchmarks.common.store import LOCAL_SPACE, ROW_COLUMNS, write_vector_cache
from benchmarks.latency.store import build_store, make_project

CITING = 10  # every 10th synthetic entry cites a file: 100 of 10k (real banks cite fewer)
MODULES = ("ingest", "billing", "auth", "search", "hooks", "store", "cli", "render")

# (name, description, category, references, prompts that call for it: the prompt hook's answerable prompts)
ANCHORS = (
    ("Never split CSV rows by hand", "Quoted fields hold commas and line breaks: read rows with the csv module "
     "instead of splitting lines on commas.", "anti-patterns", ["src/ingest/csv_reader.py:40"],
     ("our csv import splits rows on commas and breaks on quoted fields",
      "the importer mangles rows whose quoted text contains a comma")),
    ("Recreate Python venvs after directory renames", "A virtualenv hardcodes its absolute path in its scripts; "
     "after moving the project folder, delete .venv and create it again.", "heuristics", ["scripts/setup.sh"],
     ("after moving the project folder nothing in .venv/bin starts any more",
      "pip in the virtualenv says bad interpreter after I renamed the repo")),
    ("Census schema version assertions before a migration", "Tests that assert the schema version break on every "
     "migration: grep for them and update them in the same change as the migration.", "patterns",
     ["src/store/schema.py:120", "tests/test_schema.py"],
     ("the migration to schema version 5 broke a dozen tests that assert the old version",
      "bumping the database schema version made unrelated tests fail")),
    ("Quote paths passed to the shell hook", "A checkout path with an apostrophe or a space breaks an unquoted "
     "shell command line; pass arguments as a list or quote them with shlex.", "anti-patterns",
     ["src/hooks/session_start.sh"],
     ("the hook dies with a SyntaxError when the checkout path has an apostrophe",
      "session start hook fails for a repository under a folder with a space in its name")),
    ("Paginate the outline page", "Rendering thousands of outline items at once makes the page slow; page them "
     "and render only what is visible.", "heuristics", ["src/render/outline.py:88"],
     ("why is the outline page slow with 3k items",
      "the outline view takes seconds to render for a large document")),
    ("Retry idempotent requests with jitter", "Retries without jitter hammer a recovering service in lockstep; "
     "add random jitter to the exponential backoff and retry only idempotent calls.", "patterns",
     ["src/billing/client.py:57"],
     ("our payment client retries all at once after an outage and brings the service down again",
      "how should the billing client back off when the provider returns 503")),
)


def build(store_dir: Path, project: Path, size: int, pool: np.ndarray, embedder) -> dict:
    """The latency section's store of `size` entries, every CITING-th one citing a file, plus ANCHORS with their
    own embeddings; the vector cache rewritten. Returns what was built."""
    make_project(project)
    built = build_store(store_dir, project, size, pool)
    db = store_dir / "memory.db"
    conn = sqlite3.connect(str(db), isolation_level=None)
    try:
        conn.execute("BEGIN")
        ids = [row[0] for row in conn.execute("SELECT id FROM entries ORDER BY rowid")]
        cited = [(json.dumps([cited_file(i)]), entry_id) for i, entry_id in enumerate(ids) if i % CITING == 0]
        conn.executemany('UPDATE entries SET "references" = ? WHERE id = ?', cited)
        conn.executemany(f"INSERT INTO entries ({ROW_COLUMNS}) VALUES ({', '.join('?' * 15)})", anchor_rows(embedder))
        conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    write_vector_cache(db, LOCAL_SPACE[2])
    return {**built, "entries": built["entries"] + len(ANCHORS), "citing": len(cited) + len(ANCHORS)}


def cited_file(i: int) -> str:
    """The file the i-th synthetic entry cites (with a line, as learnings write them)."""
    return f"src/{MODULES[i % len(MODULES)]}/part_{i // CITING % 50}.py:{10 + i % 90}"


def anchor_rows(embedder) -> list[tuple]:
    """ANCHORS as rows, each vector the model's embedding of the entry's text (as `embed` stores it)."""
    from memory_core.embedding.normalising import document_text
    from memory_core.entries.hashing import content_hash

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    texts = [document_text(name, description, "", []) for name, description, *_ in ANCHORS]
    vectors = embedder.embed_documents(texts)
    return [(content_hash(description), name, description, "", category, "[]", json.dumps(references), 3, "high",
             0, stamp, stamp, "retro", None, np.asarray(vector, dtype="<f4").tobytes())
            for (name, description, category, references, _), vector in zip(ANCHORS, vectors)]


def anchor_names() -> list[str]:
    """The names of the learnings some prompts call for."""
    return [anchor[0] for anchor in ANCHORS]
