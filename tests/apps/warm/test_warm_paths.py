"""Where the warm socket lives: under the store when the path fits AF_UNIX, else a private per-user directory."""

from __future__ import annotations

import os

from memory_apps.warm import paths
from memory_apps.warm.paths import SUN_PATH_MAX, socket_path


def deep_store(base) -> str:
    """A store whose `warm/hooks.sock` is longer than AF_UNIX allows."""
    path = base / ("d" * 60) / ("e" * 60)
    path.mkdir(parents=True)
    return str(path)


def test_a_short_store_keeps_its_socket_under_warm(store):
    assert socket_path(str(store)) == os.path.join(str(store), "warm", "hooks.sock")


def test_a_deep_store_falls_back_to_the_runtime_dir_with_a_hashed_name(tmp_path, short_runtime_dirs):
    path = socket_path(deep_store(tmp_path))

    assert os.path.dirname(path) == str(short_runtime_dirs / "xdg" / "iflow-memory")
    assert len(os.fsencode(path)) <= SUN_PATH_MAX
    assert "e" * 10 not in path


def test_without_a_runtime_dir_the_fallback_is_per_user_under_tmp(tmp_path, short_runtime_dirs, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR")

    path = socket_path(deep_store(tmp_path))

    assert os.path.dirname(path) == str(short_runtime_dirs / "tmp" / f"iflow-memory-{os.geteuid()}")


def test_the_hashed_name_follows_the_stores_real_path(tmp_path):
    real = deep_store(tmp_path)
    other = tmp_path / ("o" * 120)
    other.mkdir()
    link = tmp_path / ("l" * 120)
    link.symlink_to(real)

    assert socket_path(str(link)) == socket_path(real)
    assert socket_path(str(other)) != socket_path(real)


def test_the_code_version_changes_when_any_module_or_the_environment_does(tmp_path, monkeypatch):
    for relative in ("memory_apps/__init__.py", "memory_core/usecases/recall.py", "memory_adapters/x.py"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("x = 1\n")
    monkeypatch.setattr(paths, "_SOURCE_ROOT", str(tmp_path))
    before = paths.code_version()

    (tmp_path / "memory_core" / "usecases" / "recall.py").write_text("x = 22\n")
    edited = paths.code_version()
    assert edited != before

    monkeypatch.setenv("IFLOW_MEMORY_DATABASE_URL", "postgresql://localhost/other")
    assert paths.code_version() != edited  # a hook with another store URL needs a server of its own
    monkeypatch.delenv("IFLOW_MEMORY_DATABASE_URL")
    monkeypatch.setenv("IFLOW_MEMORY_HOOK_DEADLINE_S", "5")
    assert paths.code_version() == edited  # the hook's own deadline is not the server's business