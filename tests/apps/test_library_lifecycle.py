"""The library's lifecycle (issue 24): retire, restore, history, confirm, review and remember(supersedes=), in
process on SQLite; the actor the history records names the library."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from memory_core.entries.hashing import content_hash
from memory_core.errors import InvalidEntry
from tests._helpers import git, write_settings

pytestmark = pytest.mark.slow


@pytest.fixture
def memory(tmp_path, isolated_home):
    from memory_apps import MemoryService

    project = tmp_path / "bank-app"
    (project / "src").mkdir(parents=True)
    (project / "src" / "export.py").write_text("def export(rows):\n    return rows\n")
    write_settings(project, embedding_provider="none")
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "first")
    with MemoryService(global_store=str(tmp_path / "global-store"), project_root=str(project)) as service:
        yield service


def test_retire_restore_and_history(memory):
    stored = memory.remember("Quote CSV fields", "Quote CSV fields that hold delimiters.", category="patterns")

    retired = memory.retire(stored.entry_id[:6], "replaced by parquet")

    assert retired.id == stored.entry_id and memory.get(stored.entry_id) is None
    assert [r.entry.id for r in memory.retired_entries()] == [stored.entry_id]
    assert memory.retire(stored.entry_id) is None, "not live any more"
    assert memory.restore(stored.entry_id).id == stored.entry_id and memory.get(stored.entry_id) is not None
    assert memory.restore(stored.entry_id) is None, "not retired any more"
    events = memory.history(stored.entry_id)
    assert [(e.action, e.actor, e.detail) for e in events] == [
        ("retired", f"{getpass.getuser()} via library", {"reason": "replaced by parquet"}),
        ("restored", f"{getpass.getuser()} via library", {})]


def test_confirm_then_review_after_the_cited_file_is_deleted(memory):
    stored = memory.remember("Export rows as given", "Export rows in the order the caller gives them.",
                             references=["src/export.py"])
    confirmed = memory.confirm(stored.entry_id)
    assert [a.reference for a in confirmed.anchors] == ["src/export.py"]
    assert memory.review().empty()
    git(Path(memory.project_root), "rm", "-q", "src/export.py")

    [stale] = memory.review().stale

    assert stale.entry.id == stored.entry_id and [s.state for s in stale.states] == ["missing"]
    assert memory.confirm("0123456789abcdef") is None


def test_remember_supersedes_retires_the_old_one(memory):
    old = memory.remember("Split rows", "Split CSV rows on commas.")
    new = memory.remember("Use the csv module", "Let the csv module split CSV rows.", supersedes=old.entry_id[:5])
    assert new.superseded == old.entry_id and memory.get(old.entry_id) is None
    assert [r.entry.id for r in memory.review().superseded] == [old.entry_id]
    assert [e.action for e in memory.history(new.entry_id)] == ["superseded"]
    with pytest.raises(InvalidEntry) as raised:
        memory.remember("Again", "Something else.", supersedes=old.entry_id)
    assert raised.value.field == "supersedes" and memory.get(content_hash("Something else.")) is None
