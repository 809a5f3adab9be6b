"""The viewer on either store the CLI may use (SQLite, the team's PostgreSQL): list, filter, sort, page, search,
open a memory and change it, the same way."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.apps.web.conftest import make_viewer
from tests._helpers import write_settings

pytestmark = pytest.mark.slow


@pytest.fixture
def on_backend(tmp_path, isolated_home, backend, monkeypatch):
    from memory_apps.service import MemoryService

    for key, value in backend.env.items():
        monkeypatch.setenv(key, value)
    project = tmp_path / "bank-app"
    project.mkdir()
    write_settings(project, embedding_provider="none")
    with MemoryService(global_store=str(tmp_path / "store"), project_root=str(project), tool="ui",
                       create=True) as service:
        yield make_viewer(service)


def test_list_search_open_and_retire_on_each_store(on_backend, backend):
    viewer = on_backend
    ids = [viewer.remember(f"Rule {letter} for CSV exports", category=category)
           for letter, category in zip("ABC", ("patterns", "heuristics", "patterns"))]
    listed = viewer.client.get("/memories?category=patterns&sort=-name")
    assert re.findall(r'<tr data-id="([0-9a-f]{16})">', listed.text) == [ids[2], ids[0]]
    assert "page 1 of 1 · 2 memories" in listed.text
    footer = re.search(r'<footer class="store" id="store">store: (\S+) ([^<]+)</footer>', listed.text)
    assert footer and footer[1] == ("PostgreSQL" if backend.is_postgres else "SQLite"), "the page names its store"
    assert footer[2] == backend.location(Path(viewer.service.global_store)), "a URL's password masked"
    found = viewer.client.get("/memories", params={"q": "rule B csv exports"})
    assert re.findall(r'<tr data-id="([0-9a-f]{16})">', found.text)[:1] == [ids[1]]
    assert viewer.client.get(f"/memories/{ids[1]}").status_code == 200
    assert viewer.post(f"/memories/{ids[1]}/retire", {"reason": "merged"}).status_code == 303
    retired = viewer.client.get("/memories?retired=1")
    assert re.findall(r'<tr data-id="([0-9a-f]{16})">', retired.text) == [ids[1]]
