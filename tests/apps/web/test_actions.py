"""The Memory page's actions: each a POST through MemoryService, then back to the memory with a message; an
error is said on the page (400), never a 500."""

from __future__ import annotations

import re


def flash_after(viewer, response) -> str:
    """Follow an action's redirect; the message the page then shows."""
    assert response.status_code == 303, response.text
    page = viewer.client.get(response.headers["location"])
    found = re.search(r'<p id="flash" class="flash[^"]*">([^<]*)</p>', page.text)
    assert found, page.text
    return found[1]


def test_retire_with_a_reason_then_restore(viewer):
    entry_id = viewer.remember("Use tabs in CSV")
    retired = viewer.post(f"/memories/{entry_id}/retire", {"reason": "tabs break Excel"})
    assert retired.headers["location"].startswith(f"/memories/{entry_id}?flash=")
    assert "Retired" in flash_after(viewer, retired)
    assert viewer.service.get(entry_id) is None
    assert [r.reason for r in viewer.service.retired_entries()] == ["tabs break Excel"]
    assert "Restored" in flash_after(viewer, viewer.post(f"/memories/{entry_id}/restore"))
    assert viewer.service.get(entry_id) is not None
    actors = {e.actor for e in viewer.service.history(entry_id)}
    assert len(actors) == 1 and actors.pop().endswith(" via ui"), "the history names the viewer"


def test_a_flash_message_is_shown_once(viewer):
    entry_id = viewer.remember("Use tabs in CSV")
    location = viewer.post(f"/memories/{entry_id}/retire").headers["location"]
    assert 'id="flash"' in viewer.client.get(location).text
    assert 'id="flash"' not in viewer.client.get(location).text


def test_confirm_records_the_confirmation(viewer):
    entry_id = viewer.remember("Quote CSV fields")
    assert flash_after(viewer, viewer.post(f"/memories/{entry_id}/confirm")).startswith("Confirmed: ")
    assert [e.action for e in viewer.service.history(entry_id)] == ["confirmed"]


def test_supersede_stores_the_new_learning_and_retires_the_old(viewer):
    old = viewer.remember("Use tabs in CSV")
    moved = viewer.post(f"/memories/{old}/supersede", {
        "name": "Quote CSV fields", "description": "Quote CSV fields instead of switching to tabs.",
        "category": "patterns", "confidence": "high", "keywords": "csv, quoting", "references": "src/a.py\n\n"})
    new = re.match(r"/memories/([0-9a-f]{16})\?flash=", moved.headers["location"])[1]
    assert new != old and "superseded" in flash_after(viewer, moved)
    assert viewer.service.get(old) is None and viewer.service.get(new).references == ["src/a.py"]
    assert viewer.service.retired_entries()[0].superseded_by == new


def test_an_invalid_learning_is_said_on_the_page_with_the_form_kept(viewer):
    old = viewer.remember("Use tabs in CSV")
    page = viewer.post(f"/memories/{old}/supersede", {"name": "Kept name", "description": "", "category": "patterns"})
    assert page.status_code == 400
    assert re.search(r'<p id="flash" class="flash error">supersede failed: description', page.text)
    assert 'value="Kept name"' in page.text, "what was typed is still in the form"
    assert viewer.service.get(old) is not None, "nothing changed"


def test_delete_asks_first_then_deletes_on_confirm(viewer):
    entry_id = viewer.remember("Use tabs in CSV")
    asked = viewer.post(f"/memories/{entry_id}/delete")
    assert asked.status_code == 200 and 'name="confirm" value="yes"' in asked.text
    assert viewer.service.get(entry_id) is not None, "the first POST only asks"
    deleted = viewer.post(f"/memories/{entry_id}/delete", {"confirm": "yes"})
    assert deleted.headers["location"].startswith("/memories?flash=")
    assert flash_after(viewer, deleted) == f"Deleted {entry_id}."
    assert viewer.service.get(entry_id) is None


def test_promote_makes_a_kept_memory_universal(viewer):
    entry_id = viewer.remember("Quote CSV fields")
    viewer.service.container.store().set_scope(entry_id, "github.com/someone/bank")  # as an untrusted bank's
    page = viewer.client.get(f"/memories/{entry_id}")
    assert "kept to github.com/someone/bank" in page.text and 'id="action-promote"' in page.text
    assert "every project" in flash_after(viewer, viewer.post(f"/memories/{entry_id}/promote"))
    assert viewer.service.get(entry_id).scope is None


