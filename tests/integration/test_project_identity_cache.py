"""A session start knows its project without a git process when the answer cannot have changed (issue 21,
item 7): outside any repository git is not started, and in a checkout the identity is asked of git once per HEAD
commit. Whatever is remembered, the identity is the one git gives."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from memory_adapters.project.identity import project_identity
from memory_adapters.project.identity_cache import CACHE_FILENAME, remembered_project_identity
from tests._helpers import git, run_module, write_settings

pytestmark = pytest.mark.slow

BANK = "# Heuristics\n\n### Test first\nRun the unit tests before every commit, and keep them fast.\n"


def _recording_git(tmp_path: Path) -> tuple[Path, Path]:
    """A `git` first on PATH that logs its arguments and runs the real one: (its directory, the log)."""
    real = shutil.which("git")
    assert real, "git is needed for this test"
    folder, log = tmp_path / "bin", tmp_path / "git-calls.log"
    folder.mkdir()
    script = folder / "git"
    script.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    log.write_text("", encoding="utf-8")
    return folder, log


def _project(path: Path) -> Path:
    (path / "docs" / "knowledge-bank").mkdir(parents=True)
    (path / "docs" / "knowledge-bank" / "heuristics.md").write_text(BANK, encoding="utf-8")
    write_settings(path, embedding_provider="none")
    return path


def _session(project: Path, store: Path, home: Path, bin_dir: Path, ceiling: Path) -> str:
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "GIT_CEILING_DIRECTORIES": str(ceiling),
           "IFLOW_MEMORY_SESSION_DEADLINE_S": "60"}
    done = run_module("memory_apps.injector", ["--project-root", project, "--global-store", store], home, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _identity_lookups(log: Path) -> int:
    return sum(1 for line in log.read_text(encoding="utf-8").splitlines() if "rev-list" in line)


def test_a_session_outside_any_repository_starts_no_git(tmp_path):
    home, store = tmp_path / "home", tmp_path / "store"
    home.mkdir()
    bin_dir, log = _recording_git(tmp_path)
    project = _project(tmp_path / "plain" / "app")

    assert "Test first" in _session(project, store, home, bin_dir, tmp_path)  # the first one imports the bank
    log.write_text("", encoding="utf-8")
    assert "Test first" in _session(project, store, home, bin_dir, tmp_path)
    assert log.read_text(encoding="utf-8") == "", "no git process for a directory git would find no repository in"


def test_a_checkout_asks_git_for_its_identity_once_per_head_commit(tmp_path):
    home, store = tmp_path / "home", tmp_path / "store"
    home.mkdir()
    bin_dir, log = _recording_git(tmp_path)
    project = _project(tmp_path / "work" / "service")
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "first")

    assert "Test first" in _session(project, store, home, bin_dir, tmp_path)  # the first one imports the bank
    log.write_text("", encoding="utf-8")
    for _ in range(3):
        assert "Test first" in _session(project, store, home, bin_dir, tmp_path)
    assert _identity_lookups(log) == 0, log.read_text(encoding="utf-8")
    assert (store / CACHE_FILENAME).stat().st_mode & 0o777 == 0o600

    (project / "notes.txt").write_text("more\n", encoding="utf-8")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "second")
    for _ in range(2):
        assert "Test first" in _session(project, store, home, bin_dir, tmp_path), "still the same project"
    assert _identity_lookups(log) == 1, "a new HEAD commit is looked up once again"


def test_the_remembered_identity_is_the_one_git_gives(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("a\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    git(repo, "worktree", "add", "-q", str(tmp_path / "linked"))
    git(repo, "pack-refs", "--all")  # branches now only in packed-refs
    detached = tmp_path / "detached"
    git(repo, "worktree", "add", "-q", "--detach", str(detached))
    places = [repo, repo / "sub", tmp_path / "linked", detached, tmp_path / "no-repo"]
    (tmp_path / "no-repo").mkdir()
    project_identity.cache_clear()
    expected = [project_identity(str(place)) for place in places]
    assert expected[0].startswith("git:") and expected[-1] == f"path:{os.path.realpath(tmp_path / 'no-repo')}"
    for _ in range(2):  # asked, then remembered
        assert [remembered_project_identity(str(place), str(store)) for place in places] == expected

    (store / CACHE_FILENAME).write_text("{not json", encoding="utf-8")
    assert remembered_project_identity(str(repo), str(store)) == expected[0], "a damaged cache is only a cache"
