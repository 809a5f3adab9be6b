"""AC7 degradation chain, run as the hook runs it: the injector always exits 0 with a usable block or nothing."""

from __future__ import annotations

import random
import re

import pytest

from memory_apps.session.injection import FENCE
from tests.conftest import shared_fixture
from tests._helpers import (
    copy_bank, diagnostic_line, entry_headers, run_injector, write_active_feature, write_settings,
)

pytestmark = pytest.mark.slow

TITLE = "## Engineering Memory (from knowledge bank)"


def _without_diagnostic(block: str) -> str:
    """The block with its `*Memory: ...*` line and the data fence under it (each with its blank line) removed."""
    assert FENCE in block, "a fallback block is fenced like a semantic one"
    return re.sub(r"\A(## [^\n]*\n\n)\*Memory:[^\n]*\*\n\n> Recalled notes[^\n]*\n\n", r"\1", block)


@pytest.fixture
def v024_project(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    copy_bank(shared_fixture("knowledge-bank", "v024"), project)
    return project


def test_corrupt_database_falls_back_to_markdown_and_keeps_the_file(tmp_path, isolated_home, v024_project):
    """AC7 (c): a database that is not SQLite -> markdown pipeline, exit 0, the file moved aside intact."""
    store = tmp_path / "global-store"
    store.mkdir()
    garbage = random.Random(7).randbytes(16384)
    (store / "memory.db").write_bytes(garbage)

    result = run_injector(v024_project, store, isolated_home, limit=20)

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(TITLE + "\n\n")
    diagnostic = diagnostic_line(result.stdout)
    assert diagnostic.startswith("*Memory:") and "semantic: fallback" in diagnostic, diagnostic
    assert "corrupt" in diagnostic
    # Apart from the diagnostic line, the fallback is exactly the reference markdown injector's output.
    golden = shared_fixture("legacy", "golden", "v024-local-limit20.txt").read_text(encoding="utf-8")
    assert _without_diagnostic(result.stdout) == golden
    moved = sorted(store.glob("memory.db.corrupt-*"))
    assert len(moved) == 1 and moved[0].read_bytes() == garbage, "a corrupt database is moved aside, never deleted"
    assert not (store / "memory.db").exists()
    assert "Traceback" not in result.stderr


def test_unusable_database_path_falls_back_to_markdown(tmp_path, isolated_home, v024_project):
    """AC7 (c): the database cannot even be created (the store path is under a regular file)."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a regular file\n", encoding="utf-8")
    store = blocker / "store"

    result = run_injector(v024_project, store, isolated_home, limit=20)

    assert result.returncode == 0, result.stderr
    diagnostic = diagnostic_line(result.stdout)
    assert "semantic: fallback" in diagnostic, diagnostic
    assert len(entry_headers(result.stdout)) == 20
    assert blocker.read_text(encoding="utf-8") == "a regular file\n"


@pytest.mark.parametrize("provider", ["none", "gemini", "openai", "voyage"])
def test_no_embedding_provider_uses_keywords_and_prominence(tmp_path, isolated_home, v024_project, provider):
    """AC7 (a): without a usable embedding provider (and no API keys) retrieval still works, no errors."""
    write_settings(v024_project, embedding_provider=provider)
    store = tmp_path / "global-store"
    store.mkdir()
    # Context signals so keyword search has something to match.
    write_active_feature(v024_project, "007-parser", "parser-rewrite",
                         "Rewrite the markdown parser with review iterations in mind.\n")

    result = run_injector(v024_project, store, isolated_home, limit=20)

    assert result.returncode == 0, result.stderr
    diagnostic = diagnostic_line(result.stdout)
    assert "semantic: active" not in diagnostic and "fallback" not in diagnostic, diagnostic
    fts5 = re.search(r"fts5=(\d+)", diagnostic)
    assert fts5 and int(fts5.group(1)) > 0, diagnostic
    assert len(entry_headers(result.stdout)) == 20
    assert "Traceback" not in result.stderr and "failed" not in result.stderr
    assert (store / "memory.db").is_file()


@pytest.mark.parametrize("bad_value", ["abc", "20.5", "true", "ten entries"])
def test_garbage_limit_warns_and_uses_default_20(tmp_path, isolated_home, bad_value):
    project = tmp_path / "proj"
    project.mkdir()
    copy_bank(shared_fixture("knowledge-bank", "head"), project)
    write_settings(project, semantic_enabled=False, injection_limit=bad_value)
    store = tmp_path / "global-store"
    store.mkdir()

    result = run_injector(project, store, isolated_home)  # no --limit: the config value decides

    assert result.returncode == 0
    assert "memory_injection_limit" in result.stderr and "20" in result.stderr, result.stderr
    golden = shared_fixture("legacy", "golden", "head-local-limit20.txt").read_text(encoding="utf-8")
    assert result.stdout == golden


def test_config_limit_applies_without_flag(tmp_path, isolated_home):
    project = tmp_path / "proj"
    project.mkdir()
    copy_bank(shared_fixture("knowledge-bank", "head"), project)
    write_settings(project, semantic_enabled=False, injection_limit=5)
    store = tmp_path / "global-store"
    store.mkdir(mode=0o700)  # private already: nothing to tighten, so nothing to say

    result = run_injector(project, store, isolated_home)

    assert result.returncode == 0, result.stderr
    assert result.stdout == shared_fixture("legacy", "golden", "head-local-limit5.txt").read_text(encoding="utf-8")
    assert result.stderr == ""


def test_garbage_values_everywhere_still_inject(tmp_path, isolated_home, v024_project):
    """Every setting garbled: each warns on stderr, the defaults (semantic on, limit 20) apply."""
    config = v024_project / ".claude" / "iflow-dev.local.md"
    config.parent.mkdir()
    config.write_bytes(
        b"memory_semantic_enabled: maybe\n"
        b"memory_injection_enabled: yes please\n"
        b"memory_injection_limit: abc\n"
        b"memory_vector_weight: 7\n"
        b"memory_embedding_provider: \xff\xfe-not-utf8\n"
    )
    store = tmp_path / "global-store"
    store.mkdir()

    result = run_injector(v024_project, store, isolated_home)

    assert result.returncode == 0
    for key in ("semantic_enabled", "injection_enabled", "injection_limit", "vector_weight", "embedding_provider"):
        assert f"memory_{key}" in result.stderr, (key, result.stderr)
    assert result.stdout.startswith(TITLE)
    assert len(entry_headers(result.stdout)) == 20
    assert "semantic: fallback" not in result.stdout


def test_unreadable_config_uses_defaults(tmp_path, isolated_home, v024_project):
    """A config path that cannot be read as a file (here: a directory) means defaults, not a crash."""
    (v024_project / ".claude" / "iflow-dev.local.md").mkdir(parents=True)
    store = tmp_path / "global-store"
    store.mkdir()

    result = run_injector(v024_project, store, isolated_home)

    assert result.returncode == 0, result.stderr
    assert len(entry_headers(result.stdout)) == 20
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("semantic", [True, False], ids=["semantic", "markdown"])
def test_no_knowledge_anywhere_prints_nothing(tmp_path, isolated_home, semantic):
    project = tmp_path / "proj"
    project.mkdir()
    write_settings(project, semantic_enabled=semantic)
    store = tmp_path / "global-store"
    store.mkdir()

    result = run_injector(project, store, isolated_home, limit=20)

    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert not (store / ".last-injection.json").exists()


@pytest.mark.parametrize("via_cli", [False, True], ids=["injector", "cli-inject"])
def test_missing_project_root_prints_nothing(tmp_path, isolated_home, via_cli):
    store = tmp_path / "global-store"
    store.mkdir()

    result = run_injector(tmp_path / "does" / "not" / "exist", store, isolated_home, limit=20, via_cli=via_cli)

    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "does").exists(), "the injector must not create the project directory"


@pytest.mark.parametrize("via_cli", [False, True], ids=["injector", "cli-inject"])
def test_bad_flags_still_exit_zero(tmp_path, isolated_home, via_cli):
    """The hook must never fail: even a malformed --limit exits 0 (cli: 'inject always exits 0')."""
    store = tmp_path / "global-store"
    store.mkdir()

    result = run_injector(tmp_path, store, isolated_home, limit="abc", via_cli=via_cli)  # type: ignore[arg-type]

    assert result.stdout == ""
    assert "--limit" in result.stderr
    assert result.returncode == 0
