"""The keyword tiers the apps build show a failing tier to the user (the core only reports it)."""

from __future__ import annotations

from memory_adapters.keywords.extractive_keyword_generator import LocalExtractiveKeywordGenerator
from tests.adapters.test_extractive_keyword_generator import PIN


def test_the_apps_tiers_show_a_failing_tier_on_stderr_and_store_no_keywords(monkeypatch, capsys):
    """The core only reports a tier's failure; the keyword tiers the apps build print it for the user."""
    from memory_apps.wiring.adapters import keyword_tiers
    from memory_core.errors import KeywordGenerationError

    def offline(self, name, description, reasoning, category):
        raise KeywordGenerationError("model offline")

    monkeypatch.setattr(LocalExtractiveKeywordGenerator, "generate", offline)
    assert keyword_tiers("local").generate(*PIN) == []
    assert capsys.readouterr().err == "iflow-memory: keyword tier local failed: KeywordGenerationError\n"
