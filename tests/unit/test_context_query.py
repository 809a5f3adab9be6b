"""Context query composition (spec 001 D2 step 1) and the diagnostic line's shortened query."""

from __future__ import annotations

from memory_core.ranking.context_query import compose_context_query, display_query
from memory_core.ports.context_source import ProjectContext


def test_full_context_format_collapses_description_whitespace():
    ctx = ProjectContext(feature_slug="parser", feature_description="Parse the  knowledge\nbank",
                         phase="implement", changed_files=["x.md"])
    assert compose_context_query(ctx) == "parser: Parse the knowledge bank. Phase: implement. Files: x.md"


def test_feature_without_description_or_phase():
    assert compose_context_query(ProjectContext(feature_slug="parser", changed_files=["a.py"])) == "parser. Files: a.py"


def test_description_is_capped_at_100_words():
    words = [f"w{i}" for i in range(150)]
    ctx = ProjectContext(feature_slug="f", feature_description=" ".join(words))
    query = compose_context_query(ctx)
    assert query == "f: " + " ".join(words[:100])


def test_files_are_capped_at_20():
    files = [f"src/file_{i}.py" for i in range(30)]
    query = compose_context_query(ProjectContext(feature_slug="f", feature_description="d", changed_files=files))
    assert query.endswith("Files: " + " ".join(files[:20]))
    assert "file_20.py" not in query


def test_files_only_without_active_feature():
    ctx = ProjectContext(changed_files=["src/a.py", "README.md"])
    assert compose_context_query(ctx) == "Files: src/a.py README.md"


def test_no_signals_gives_none():
    assert compose_context_query(ProjectContext()) is None
    assert compose_context_query(ProjectContext(changed_files=["", "  "])) is None


def test_display_query_truncates_to_30_chars_with_ellipsis():
    query = "024-semantic-memory: Rank memory by relevance. Phase: design"
    assert display_query(query) == query[:30] + "..."
    assert len(display_query(query)) == 33


def test_display_query_keeps_short_queries_whole():
    assert display_query("Files: a.py") == "Files: a.py"
    exactly_30 = "x" * 30
    assert display_query(exactly_30) == exactly_30


def test_display_query_without_query():
    assert display_query(None) == "none"
