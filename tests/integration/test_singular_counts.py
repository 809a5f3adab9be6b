"""A count of one reads as one: "imported 1 new entry", a database of "1 entry" (issue 21, item 4.13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests._helpers import run_app, run_injector, write_settings

pytestmark = pytest.mark.slow

BANK = "# Heuristics\n\n### Test first\nRun the unit tests before every commit, and keep them fast.\n"


def _one_entry_project(tmp_path: Path) -> Path:
    project = tmp_path / "app"
    (project / "docs" / "knowledge-bank").mkdir(parents=True)
    (project / "docs" / "knowledge-bank" / "heuristics.md").write_text(BANK, encoding="utf-8")
    write_settings(project, embedding_provider="none")
    return project


def test_one_imported_entry_is_singular_in_the_session_and_in_doctor(tmp_path):
    home, store = tmp_path / "home", tmp_path / "store"
    home.mkdir()
    project = _one_entry_project(tmp_path)
    session = run_injector(project, store, home)
    assert session.returncode == 0
    assert "imported 1 new entry from markdown" in session.stderr, session.stderr
    doctor = run_app("memory_apps.cli", ["doctor", "--project-root", project, "--global-store", store], home)
    assert "(1 entry)" in doctor.stdout, doctor.stdout
