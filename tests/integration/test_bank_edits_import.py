"""Edit-aware import end to end (issue 24, done-when): a bank written by hand is imported, a session recalls its
learnings, a description is edited and the bank imported again: one entry, the new text, the old counts, the
old id still found by `show`, and the session block shows the learning once. A block removed from the bank is
retired (kept) and comes back with its counts when the block does; a heading renamed with a new text is a new
learning and the old one retires."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests._helpers import run_in_process, run_injector, write_settings

pytestmark = pytest.mark.slow

HEURISTICS = """# Heuristics

### Heuristic: Fast unit tests
Keep unit tests under a second so they run on every save.
- Observation count: 2

### Heuristic: Small commits
Commit one idea at a time so a revert takes one step.
"""

PATTERNS = """# Patterns

### Pattern: Parser errors name the line
Report parser errors with the line number of the bad input.
- Observation count: 3

### Pattern: Retry with backoff
Retry network calls with exponential backoff and a cap.
"""

ANTI_PATTERNS = """# Anti-Patterns

### Anti-Pattern: Splitting CSV by hand
Never split CSV rows on commas by hand; quoted fields contain commas.
"""

EDITED = "Report parser errors with the line and column of the bad input."
COUNTS = re.compile(r"Bank edits: (\d+) edited \(.*?\), (\d+) retired")


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "app"
    bank = root / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "heuristics.md").write_text(HEURISTICS, encoding="utf-8")
    (bank / "patterns.md").write_text(PATTERNS, encoding="utf-8")
    (bank / "anti-patterns.md").write_text(ANTI_PATTERNS, encoding="utf-8")
    write_settings(root, embedding_provider="none")
    return root


def cli(home, *args):
    result = run_in_process("memory_apps.cli", [str(a) for a in args], home)
    assert result.returncode == 0, (result.stdout, result.stderr)
    return result.stdout


def import_bank(project, store, home) -> tuple[int, int]:
    out = cli(home, "import", "--project-root", project, "--global-store", store)
    match = COUNTS.search(out)
    assert match, out
    return int(match.group(1)), int(match.group(2))


def entries(backend, store) -> dict[str, tuple]:
    rows = backend.rows(store, "SELECT name, id, description, observation_count, recall_count FROM entries")
    return {name: tuple(rest) for name, *rest in rows}


def edit_bank(project, name, old, new) -> None:
    path = project / "docs" / "knowledge-bank" / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_an_edited_description_leaves_one_entry_with_the_new_text_and_the_old_counts(project, tmp_path,
                                                                                      isolated_home, backend):
    store = tmp_path / "store"
    assert import_bank(project, store, isolated_home) == (0, 0)
    shown = run_injector(project, store, isolated_home)  # the session recalls what it shows
    assert shown.returncode == 0, shown.stderr
    name = "Parser errors name the line"
    old_id, _, observed, recalled = entries(backend, store)[name]
    assert (observed, recalled) == (3, 1)

    edit_bank(project, "patterns.md", "with the line number of the bad input.", "with the line and column of the "
                                                                                "bad input.")
    assert import_bank(project, store, isolated_home) == (1, 0)

    now = entries(backend, store)
    assert len(now) == 5 and [n for n in now if n == name] == [name]
    new_id, description, observed, recalled = now[name]
    assert (description, observed, recalled) == (EDITED, 3, 1) and new_id != old_id
    shown_old = json.loads(cli(isolated_home, "show", old_id, "--json", "--global-store", store,
                               "--project-root", project))
    assert shown_old["id"] == new_id and shown_old["description"] == EDITED
    block = run_injector(project, store, isolated_home).stdout
    assert block.count("Parser errors name the line") == 1 and EDITED in block
    assert import_bank(project, store, isolated_home) == (0, 0), "an edit is applied once"


def test_a_removed_block_is_retired_not_deleted_and_comes_back_with_its_counts(project, tmp_path, isolated_home,
                                                                               backend):
    store = tmp_path / "store"
    import_bank(project, store, isolated_home)
    run_injector(project, store, isolated_home)
    before = entries(backend, store)["Small commits"]
    small = "### Heuristic: Small commits\nCommit one idea at a time so a revert takes one step.\n"

    edit_bank(project, "heuristics.md", small, "")
    assert import_bank(project, store, isolated_home) == (0, 1)

    assert "Small commits" not in entries(backend, store)
    reason = backend.rows(store, "SELECT reason FROM retired_entries WHERE id = ?", (before[0],))
    tombstones = backend.rows(store, "SELECT COUNT(*) FROM deleted_entries")
    assert (reason, tombstones) == ([("removed from heuristics.md",)], [(0,)])
    assert "Small commits" not in run_injector(project, store, isolated_home).stdout

    edit_bank(project, "heuristics.md", "# Heuristics\n", "# Heuristics\n\n" + small)
    out = cli(isolated_home, "import", "--project-root", project, "--global-store", store)
    assert "1 restored" in out, out
    assert entries(backend, store)["Small commits"] == before


def test_a_renamed_heading_with_a_new_text_is_a_new_learning_and_the_old_one_retires(project, tmp_path,
                                                                                    isolated_home, backend):
    store = tmp_path / "store"
    import_bank(project, store, isolated_home)
    edit_bank(project, "patterns.md", "### Pattern: Retry with backoff\nRetry network calls with exponential "
                                      "backoff and a cap.",
              "### Pattern: Jitter\nAdd jitter to retries so clients do not retry in step.")
    assert import_bank(project, store, isolated_home) == (0, 1)
    names = set(entries(backend, store))
    assert "Jitter" in names and "Retry with backoff" not in names

    edit_bank(project, "patterns.md", "### Pattern: Jitter", "### Pattern: Retry jitter")  # same text, new heading
    assert import_bank(project, store, isolated_home) == (0, 0)
    assert len(entries(backend, store)) == 5
