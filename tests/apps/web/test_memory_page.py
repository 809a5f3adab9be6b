"""The Memory page: its full text, scope, provenance, references and history; prefixes and edited-away ids lead
to the whole current id; stored text is escaped and only http(s) references become links."""

from __future__ import annotations

import re

from tests.apps.web.test_memories_page import HOSTILE


def test_the_page_shows_the_whole_memory(viewer):
    entry_id = viewer.remember("Quote CSV fields", "Quote fields holding the delimiter.", reasoning="Excel splits.",
                               keywords=["csv", "quoting"], references=["src/export.py"], confidence="high")
    page = viewer.client.get(f"/memories/{entry_id}")
    assert page.status_code == 200
    assert "<h1>Quote CSV fields</h1>" in page.text and entry_id in page.text
    keywords = ", ".join(viewer.service.get(entry_id).keywords)
    for text in ("Quote fields holding the delimiter.", "Excel splits.", f"<dd>{keywords}</dd>", "confidence high",
                 "every project", "manual, in bank-app", "last shown never"):
        assert text in page.text, text
    assert re.search(r"<code>src/export.py</code>|<span>src/export.py</span> — <span class=\"state-not-checked\">"
                     r"not checked</span>", page.text), "no anchor of this project: not checked"


def test_a_prefix_redirects_to_the_whole_id_and_an_unknown_id_is_a_404(viewer):
    entry_id = viewer.remember("Quote CSV fields")
    moved = viewer.client.get(f"/memories/{entry_id[:6]}")
    assert moved.status_code == 303 and moved.headers["location"] == f"/memories/{entry_id}"
    missing = viewer.client.get("/memories/ffffffffffffffff")
    assert missing.status_code == 404 and "No such memory" in missing.text
    malformed = viewer.client.get("/memories/not-an-id")
    assert malformed.status_code == 400 and 'id="flash"' in malformed.text


def test_only_http_references_become_links_and_never_leak(viewer):
    entry_id = viewer.remember("Read the spec", references=["https://example.org/spec?a=1&b=2", "javascript:alert(1)",
                                                              "src/app.py", "data:text/html,<b>x</b>"])
    text = viewer.client.get(f"/memories/{entry_id}").text
    assert ('<a href="https://example.org/spec?a=1&amp;b=2" rel="noopener noreferrer">'
            "https://example.org/spec?a=1&amp;b=2</a>") in text
    assert 'href="javascript' not in text and 'href="data:' not in text and 'href="src/' not in text
    assert "<span>javascript:alert(1)</span>" in text and "&lt;b&gt;x&lt;/b&gt;" in text


def test_hostile_text_renders_escaped_on_the_page(viewer):
    for name in HOSTILE:
        entry_id = viewer.remember(name, f"{name} in the description", reasoning=name, keywords=["x"])
        text = viewer.client.get(f"/memories/{entry_id}").text
        assert "<img src=x" not in text and "<script>" not in text
        assert "&lt;" in text


def test_bidi_and_control_characters_are_dropped_from_what_is_shown(viewer):
    entry_id = viewer.remember("Safe \u202eemanlicxe\u202c name\x1b[31m red")
    text = viewer.client.get(f"/memories/{entry_id}").text
    assert "\u202e" not in text and "\x1b" not in text and "Safe emanlicxe name red" in text


def test_a_retired_memory_says_when_why_and_by_what_it_was_superseded(viewer):
    old = viewer.remember("Use tabs in CSV")
    new = viewer.service.remember("Quote CSV fields", "Quote CSV fields rather than switching to tabs.",
                                  supersedes=old).entry_id
    page = viewer.client.get(f"/memories/{old}")
    assert page.status_code == 200 and "<strong>retired</strong>" in page.text
    assert f'<a href="/memories/{new}" id="superseded-by">{new}</a>' in page.text
    assert 'id="action-restore"' in page.text and 'id="action-retire"' not in page.text
    assert "superseded" in page.text.split('id="history"')[1], "the history shows the change"
