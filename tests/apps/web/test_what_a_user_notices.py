"""What a user walking the Memories and Memory pages noticed (issue 25 review): a kept memory names its project,
history details read as `show` prints them, an edit's new id and a failed confirmation are said plainly, a retired
memory can be deleted, the list marks stale citations, and every page names the store it serves."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from tests._helpers import committed_project
from tests.apps.web.conftest import make_viewer
from tests.apps.web.test_actions import flash_after

pytest.importorskip("starlette", reason="the viewer needs the ui extra: pip install 'iflow-memory[ui]'")

IDENTITY = "git:9f4e0804" + "1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2"


def flash_of(viewer, response) -> tuple[str, bool]:
    """The message after an action's redirect, and whether it is shown as a warning."""
    assert response.status_code == 303, response.text
    page = viewer.client.get(response.headers["location"]).text
    found = re.search(r'<p id="flash" class="flash( error)?">([^<]*)</p>', page)
    assert found, page
    return found[2], bool(found[1])


def test_a_kept_memory_names_its_project_with_the_identity_in_a_title(viewer):
    entry_id = viewer.remember("Read the reader's buffer once")
    store = viewer.service.container.store()
    store.set_scope(entry_id, IDENTITY)
    store.set_metadata(f"bank:{IDENTITY}", json.dumps({"root": "/home/me/src/reader-app", "files": {}}))
    for page in (viewer.client.get("/memories").text, viewer.client.get(f"/memories/{entry_id}").text):
        assert f'title="{IDENTITY}">kept to reader-app</' in page
        assert f">kept to {IDENTITY}" not in page


def test_a_kept_memory_of_no_known_bank_shows_a_short_identity(viewer):
    entry_id = viewer.remember("Read the reader's buffer once")
    viewer.service.container.store().set_scope(entry_id, IDENTITY)
    page = viewer.client.get(f"/memories/{entry_id}").text
    assert f'<dd id="scope" title="{IDENTITY}">kept to git:9f4e0804</dd>' in page


def test_history_details_read_as_show_prints_them(viewer):
    old = viewer.remember("Buffer reads", "Read the file in one buffer.", references=["src/a.py"])
    viewer.service.edit(old, references=["src/reader.py", "src/a.py"])  # references only: the id stays
    new = viewer.service.edit(old, description="Read the whole file into one buffer.", reasoning="Fewer calls.").id
    history = viewer.client.get(f"/memories/{new}").text.split('id="history"')[1]
    assert "[" not in history and "'" not in history, "no Python lists or quotes"
    assert "<td>fields: references</td>" in history, "an edit that kept the id does not repeat it"
    assert re.search(rf"<td>fields: description, reasoning; old_id: {old}; new_id: {new}; old_description: "
                     r"Read the file in one buffer.</td>", history)


def test_an_edit_that_gives_a_new_id_says_the_old_one_still_finds_it(viewer):
    old = viewer.remember("Buffer reads", "Read the file in one buffer.")
    saved = viewer.post(f"/memories/{old}/edit", {"name": "Buffer reads", "category": "patterns",
                                                   "description": "Read the whole file into one buffer."})
    new = re.match(r"/memories/([0-9a-f]{16})\?", saved.headers["location"])[1]
    assert flash_after(viewer, saved) == (
        f"Saved: description changed. New id {new}; the old id {old} still finds it.")
    kept = viewer.post(f"/memories/{new}/edit", {"name": "Buffer reads, once", "category": "patterns",
                                                  "description": "Read the whole file into one buffer."})
    assert flash_after(viewer, kept) == "Saved: name changed.", "the same id: nothing to say about ids"


def test_a_retired_memory_can_be_deleted_after_asking(viewer):
    entry_id = viewer.remember("Use tabs in CSV")
    viewer.service.retire(entry_id, "tabs break Excel")
    page = viewer.client.get(f"/memories/{entry_id}").text
    assert 'id="action-restore"' in page and 'id="action-delete"' in page
    asked = viewer.post(f"/memories/{entry_id}/delete")
    assert asked.status_code == 200 and 'name="confirm" value="yes"' in asked.text
    assert flash_after(viewer, viewer.post(f"/memories/{entry_id}/delete", {"confirm": "yes"})) == (
        f"Deleted {entry_id}.")
    assert viewer.service.retired_entries() == [] and viewer.service.locate(entry_id) is None


@pytest.fixture
def git_service(tmp_path, isolated_home):
    """A service over a git project whose src/sniff.py and src/export.py a learning can cite."""
    from memory_apps.service import MemoryService

    project = committed_project(tmp_path / "shop", {"src/sniff.py": "def sniff(text):\n    return ','\n",
                                                    "src/export.py": "def export(rows):\n    return rows\n"})
    with MemoryService(global_store=str(tmp_path / "store"), project_root=str(project), tool="ui",
                       create=True) as opened:
        yield opened


def test_confirming_when_the_cited_file_is_gone_is_a_plain_warning(git_service, tmp_path):
    viewer = make_viewer(git_service)
    entry_id = viewer.remember("Sniff the delimiter", "Sniff the CSV delimiter before parsing.",
                               references=["src/sniff.py"])
    (tmp_path / "shop" / "src" / "sniff.py").unlink()
    message, warning = flash_of(viewer, viewer.post(f"/memories/{entry_id}/confirm"))
    assert warning and message == ("Not confirmed: src/sniff.py is gone, so nothing could be anchored to the code. "
                                   "Supersede it with what is true now, or retire it.")
    current = viewer.remember("Export rows", "Export rows in the order given.", references=["src/export.py"])
    message, warning = flash_of(viewer, viewer.post(f"/memories/{current}/confirm"))
    assert not warning and message.startswith("Confirmed: anchored to the code as it is now")


def test_the_list_marks_each_memory_whose_citations_went_stale(git_service, tmp_path):
    viewer = make_viewer(git_service)
    gone = viewer.remember("Sniff the delimiter", "Sniff the CSV delimiter before parsing.",
                           references=["src/sniff.py"])
    changed = viewer.remember("Export rows", "Export rows in the order given.", references=["src/export.py"])
    fine = viewer.remember("Quote fields", "Quote fields holding the delimiter.")
    (tmp_path / "shop" / "src" / "sniff.py").unlink()
    (tmp_path / "shop" / "src" / "export.py").write_text("def export(rows):\n    return sorted(rows)\n")
    for page in (viewer.client.get("/memories").text,
                 viewer.client.get("/memories", params={"q": "delimiter export rows"}).text):
        rows = {m[1]: m[2] for m in re.finditer(r'<tr data-id="([0-9a-f]{16})">(.*?)</tr>', page, re.S)}
        assert 'class="mark state-missing" title="cites src/sniff.py, which no longer exists">missing<' in rows[gone]
        assert ('class="mark state-changed" title="src/export.py changed since this was learned">changed<'
                in rows[changed])
        assert "mark" not in rows.get(fine, "")


def test_every_page_names_the_sqlite_store_in_its_footer(viewer):
    page = viewer.client.get("/memories").text
    database = viewer.service.container.store().path
    assert f'<footer class="store" id="store">store: SQLite {database}</footer>' in page


def test_a_postgresql_store_is_named_with_its_password_masked():
    from memory_apps.web.store_label import store_label

    config = SimpleNamespace(database_url=lambda: "postgresql://team:s3cret@db.example:5432/memory")
    label = store_label(SimpleNamespace(container=SimpleNamespace(config=config)))
    assert label.startswith("PostgreSQL postgresql://team:") and "db.example:5432/memory" in label
    assert "s3cret" not in label