def test_an_action_on_what_is_not_there_is_said_not_a_500(viewer):
    entry_id = viewer.remember("Use tabs in CSV")
    viewer.service.retire(entry_id)
    again = viewer.post(f"/memories/{entry_id}/retire")
    assert again.status_code == 400 and "retire failed: it is not a live memory" in again.text
    assert viewer.post("/memories/ffffffffffffffff/retire").status_code == 404
    assert viewer.post(f"/memories/{entry_id}/explode").status_code == 404


def test_edit_saves_through_the_service_and_the_old_id_leads_to_the_new_one(viewer):
    old = viewer.remember("Use tabs in CSV")
    saved = viewer.post(f"/memories/{old}/edit", {
        "name": "Quote CSV fields", "description": "Quote CSV fields instead of switching to tabs.",
        "category": "heuristics", "confidence": "high", "keywords": "csv, quoting", "references": "src/a.py"})
    new = re.match(r"/memories/([0-9a-f]{16})\?flash=", saved.headers["location"])[1]
    assert new != old and flash_after(viewer, saved).startswith("Saved: name, description")
    stored = viewer.service.get(new)
    assert (stored.name, stored.category, stored.confidence, stored.references) == (
        "Quote CSV fields", "heuristics", "high", ["src/a.py"])
    assert [e.action for e in viewer.service.history(new)] == ["edited"]
    current = viewer.client.get(f"/memories/{old}")
    assert current.status_code == 303 and current.headers["location"] == f"/memories/{new}"


def test_an_edit_that_changes_nothing_says_so(viewer):
    entry_id = viewer.remember("Quote CSV fields", "Quote CSV fields holding the delimiter.")
    form = viewer.client.get(f"/memories/{entry_id}").text
    values = dict(re.findall(r'name="(name|keywords)" value="([^"]*)"', form.split('id="action-edit"')[1]))
    unchanged = viewer.post(f"/memories/{entry_id}/edit", {
        **values, "description": "Quote CSV fields holding the delimiter.", "category": "patterns",
        "confidence": "medium", "reasoning": "", "references": ""})
    assert flash_after(viewer, unchanged) == "Nothing changed."
    assert viewer.service.history(entry_id) == []


def test_an_invalid_edit_is_said_on_the_page(viewer):
    entry_id = viewer.remember("Quote CSV fields")
    page = viewer.post(f"/memories/{entry_id}/edit", {"name": "", "description": "x", "category": "patterns"})
    assert page.status_code == 400 and 'class="flash error">edit failed: name' in page.text
    assert viewer.service.get(entry_id).name == "Quote CSV fields"


def test_an_action_goes_back_to_the_page_that_asked_but_never_off_the_viewer(viewer):
    first, second = viewer.remember("Use tabs in CSV"), viewer.remember("Quote CSV fields")
    back = viewer.post(f"/memories/{first}/confirm", {"next": "/review"})
    assert back.headers["location"].startswith("/review?flash=")
    assert 'id="flash"' in viewer.client.get(back.headers["location"]).text
    for foreign in ("//evil.example/x", "http://evil.example/", "javascript:alert(1)", "/review\\@evil", "review"):
        stayed = viewer.post(f"/memories/{second}/confirm", {"next": foreign})
        assert stayed.headers["location"].startswith(f"/memories/{second}?flash="), foreign


def test_a_hand_written_banks_memory_offers_no_edit_and_a_direct_edit_names_the_file(viewer):
    entry_id = viewer.remember("Quote CSV fields", source="import")
    page = viewer.client.get(f"/memories/{entry_id}")
    assert 'id="action-edit"' not in page.text and 'id="hand-written"' in page.text
    assert "patterns.md of the knowledge bank of bank-app" in page.text
    refused = viewer.post(f"/memories/{entry_id}/edit", {"name": "Other", "description": "Other text here.",
                                                          "category": "patterns"})
    assert refused.status_code == 400 and "written by hand" in refused.text
    assert viewer.service.get(entry_id).name == "Quote CSV fields"
