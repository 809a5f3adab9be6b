"""Writers, imports and embeds killed at random points: database and markdown still agree, and a rebuild
from the markdown loses nothing the markdown carries (issue 11, item 2)."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from tests.integration._agreement import assert_agree, database_state
from tests._helpers import PYTHON, app_env, run_in_process, write_settings

pytestmark = pytest.mark.slow

WRITER = textwrap.dedent("""
    import random, sys
    from memory_apps.service import MemoryService

    store, project, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(seed)
    service = MemoryService(global_store=store, project_root=project)
    print("ready", flush=True)
    while True:
        n = rng.randrange(24)
        if rng.random() < 0.15:
            for entry in service.entries():
                if entry.description.startswith(f"Learning {n}:"):
                    service.delete(entry.id)
        else:
            service.remember(name=f"Learning {n}", description=f"Learning {n}: keep writes short and retry.",
                             reasoning=f"Seen by writer {seed} ({rng.randrange(1000)}).",
                             category=("patterns", "heuristics", "anti-patterns")[n % 3],
                             keywords=["sqlite", f"topic{n % 5}"])
""")

BANK = "# Patterns\n\n" + "\n\n".join(
    f"### Imported learning {i}\nImported learning {i}: read the bank before writing.\n- Observation count: {i + 1}"
    for i in range(40)) + "\n"


def _start(script: Path, store: Path, project: Path, seed: int, env: dict) -> subprocess.Popen:
    return subprocess.Popen([PYTHON, str(script), str(store), str(project), str(seed)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def _cli(args: list, env: dict, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([PYTHON, "-m", "memory_apps.cli", *map(str, args)], env=env, cwd=str(cwd),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_kill_writers_imports_and_embeds_at_random_points(tmp_path):
    home, project, store = tmp_path / "home", tmp_path / "app", tmp_path / "store"
    home.mkdir()
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text(BANK, encoding="utf-8")
    write_settings(project, embedding_provider="none")
    other = tmp_path / "other"  # a second project whose import and embed runs are killed too
    (other / "docs" / "knowledge-bank").mkdir(parents=True)
    (other / "docs" / "knowledge-bank" / "heuristics.md").write_text(
        BANK.replace("# Patterns", "# Heuristics").replace("Imported", "Other"), encoding="utf-8")
    # The other project embeds with the bundled local model: its `embed` runs store vectors for every entry
    # of the store (the writers' too) while the writers write, and are killed part-way.
    env = app_env(home)
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    rng = random.Random(20261123)
    writers = [_start(script, store, project, seed, env) for seed in range(3)]
    kills = 0
    try:
        for writer in writers:
            assert writer.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 12  # a budget for the suite; scripts/stress.py runs it for minutes
        while time.monotonic() < deadline or kills < 12:
            time.sleep(rng.uniform(0.05, 0.5))
            victim = rng.randrange(len(writers) + 1)
            if victim == len(writers):  # an import or embed of the other project, killed part-way
                command = rng.choice(["import", "embed"])
                side = _cli([command, "--global-store", store, "--project-root", other], env, other)
                time.sleep(rng.uniform(0.0, 2.5 if command == "embed" else 0.6))
                side.send_signal(signal.SIGKILL)
                side.wait()
            else:
                writers[victim].send_signal(signal.SIGKILL)
                writers[victim].wait()
                writers[victim] = _start(script, store, project, rng.randrange(10**6), env)
                writers[victim].stdout.readline()
            kills += 1
    finally:
        for writer in writers:
            writer.kill()
            writer.wait()
    # The next write (any process: this one) replays what the killed writers owed the markdown.
    final = run_in_process("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root",
                                                  project, "--entry-json",
                                                  '{"name": "After the crashes", "description": "Written after '
                                                  'every crash.", "category": "patterns"}'], home, cwd=project)
    assert final.returncode == 0, final.stderr
    db = store / "memory.db"
    state = database_state(db)
    mine = {i for i, fields in state.items() if not fields[1].startswith("Other learning")}
    other_ids = set(state) - mine
    assert len(mine) > 40, "the writers and the import stored entries"
    project_state = assert_agree_subset(db, mine, bank, store)
    # A rebuild from markdown alone (the database lost) gives back exactly what the markdown carries.
    shutil.move(str(db), str(tmp_path / "lost.db"))
    for suffix in ("-wal", "-shm"):
        if os.path.exists(str(db) + suffix):
            shutil.move(str(db) + suffix, str(tmp_path / f"lost.db{suffix}"))
    rebuilt = run_in_process("memory_apps.cli", ["import", "--global-store", store, "--project-root", project],
                             home, cwd=project)
    assert rebuilt.returncode == 0, rebuilt.stderr
    after = {i: f for i, f in database_state(db).items() if i in mine}
    assert after == project_state
    assert other_ids.isdisjoint(after)
    check = sqlite3.connect(str(db))
    assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    check.close()


def assert_agree_subset(db: Path, ids: set, *directories: Path) -> dict:
    """assert_agree restricted to this project's entries (the other project's bank is its own)."""
    import tests.integration._agreement as agreement

    state = agreement.database_state(db)
    markdown = agreement.markdown_ids(*directories)
    assert set(markdown) == ids, (sorted(ids - set(markdown))[:5], sorted(set(markdown) - ids)[:5])
    assert {i: state[i][4] for i in ids} == {i: markdown[i] for i in ids}
    return {i: state[i] for i in ids}
