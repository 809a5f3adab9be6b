"""Spec 001 AC1 with the real local model (all-MiniLM-L6-v2 int8, offline).

The two 50-entry banks of _parser_banks are imported and embedded through the CLI. For a session whose active
feature is "building a file parser with error handling", the injector must pick the parser entries and say that
semantic retrieval ran. In the synonyms bank the parser entries share no word with the context: there keyword +
prominence is blind and the local model must do strictly better.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests._helpers import (
    SEMANTIC_ACTIVE, db_rows, diagnostic_line, entry_names, model_env, run_in_process, run_module,
    write_active_feature, write_settings,
)
from tests.integration._parser_banks import (
    BANKS, CONTEXT, FILE_TITLES, PARSER_NAMES, PARSER_SYNONYMS, SLUG, write_bank,
)

pytestmark = pytest.mark.slow

LIMIT = 25
EMBEDDING_BYTES = 384 * 4
# The context query's searchable words ("a" and "with" are FTS stopwords).
CONTEXT_WORDS = {"file", "parser", "building", "error", "handling", "design"}


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    """Both banks imported and embedded once (local model) in their own project and store."""
    root = tmp_path_factory.mktemp("semantic-local")
    home = root / "home"
    home.mkdir()
    built = {}
    for variant, entries in BANKS.items():
        project = root / variant / "parser-service"
        store = root / variant / "store"
        write_bank(project, entries)
        write_active_feature(project, "001-file-parser", SLUG,
                             f"# Spec: file parser\n\n{CONTEXT}\n\n## Scope\n\nOne input format, line-oriented.\n",
                             lastCompletedPhase="design")
        write_settings(project, embedding_provider="local")
        imported = run_in_process("memory_apps.cli", ["import", "--project-root", project, "--global-store", store],
                                  home, env=model_env(root))
        assert imported.returncode == 0, imported.stderr
        assert "0 skipped" in imported.stdout, imported.stdout
        assert db_rows(store / "memory.db", "SELECT COUNT(*) FROM entries") == [(50,)]
        embedded_run = run_in_process("memory_apps.cli", ["embed", "--project-root", project, "--global-store",
                                                          store], home, env=model_env(root))
        assert embedded_run.returncode == 0, embedded_run.stderr
        assert "0 remaining" in embedded_run.stdout, embedded_run.stdout
        sizes = db_rows(store / "memory.db", "SELECT LENGTH(embedding) FROM entries")
        assert sorted(sizes) == [(EMBEDDING_BYTES,)] * 50
        built[variant] = (project, store)
    return root, home, built


def inject(embedded, variant: str, provider: str, tmp_path: Path) -> str:
    """Run the injector on a fresh copy of the variant's project and store (recall counts stay untouched)."""
    root, home, built = embedded
    project, store = built[variant]
    run_dir = tmp_path / f"{variant}-{provider}"
    project_copy = run_dir / project.name
    store_copy = run_dir / "store"
    shutil.copytree(project, project_copy)
    shutil.copytree(store, store_copy)
    write_settings(project_copy, embedding_provider=provider)
    result = run_module("memory_apps.injector", ["--project-root", project_copy, "--global-store", store_copy,
                                                 "--limit", LIMIT], home, env=model_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def parser_hits(block: str, variant: str) -> int:
    return sum(1 for name in entry_names(block) if name in PARSER_NAMES[variant])


def test_fixture_banks_are_shaped_as_the_spec_says():
    for entries in BANKS.values():
        assert len(entries) == 50
        assert len({d for _, _, d in entries}) == 50, "descriptions are the ids: they must be unique"
        per_category = {c: sum(1 for cat, _, _ in entries if cat == c) for c in FILE_TITLES}
        assert all(count >= 10 for count in per_category.values()), per_category
    context_words = words(f"{SLUG} {CONTEXT} design") - {"a", "with"}
    assert context_words == CONTEXT_WORDS
    stems = ("file", "pars", "build", "error", "handl", "design")
    for _, name, description in PARSER_SYNONYMS:
        text_words = words(f"{name} {description}")
        assert not text_words & context_words, (name, text_words & context_words)
        assert not [w for w in text_words if w.startswith(stems)], name


def test_local_model_injects_the_parser_entries(embedded, tmp_path):
    """AC1: >= 15 of the 20 parser entries among 25 injected, with vectors really used."""
    block = inject(embedded, "plain", "local", tmp_path)

    diagnostic = diagnostic_line(block)
    match = SEMANTIC_ACTIVE.search(diagnostic)
    assert match, diagnostic
    assert int(match.group(1)) > 0, diagnostic
    assert "model: all-MiniLM-L6-v2-int8*" in diagnostic
    assert 'context: "file-parser: Building a file p..."' in diagnostic
    assert "pending_embedding" not in diagnostic
    assert len(entry_names(block)) == LIMIT
    assert parser_hits(block, "plain") >= 15, entry_names(block)


def test_keyword_and_prominence_without_a_provider(embedded, tmp_path):
    """`memory_embedding_provider: none`: vectors are off and say why; FTS5 still finds the parser entries."""
    block = inject(embedded, "plain", "none", tmp_path)

    diagnostic = diagnostic_line(block)
    assert "semantic: off (vector=0, fts5=" in diagnostic, diagnostic
    assert "vector: memory_embedding_provider is none" in diagnostic
    assert "model: none*" in diagnostic
    fts5 = int(re.search(r"fts5=(\d+)", diagnostic).group(1))
    # FTS5 finds exactly the entries that contain one of the context's words (no stemming).
    assert fts5 == sum(1 for _, n, d in BANKS["plain"] if words(f"{n} {d}") & CONTEXT_WORDS), diagnostic
    assert len(entry_names(block)) == LIMIT
    assert parser_hits(block, "plain") >= 15, entry_names(block)


def test_local_model_beats_keywords_when_no_word_is_shared(embedded, tmp_path):
    """The synonym bank: FTS5 cannot see the parser entries, the local model still can."""
    local_block = inject(embedded, "synonyms", "local", tmp_path)
    keyword_block = inject(embedded, "synonyms", "none", tmp_path)

    local_diagnostic = diagnostic_line(local_block)
    assert SEMANTIC_ACTIVE.search(local_diagnostic) and "vector=0," not in local_diagnostic, local_diagnostic
    keyword_diagnostic = diagnostic_line(keyword_block)
    assert "semantic: off" in keyword_diagnostic, keyword_diagnostic
    fts5 = int(re.search(r"fts5=(\d+)", keyword_diagnostic).group(1))
    assert fts5 == sum(1 for _, n, d in BANKS["synonyms"] if words(f"{n} {d}") & CONTEXT_WORDS), keyword_diagnostic
    local_hits = parser_hits(local_block, "synonyms")
    keyword_hits = parser_hits(keyword_block, "synonyms")
    assert local_hits > keyword_hits, (local_hits, keyword_hits)
    assert local_hits >= 15, entry_names(local_block)

