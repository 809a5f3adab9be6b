"""The library's lifecycle (issue 24): retire, restore, history, confirm, review and remember(supersedes=), in
process on SQLite and PostgreSQL; the actor the history records names the library."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from memory_core.entries.hashing import content_hash
from memory_core.errors import InvalidEntry
from tests._helpers import committed_project, git

pytestmark = pytest.mark.slow


@pytest.fixture
def memory(tmp_path, isolated_home, backend, monkeypatch):
    from memory_apps import MemoryService

    for key, value in backend.env.items():  # the service built here uses `backend`'s store
        monkeypatch.setenv(key, value)
    project = committed_project(tmp_path / "bank-app", {"src/export.py": "def export(rows):\n    return rows\n"})
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


def test_remember_refuses_a_retired_learnings_text_and_merge_into_it(memory):
    from memory_core.usecases.retired_refusal import RetiredLearning

    stored = memory.remember("Quote CSV fields", "Quote CSV fields that hold delimiters.")
    memory.retire(stored.entry_id, "replaced by parquet")

    with pytest.raises(InvalidEntry) as raised:
        memory.remember("Quote CSV fields", "Quote CSV fields that hold delimiters.")
    assert isinstance(raised.value, RetiredLearning) and raised.value.field == "description"
    assert f"{stored.entry_id} — Quote CSV fields was retired on " in raised.value.message
    assert f"(replaced by parquet); `iflow-memory restore {stored.entry_id}` brings it back" in raised.value.message
    with pytest.raises(RetiredLearning):
        memory.remember("Quote", "Quote the fields.", merge_into=stored.entry_id[:6])
    assert memory.get(stored.entry_id) is None and memory.get(content_hash("Quote the fields.")) is None
    memory.restore(stored.entry_id)
    again = memory.remember("Quote CSV fields", "Quote CSV fields that hold delimiters.")
    assert (again.created, again.observation_count) == (False, 2), "restored, a repeat reinforces it"


def test_confirm_keeps_a_deleted_files_anchor_and_says_so(memory):
    root = Path(memory.project_root)
    (root / "src" / "old.py").write_text("OLD = 1\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "old")
    stored = memory.remember("Export rows as given", "Export rows in the order the caller gives them.",
                             references=["src/export.py", "src/old.py"])
    git(root, "rm", "-q", "src/old.py")
    git(root, "commit", "-qm", "gone")

    confirmed = memory.confirm(stored.entry_id)

    assert (confirmed.anchored, confirmed.cited) == (1, 2)
    assert sorted(a.reference for a in confirmed.anchors) == ["src/export.py", "src/old.py"]
    assert [(s.reference, s.state) for s in confirmed.gone] == [("src/old.py", "missing")]
    assert confirmed.summary() == ("confirmed 1 of 2 citations; src/old.py is still gone: supersede the learning "
                                   "with what is true now, or retire it")
    [stale] = memory.review().stale
    assert stale.entry.id == stored.entry_id and [s.state for s in stale.states] == ["missing"]


def test_a_repeat_and_a_merge_anchor_the_references_they_add(memory):
    root = Path(memory.project_root)
    (root / "src" / "csv_out.py").write_text("def write(rows):\n    return rows\n")
    (root / "src" / "quote.py").write_text("QUOTE = '\"'\n")
    stored = memory.remember("Export rows as given", "Export rows in the order the caller gives them.",
                             references=["src/export.py"])
    [learned] = memory.get(stored.entry_id).anchors

    memory.remember("Export rows as given", "Export rows in the order the caller gives them.",
                    references=["src/export.py", "src/csv_out.py"])
    memory.remember("Keep row order", "Keep the caller's row order.", references=["src/quote.py"],
                    merge_into=stored.entry_id)

    anchors = memory.get(stored.entry_id).anchors
    assert anchors[0] == learned
    assert [a.reference for a in anchors] == ["src/export.py", "src/csv_out.py", "src/quote.py"]
