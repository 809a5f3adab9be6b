"""`iflow-memory import`: counts, idempotence on real knowledge banks, and every --help (all in-process). Two
banks into one store, each imported twice, run on both stores (`backend`); the local model's vectors are the same
whatever stores them, so head's idempotence with the model is SQLite's, and so is a store under a regular file."""

from __future__ import annotations

import re

import pytest

from tests.conftest import shared_fixture
from tests._helpers import copy_bank, db_rows, run_in_process, write_settings

pytestmark = pytest.mark.slow

V024_ENTRIES = 48   # 51 `### ` blocks, 3 of them format examples inside HTML comments
HEAD_ENTRIES = 265  # 268 `### ` blocks in the three category files, 3 inside HTML comments
COUNTS = re.compile(r"(\d+) new, (\d+) updated, (\d+) unchanged, (\d+) skipped")
STATE_SQL = ("SELECT id, name, category, observation_count, recall_count, last_recalled_at, confidence, "
             "updated_at, keywords FROM entries ORDER BY id")


def import_bank(project, store, home):
    result = run_in_process("memory_apps.cli", ["import", "--project-root", project, "--global-store", store], home)
    assert result.returncode == 0, result.stderr
    match = COUNTS.search(result.stdout)
    assert match, result.stdout
    return tuple(int(n) for n in match.groups())


def project_with(tmp_path, name, version, **settings):
    project = tmp_path / name
    project.mkdir()
    copy_bank(shared_fixture("knowledge-bank", version), project)
    if settings:
        write_settings(project, **settings)
    return project


def test_v024_then_head_into_one_store(tmp_path, isolated_home, backend):
    store = tmp_path / "global-store"
    # Counting only: no vectors (the idempotence test below runs with the default provider).
    v024 = project_with(tmp_path, "app-v024", "v024", embedding_provider="none")
    head = project_with(tmp_path, "app-head", "head", embedding_provider="none")

    assert import_bank(v024, store, isolated_home) == (V024_ENTRIES, 0, 0, 0)
    assert import_bank(v024, store, isolated_home) == (0, 0, V024_ENTRIES, 0)
    new, updated, unchanged, skipped = import_bank(head, store, isolated_home)

    assert skipped == 0
    assert new + updated + unchanged == HEAD_ENTRIES
    assert new < HEAD_ENTRIES, "head keeps most of v024's entries: they must be matched, not re-added"
    assert backend.rows(store, "SELECT COUNT(*) FROM entries") == [(V024_ENTRIES + new,)]
    assert import_bank(head, store, isolated_home) == (0, 0, HEAD_ENTRIES, 0)
    # v024 entries keep the project they were first imported from.
    projects = dict(backend.rows(store, "SELECT source_project, COUNT(*) FROM entries GROUP BY source_project"))
    assert projects == {"app-v024": V024_ENTRIES, "app-head": new}


def test_head_import_is_idempotent(tmp_path, isolated_home):
    store = tmp_path / "global-store"
    head = project_with(tmp_path, "app-head", "head")
    db = store / "memory.db"

    first = import_bank(head, store, isolated_home)
    assert first == (HEAD_ENTRIES, 0, 0, 0)
    assert db_rows(db, "SELECT COUNT(*) FROM entries") == [(HEAD_ENTRIES,)]
    assert db_rows(db, "SELECT COUNT(*) FROM entries WHERE source != 'import'") == [(0,)]
    before = db_rows(db, STATE_SQL)

    second = import_bank(head, store, isolated_home)

    assert second[:2] == (0, 0)
    assert second == (0, 0, HEAD_ENTRIES, 0)
    assert db_rows(db, STATE_SQL) == before


def test_import_reads_the_global_store_markdown(tmp_path, isolated_home):
    store = tmp_path / "global-store"
    store.mkdir()
    for md in shared_fixture("legacy", "global-store").glob("*.md"):
        (store / md.name).write_bytes(md.read_bytes())
    empty_project = tmp_path / "empty"
    empty_project.mkdir()

    new, updated, unchanged, skipped = import_bank(empty_project, store, isolated_home)

    assert new > 0 and (updated, unchanged, skipped) == (0, 0, 0)
    assert db_rows(store / "memory.db", "SELECT COUNT(*), COUNT(source_project) FROM entries") == [(new, 0)]


def test_import_into_an_unusable_store_exits_2(tmp_path, isolated_home):
    blocker = tmp_path / "a-file"
    blocker.write_text("x\n", encoding="utf-8")
    head = project_with(tmp_path, "app-head", "head")

    result = run_in_process("memory_apps.cli", ["import", "--project-root", head, "--global-store",
                                                blocker / "store"], isolated_home)

    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "database error" in result.stderr


def _cli_commands() -> list[str]:
    """Every `iflow-memory` sub-command, read from its parser (inject, write, import, and any added later)."""
    import argparse

    from memory_apps.cli import build_parser

    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return sorted(action.choices)
    return []


HELP_TARGETS = [("memory_apps.injector", []), ("memory_apps.writer", []), ("memory_apps.cli", [])] + [
    ("memory_apps.cli", [command]) for command in _cli_commands()
]


def test_cli_has_the_documented_commands():
    assert {"inject", "write", "import"} <= set(_cli_commands())


@pytest.mark.parametrize("module, argv", HELP_TARGETS,
                         ids=[" ".join([m.split(".")[-1], *a]) for m, a in HELP_TARGETS])
def test_help_exits_0_with_examples(tmp_path, isolated_home, module, argv):
    result = run_in_process(module, [*argv, "--help"], isolated_home, cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    assert "example" in result.stdout
    runnable = "iflow-memory" if module == "memory_apps.cli" else f"python -m {module}"
    assert result.stdout.startswith(" ".join(["usage:", runnable, *argv]) + " "), result.stdout[:200]
    assert "exit status" in result.stdout, "every help says what its exit statuses mean"
    assert list(tmp_path.iterdir()) == [isolated_home], "--help must not create files"
