"""The benchmark's world: a generated git repository of small Python files, learnings citing them (a file, a line
or a function), their anchors taken there, and then a working week: files renamed, deleted and edited."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Sequence

FUNCTIONS_PER_FILE = 6
CHANGES = {"renamed": 0.02, "deleted": 0.02, "edited": 0.05}
"""Shares of the cited files changed after the learnings were written (a few days of work)."""


def git(root: Path, *args: str) -> None:
    """git in the generated repository with a fixed identity and no user or system configuration."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    subprocess.run(["git", "-C", str(root), *args], env=env, check=True, capture_output=True, timeout=600)


def source(index: int) -> str:
    """One generated module: a docstring and FUNCTIONS_PER_FILE small functions."""
    parts = [f'"""Module {index}: parsing helpers."""\n']
    for j in range(FUNCTIONS_PER_FILE):
        parts.append(f"\n\ndef step_{j}(rows, limit={j + 1}):\n    kept = [r for r in rows if len(r) > {j}]\n"
                     f"    return kept[:limit] + [{index}, {j}]\n")
    return "".join(parts)


def write_files(project: Path, count: int) -> list[str]:
    """`count` modules under src/ (ten per package), committed; their repository-relative paths."""
    paths = [f"src/pkg{i // 10:03d}/mod{i % 10}.py" for i in range(count)]
    for i, path in enumerate(paths):
        target = project / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source(i), encoding="utf-8")
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "generated code")
    return paths


def references(paths: Sequence[str], entries: int, seed: int = 7) -> list[list[str]]:
    """One to three references per entry: a whole file, a line or a function, drawn from `paths`."""
    rng = random.Random(seed)
    chosen = []
    for _ in range(entries):
        refs = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            path = rng.choice(paths)
            kind = rng.random()
            if kind < 0.5:
                refs.append(path)
            elif kind < 0.75:
                refs.append(f"{path}:{rng.randint(3, 30)}")
            else:
                refs.append(f"{path}#step_{rng.randrange(FUNCTIONS_PER_FILE)}")
        chosen.append(list(dict.fromkeys(refs)))
    return chosen


def anchor_json(project: Path, cited: list[list[str]]) -> list[str]:
    """Each entry's anchors (the product's own `anchors_for` and row format), taken in the repository now."""
    from memory_adapters.project.git_code_files import GitCodeFiles, head_commit
    from memory_adapters.project.identity import project_identity
    from memory_adapters.store.sql.rows import anchors_json
    from memory_core.usecases.check_anchors import anchors_for

    files, identity, commit = GitCodeFiles(str(project)), project_identity(str(project)), head_commit(str(project))
    taken: dict[str, tuple] = {}
    rows = []
    for refs in cited:
        for ref in refs:
            if ref not in taken:
                taken[ref] = anchors_for([ref], files, identity, commit)
        rows.append(anchors_json(tuple(a for ref in refs for a in taken[ref])))
    return rows


def change_files(project: Path, paths: Sequence[str], seed: int = 13) -> dict[str, int]:
    """Rename, delete and edit shares of the files (CHANGES), committed as a few days of work would be."""
    rng = random.Random(seed)
    shuffled = list(paths)
    rng.shuffle(shuffled)
    counts = {kind: max(1, int(share * len(paths))) for kind, share in CHANGES.items()}
    renamed = shuffled[:counts["renamed"]]
    deleted = shuffled[counts["renamed"]:counts["renamed"] + counts["deleted"]]
    edited = shuffled[counts["renamed"] + counts["deleted"]:sum(counts.values())]
    for path in renamed:
        git(project, "mv", path, path.replace(".py", "_renamed.py"))
    git(project, "rm", "-q", *deleted)
    for path in edited:
        with open(project / path, "a", encoding="utf-8") as out:
            out.write("\n\ndef added_later():\n    return None\n")
    git(project, "commit", "-qam", "a few days of work")
    return counts


def write_anchors(db: Path, ids: Sequence[str], anchors: Sequence[str]) -> None:
    """Put each entry's anchors in its row (one transaction; the column the store's migration added)."""
    conn = sqlite3.connect(str(db), isolation_level=None)
    conn.execute("BEGIN")
    conn.executemany("UPDATE entries SET anchors = ? WHERE id = ?", list(zip(anchors, ids)))
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def copy_store(source: Path, target: Path) -> None:
    """A second global store with the same database and vector cache."""
    shutil.copytree(source, target)


def cited_rows(rows: list[tuple], cited: list[list[str]]) -> list[tuple]:
    """The synthetic rows with their `references` column filled (the index the fixtures' ROW_COLUMNS give it)."""
    return [row[:6] + (json.dumps(refs),) + row[7:] for row, refs in zip(rows, cited)]
