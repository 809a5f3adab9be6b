"""A rebuild loses nothing of an entry's life (ADR 26): with the database file gone, the store's markdown (its
category files and `entry-history.md`) gives back the live entries with their anchors, the retired entries, the
edits' aliases and the whole history; the markdown a killed writer owed is written by the next opening; an
export imported as a new store gives back the same."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memory_core.anchors.anchor import Anchor
from memory_core.entries.models import EntryDraft
from memory_core.entries.records import HistoryEvent
from tests._helpers import run_in_process, write_settings

pytestmark = pytest.mark.slow

ACTOR = "ana via library"
WHEN = datetime(2026, 3, 2, 10, 0, 0, tzinfo=timezone.utc)
TEXTS = {"anchored": "Read CSV files through the csv module, never split rows by hand.",
         "retired": "Call the legacy exporter before every release.",
         "edited": "Retry flaky network calls twice.",
         "confirmed": "Keep migrations numbered and reversible."}


def _service(store: Path, project: Path):
    from memory_apps import MemoryService

    return MemoryService(global_store=str(store), project_root=str(project))


@pytest.fixture
def project(tmp_path, isolated_home) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    write_settings(root, embedding_provider="none")
    return root


def _populate(store: Path, project: Path) -> dict[str, str]:
    """A store with an anchored entry, a retired one, an edited one (an alias) and a confirmed one."""
    memory = _service(store, project)
    ids = {key: memory.remember(key.title(), text, category="patterns", references=["src/reader.py:12"]).entry_id
           for key, text in TEXTS.items()}
    lifecycle = memory.container.store()
    lifecycle.set_anchors(ids["anchored"], [Anchor("src/reader.py:12", "b1", "r1", "github.com/acme/app", "c1")])
    lifecycle.set_anchors(ids["confirmed"], [Anchor("src/reader.py:12", "b2", "r2", "github.com/acme/app")],
                          HistoryEvent(ids["confirmed"], "confirmed", WHEN, ACTOR))
    lifecycle.retire(ids["retired"], HistoryEvent(ids["retired"], "retired", WHEN, ACTOR, {"reason": "exporter gone"}))
    draft = EntryDraft(name="Edited", description="Retry flaky network calls twice, with backoff.",
                       category="patterns", source_project=project.name)
    new = lifecycle.replace_text(ids["edited"], draft, HistoryEvent(
        ids["edited"], "edited", WHEN, ACTOR, {"old_id": ids["edited"], "new_id": draft.entry_id}))
    ids["edited-new"] = new.id
    memory.container.reconcile().run()  # the markdown those changes owe (a write path does this after each)
    return ids


def _state(store: Path, project: Path) -> dict:
    lifecycle = _service(store, project).container.store()
    live = {e.id: (e.description, e.anchors, e.observation_count) for e in lifecycle.all_entries()}
    retired = {r.entry.id: (r.entry.description, r.reason) for r in lifecycle.retired_entries()}
    events = sorted((e.entry_id, e.action, e.at, e.actor, sorted(e.detail.items())) for e in lifecycle.all_history())
    return {"live": live, "retired": retired, "aliases": lifecycle.aliases(), "history": events}


def _drop_database(store: Path) -> None:
    for name in ("memory.db", "memory.db-wal", "memory.db-shm"):
        (store / name).unlink(missing_ok=True)


def test_a_rebuild_from_markdown_keeps_anchors_retirements_aliases_and_history(tmp_path, project, backend,
                                                                              spare_store, monkeypatch):
    """On SQLite the database file is deleted; on PostgreSQL the same markdown meets an empty database."""
    for key, value in backend.env.items():
        monkeypatch.setenv(key, value)
    store = tmp_path / "store"
    ids = _populate(store, project)
    before = _state(store, project)
    assert before["live"][ids["anchored"]][1] and ids["retired"] in before["retired"]
    assert before["aliases"] == {ids["edited"]: ids["edited-new"]} and len(before["history"]) == 3
    patterns = (store / "patterns.md").read_text("utf-8")
    assert ids["retired"] not in patterns and ids["edited"] not in patterns and "- Anchors: [" in patterns
    assert "Anchors" not in (project / "docs" / "knowledge-bank" / "patterns.md").read_text("utf-8")

    if backend.is_postgres:
        for key, value in spare_store(backend).items():
            monkeypatch.setenv(key, value)
    else:
        _drop_database(store)
    rebuilt = _service(store, project).container.store()  # a read opens it: rebuilt from the store's markdown
    assert rebuilt.pending_audit(10_000) == [], "the anchors came from the markdown: no block rewrite is owed"
    after = _state(store, project)

    assert after == before
    assert rebuilt.resolve(ids["edited"]) == ids["edited-new"]


def test_an_import_after_the_rebuild_revives_no_retired_or_edited_away_entry(tmp_path, project):
    store = tmp_path / "store"
    ids = _populate(store, project)  # the project's bank still holds the retired and the old edited blocks
    before = _state(store, project)
    _drop_database(store)
    result = run_in_process("memory_apps.cli", ["import", "--project-root", project, "--global-store", store],
                            project.parent / "home", cwd=project)
    assert result.returncode == 0, result.stderr
    after = _state(store, project)
    assert set(after["live"]) == set(before["live"]) and after["retired"] == before["retired"]
    assert after["history"] == before["history"] and ids["edited"] not in after["live"]


def test_the_next_opening_writes_what_a_killed_writer_owed(tmp_path, project):
    store = tmp_path / "store"
    memory = _service(store, project)
    entry_id = memory.remember("Soon retired", "Retired by a writer killed before its markdown.").entry_id
    memory.container.store().retire(entry_id, HistoryEvent(entry_id, "retired", WHEN, ACTOR, {"reason": "x"}))
    assert entry_id in (store / "patterns.md").read_text("utf-8"), "the writer died before the markdown"

    _service(store, project).entries()  # any opening replays the outbox

    assert entry_id not in (store / "patterns.md").read_text("utf-8")
    assert '"action": "retired"' in (store / "entry-history.md").read_text("utf-8")
    assert entry_id not in (store / "deleted-entries.txt").read_text("utf-8") \
        if (store / "deleted-entries.txt").exists() else True, "a retirement is no deletion"


def test_an_export_imported_as_a_new_store_round_trips(tmp_path, project):
    store = tmp_path / "store"
    ids = _populate(store, project)
    before = _state(store, project)
    home = project.parent / "home"
    exported = run_in_process("memory_apps.cli", ["export", "--output", tmp_path / "export", "--global-store",
                                                  store], home, cwd=project)
    assert exported.returncode == 0, exported.stderr
    assert "3 events of history" in exported.stdout
    new_store = tmp_path / "new-store"
    shutil.copytree(tmp_path / "export", new_store)
    elsewhere = tmp_path / "elsewhere"  # no knowledge bank of its own: the export is all there is
    elsewhere.mkdir()
    write_settings(elsewhere, embedding_provider="none")
    imported = run_in_process("memory_apps.cli", ["import", "--project-root", elsewhere, "--global-store", new_store],
                              home, cwd=elsewhere)
    assert imported.returncode == 0, imported.stderr
    after = _state(new_store, elsewhere)
    assert after["live"] == before["live"] and after["retired"] == before["retired"]
    assert after["aliases"] == before["aliases"] and after["history"] == before["history"]
    assert ids["anchored"] in after["live"]


def test_a_database_that_lost_a_retirement_retires_it_again(tmp_path, project):
    """An older copy of the database put back (or a deleted `-wal`): the markdown is ahead, the next import reads
    it again, and the history file retires again what the lost commits retired."""
    import sqlite3

    store = tmp_path / "store"
    memory = _service(store, project)
    lost = memory.remember("Retired later", "Retired after the copy was taken.").entry_id
    kept = memory.remember("Stays", "Live before and after.").entry_id
    copy = tmp_path / "old.db"
    with sqlite3.connect(store / "memory.db") as source, sqlite3.connect(copy) as target:
        source.backup(target)
    now = datetime.now(timezone.utc)
    memory.container.store().retire(lost, HistoryEvent(lost, "retired", now, ACTOR, {"reason": "stale"}))
    memory.container.reconcile().run()
    _drop_database(store)
    shutil.copyfile(copy, store / "memory.db")  # the retirement's commit is lost

    result = run_in_process("memory_apps.cli", ["import", "--project-root", project, "--global-store", store],
                            project.parent / "home", cwd=project)

    assert result.returncode == 0, result.stderr
    state = _state(store, project)
    assert set(state["live"]) == {kept} and state["retired"] == {lost: ("Retired after the copy was taken.", "stale")}
    assert [event[1] for event in state["history"]] == ["retired"], "the event once, not twice"


BANK = """# Patterns

