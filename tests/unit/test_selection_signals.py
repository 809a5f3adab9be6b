"""The signals a session start's selection carries for the journal: each present only where the ranking computed
it, on 0-1 scales."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory_core.entries.models import Entry, EntryDraft
from memory_core.entries.records import EntryStats
from memory_core.ranking.relevance_signals import COSINE, WORD_SHARE
from memory_core.ranking.scoring import prominence
from memory_core.ranking.selection_signals import PROMINENCE, REFERENCE_MATCH, selection_signals
from tests.fakes import T0


def make_entry(name: str, obs: int = 1, references=()) -> Entry:
    draft = EntryDraft(name=name, description=f"{name}, described at length", category="patterns",
                       observation_count=obs, references=list(references))
    return Entry.from_draft(draft, T0 - timedelta(days=3))


def test_cosine_word_share_references_and_prominence_when_computed():
    parser = make_entry("csv parser quoting", obs=2, references=["src/ingest/csv_reader.py:40"])
    other = make_entry("deploy rollback", obs=4)
    stats = [EntryStats.of(parser), EntryStats.of(other)]
    found = selection_signals([parser], "csv parser tests", {parser.id: 0.61}, stats, T0,
                              ["src/ingest/csv_reader.py"])
    assert found[parser.id][COSINE] == pytest.approx(0.61)
    assert found[parser.id][WORD_SHARE] == pytest.approx(2 / 3)
    assert found[parser.id][REFERENCE_MATCH] == pytest.approx(1.0)
    assert found[parser.id][PROMINENCE] == pytest.approx(prominence(parser, 4, T0))  # among the candidates


def test_signals_not_computed_are_absent():
    entry = make_entry("csv parser quoting")
    found = selection_signals([entry], None, None, [EntryStats.of(entry)], T0)[entry.id]
    assert set(found) == {PROMINENCE}
    assert 0.0 <= found[PROMINENCE] <= 1.0
