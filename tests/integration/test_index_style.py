"""`memory_injection_style: index` end to end (issue 23): a real session start prints the best five in full and
one line for the rest; only what was printed in full counts as recalled; `iflow-memory show` and the library's
`get_many` read the listed entries back by the ids the block printed."""

from __future__ import annotations

import re

import pytest

from memory_core.ranking.disclosure import INDEX_FULL_ENTRIES
from tests._helpers import demo_shop, run_in_process, run_injector, write_settings

pytestmark = pytest.mark.slow

LINE = re.compile(r"^- ([0-9a-f]{16}) — (.+)$", re.MULTILINE)
DEMO_ENTRIES = 12


@pytest.fixture
def shop(tmp_path):
    home, project, store = demo_shop(tmp_path)
    write_settings(project, embedding_provider="none", injection_style="index")
    return home, project, store


def test_a_session_start_prints_five_in_full_and_lists_the_rest_by_id(shop):
    from memory_apps.service import MemoryService

    home, project, store = shop

    result = run_injector(project, store, home)

    assert result.returncode == 0, result.stderr
    block = result.stdout
    listed = LINE.findall(block)
    assert len(listed) == DEMO_ENTRIES - INDEX_FULL_ENTRIES
    assert len(re.findall(r"^- Confidence: ", block, re.MULTILINE)) == INDEX_FULL_ENTRIES
    assert f"*{len(listed)} entries are listed by id and name only" in block
    with MemoryService(str(store), str(project)) as service:
        recalls = {e.id: e.recall_count for e in service.entries()}
        found = service.get_many([entry_id for entry_id, _ in listed])
    assert not found.not_found and [e.name for e in found.entries] == [name for _, name in listed]
    listed_ids = {entry_id for entry_id, _ in listed}
    assert {i: n for i, n in recalls.items() if i in listed_ids} == dict.fromkeys(listed_ids, 0), \
        "named, not read: no recall"
    assert sorted(n for i, n in recalls.items() if i not in listed_ids) == [1] * INDEX_FULL_ENTRIES


def test_show_reads_an_entry_by_the_id_an_index_line_prints(shop):
    home, project, store = shop
    block = run_injector(project, store, home).stdout
    entry_id, name = LINE.findall(block)[-1]

    shown = run_in_process("memory_apps.cli", ["show", entry_id, "--project-root", project, "--global-store", store,
                                               "--json"], home)

    assert shown.returncode == 0, shown.stderr
    assert f'"id": "{entry_id}"' in shown.stdout and f'"name": "{name}"' in shown.stdout
    assert '"description": "' in shown.stdout
