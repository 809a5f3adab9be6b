"""The library's edit (issue 25, the viewer's edit form): `MemoryService.edit` on SQLite and PostgreSQL changes the
database and the global store's markdown, keeps the counts, lets the old id find the entry, records who edited
it, redacts a secret, anchors an added reference; refuses a hand-written bank's entry (naming its file), a retired
one and another entry's text; changing nothing is no edit."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from memory_core.entries.hashing import content_hash
from memory_core.errors import InvalidEntry
from tests._helpers import committed_project, run_in_process

pytestmark = pytest.mark.slow

OLD = "Quote CSV fields that hold delimiters."
NEW = "Quote CSV fields that hold commas or quotes; let the csv module do it."
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def memory(tmp_path, isolated_home, backend, monkeypatch):
    from memory_apps import MemoryService

    for key, value in backend.env.items():  # the service built here uses `backend`'s store
        monkeypatch.setenv(key, value)
    project = committed_project(tmp_path / "bank-app", {"src/export.py": "def export(rows):\n    return rows\n",
                                                        "src/quote.py": "QUOTE = '\"'\n"})
    with MemoryService(global_store=str(tmp_path / "global-store"), project_root=str(project)) as service:
        yield service


def markdown(memory, category: str) -> str:
    path = Path(memory.global_store) / f"{category}.md"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_a_new_description_changes_the_database_and_the_markdown_and_keeps_the_counts(memory):
    stored = memory.remember("Quote CSV fields", OLD, confidence="high")
    memory.remember("Quote CSV fields", OLD)  # seen twice
    before = memory.get(stored.entry_id)
    assert OLD in markdown(memory, "patterns")

    edited = memory.edit(stored.entry_id[:6], description=NEW + f" Token {SECRET}.")

    assert (edited.old_id, edited.changed) == (stored.entry_id, ("description",))
    assert edited.id == content_hash(edited.entry.description) != stored.entry_id
    now = memory.get(edited.id)
    assert SECRET not in now.description and "[REDACTED]" in now.description
    assert (now.observation_count, now.created_at, now.confidence) == (2, before.created_at, "high")
    assert memory.get(stored.entry_id) is None
    assert memory.locate(stored.entry_id).entry_id == edited.id, "the old id finds the edited entry"
    text = markdown(memory, "patterns")
    assert NEW in text and OLD not in text and SECRET not in text
    bank = (Path(memory.project_root) / "docs" / "knowledge-bank" / "patterns.md").read_text(encoding="utf-8")
    assert NEW in bank and OLD not in bank, "the block a tool wrote into the project's bank follows the edit"
    [event] = memory.history(stored.entry_id)
    assert (event.action, event.actor) == ("edited", f"{getpass.getuser()} via library")
    assert (event.detail["old_id"], event.detail["new_id"], event.detail["old_description"]) == (
        stored.entry_id, edited.id, OLD)
    history = (Path(memory.global_store) / "entry-history.md").read_text(encoding="utf-8")
    assert stored.entry_id in history and edited.id in history


def test_an_edit_that_keeps_the_description_keeps_the_id_and_moves_the_block(memory):
    stored = memory.remember("Quote CSV fields", OLD, category="patterns", confidence="high", reasoning="Why.")

    edited = memory.edit(stored.entry_id, name="Quote every CSV field", category="heuristics", confidence="low",
                         reasoning="", keywords=["CSV Quoting", "delimiters"])

    assert edited.id == edited.old_id == stored.entry_id
    assert edited.changed == ("name", "reasoning", "category", "keywords", "confidence")
    now = memory.get(stored.entry_id)
    assert (now.name, now.category, now.confidence, now.reasoning, now.keywords) == (
        "Quote every CSV field", "heuristics", "low", "", ["csv-quoting", "delimiters"])
    assert stored.entry_id not in markdown(memory, "patterns"), "the block left the old category's file"
    assert "### Quote every CSV field" in markdown(memory, "heuristics")


def test_references_the_edit_adds_are_anchored_and_removed_ones_dropped(memory):
    stored = memory.remember("Export rows as given", "Export rows in the order the caller gives them.",
                             references=["src/export.py"])
    assert [a.reference for a in memory.get(stored.entry_id).anchors] == ["src/export.py"]

    edited = memory.edit(stored.entry_id, references=["src/quote.py", "src/absent.py"])

    assert edited.changed == ("references",)
    now = memory.get(stored.entry_id)
    assert now.references == ["src/quote.py", "src/absent.py"]
    assert [a.reference for a in now.anchors] == ["src/quote.py"], "an absent file gets no anchor"


def test_changing_nothing_is_no_edit(memory):
    stored = memory.remember("Quote CSV fields", OLD, keywords=["csv", "quoting"], references=["src/export.py"])
    entry = memory.get(stored.entry_id)
    every_field = {f: getattr(entry, f) for f in ("name", "reasoning", "category", "references", "keywords",
                                                   "confidence")}  # a form sends every field back

    edited = memory.edit(stored.entry_id, description=OLD + "  ", **every_field)

    assert edited.changed == () and edited.id == stored.entry_id
    assert memory.history(stored.entry_id) == [] and memory.get(stored.entry_id) == entry


def test_refusals_unknown_ids_and_bad_input(memory):
    stored = memory.remember("Quote CSV fields", OLD)
    other = memory.remember("Use the csv module", NEW)

    with pytest.raises(InvalidEntry) as taken:
        memory.edit(stored.entry_id, description=NEW)
    assert taken.value.field == "description" and other.entry_id in taken.value.message
    with pytest.raises(InvalidEntry) as blank:
        memory.edit(stored.entry_id, name="   ")
    assert blank.value.field == "name"
    with pytest.raises(InvalidEntry) as unknown_field:
        memory.edit(stored.entry_id, scope="elsewhere")
    assert unknown_field.value.field == "scope"
    assert memory.edit("0123456789abcdef", name="x") is None
    memory.retire(other.entry_id, "merged by hand")
    with pytest.raises(InvalidEntry) as retired:
        memory.edit(other.entry_id, name="Again")
    assert f"restore it first (`iflow-memory restore {other.entry_id}`)" in retired.value.message
    assert memory.get(stored.entry_id).description == OLD and memory.history(stored.entry_id) == []


def test_an_entry_of_a_hand_written_bank_is_not_edited_and_the_bank_file_is_named(memory):
    from memory_core.usecases.lifecycle.edit import HandWritten

    root = Path(memory.project_root)
    bank = root / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text(f"# Patterns\n\n### Pattern: Quote CSV fields\n{OLD}\n", encoding="utf-8")
    imported = run_in_process("memory_apps.cli", ["import", "--global-store", memory.global_store,
                                                  "--project-root", root], Path.home(), cwd=root)
    assert imported.returncode == 0, imported.stderr
    entry_id = content_hash(OLD)
    assert memory.get(entry_id).source == "import"

    with pytest.raises(HandWritten) as refused:
        memory.edit(entry_id, description=NEW)

    assert refused.value.bank_file == str(bank / "patterns.md") == memory.hand_written_file(entry_id[:6])
    written = memory.remember("Another", "Another learning.")
    assert memory.hand_written_file(written.entry_id) is None and memory.hand_written_file("0123456789abcdef") is None
    assert str(bank / "patterns.md") in refused.value.message and "next import" in refused.value.message
    assert memory.get(entry_id).description == OLD and memory.history(entry_id) == []
    assert (bank / "patterns.md").read_text(encoding="utf-8").count(OLD) == 1