### Pattern: Parser errors name the line
Report parser errors with the line number of the bad input.
- Observation count: 3

### Pattern: Retry with backoff
Retry network calls with exponential backoff and a cap.
"""
RETRY = "### Pattern: Retry with backoff\nRetry network calls with exponential backoff and a cap.\n"


def test_a_bank_learning_restored_after_its_block_left_the_bank_survives_a_rebuild(tmp_path, project):
    """Retired by an import (its block deleted from the bank), then restored by hand: no markdown holds its block
    (a restore of an imported entry writes none), so the history file carries it and a rebuild puts it back."""
    store, home = tmp_path / "store", project.parent / "home"
    bank = project / "docs" / "knowledge-bank" / "patterns.md"
    bank.parent.mkdir(parents=True)
    bank.write_text(BANK, encoding="utf-8")

    def cli(*args: object) -> str:
        result = run_in_process("memory_apps.cli", [*args, "--project-root", project, "--global-store", store],
                                home, cwd=project)
        assert result.returncode == 0, (result.stdout, result.stderr)
        return result.stdout

    def listed() -> dict[str, dict]:
        return {e["id"]: e for e in json.loads(cli("list", "--json"))}

    cli("import")
    (entry_id,) = [i for i, e in listed().items() if e["name"] == "Retry with backoff"]
    bank.write_text(BANK.replace(RETRY, ""), encoding="utf-8")
    assert "1 retired" in cli("import")
    assert entry_id not in listed()
    cli("restore", entry_id[:8])
    written = _service(store, project).remember("Own", "Kept by the store's own markdown.").entry_id
    before = listed()
    assert entry_id in before and before[entry_id]["source"] == "import"
    assert "Retry with backoff" not in bank.read_text("utf-8"), "a hand-written bank is not written to"
    assert "Retry with backoff" not in (store / "patterns.md").read_text("utf-8") \
        if (store / "patterns.md").exists() else True, "an imported entry owes no global markdown"

    _drop_database(store)
    after = listed()  # a read rebuilds the database from the store's markdown and its history file
    assert entry_id in after, "the restore outlived the database"
    assert written in after, "the store's own markdown is read too, though the history put an entry back first"
    assert {k: v for k, v in after[entry_id].items() if k != "has_embedding"} == \
        {k: v for k, v in before[entry_id].items() if k != "has_embedding"}
    assert "1 retired" not in cli("import"), "a first import of the bank after the rebuild retires nothing"
    shown = json.loads(cli("show", entry_id, "--json"))
    assert [e["action"] for e in shown["history"]] == ["retired", "restored"] and shown.get("retired") is None

    _drop_database(store)
    cli("import")  # a write path rebuilds too: the history first, then the bank, which lacks the block
    assert entry_id in listed()
