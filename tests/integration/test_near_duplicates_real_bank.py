"""On the real knowledge bank (both snapshots in ../shared), no two distinct learnings are near-duplicates at the
chosen thresholds, while the learnings edited between the snapshots are: the check can tell (ADR 26; the numbers
are `python -m benchmarks near-duplicates`)."""

from __future__ import annotations

import itertools
from datetime import datetime, timezone

import pytest

from benchmarks.common.paths import SHARED
from memory_core.entries.records import Entry

pytestmark = pytest.mark.slow

BANKS = SHARED / "fixtures" / "knowledge-bank"


@pytest.fixture(scope="module")
def bank():
    """The distinct learnings of both snapshots and the edited pairs, embedded by the product's local model."""
    if not (BANKS / "head").is_dir() or not (BANKS / "v024").is_dir():
        pytest.skip(f"the real knowledge bank is not at {BANKS}")
    from benchmarks.near_duplicates.corpus import embed, read_snapshots

    learnings, edits = read_snapshots(BANKS)
    embed(learnings + [x for pair in edits for x in pair])
    return learnings, edits


def as_entry(learning) -> Entry:
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return Entry(id=learning.entry_id, name=learning.name, description=learning.description,
                 category=learning.category, created_at=now, updated_at=now)


def neighbours(learnings):
    """Every learning's cosine to every other, as review's finder computes them (all pairs, not the nearest 10)."""
    from memory_adapters.vectors.float32 import pack_vector
    from memory_adapters.vectors.neighbours import nearest_neighbours

    rows = [(x.entry_id, pack_vector(x.vector)) for x in learnings]
    return nearest_neighbours(rows, min_cosine=-1.0, per_entry=len(rows))


def test_no_two_distinct_learnings_of_the_real_bank_are_flagged(bank):
    from memory_core.ranking.near_duplicates import near_duplicate_pairs

    learnings, _ = bank
    assert len(learnings) > 250  # both snapshots read, one learning once
    assert near_duplicate_pairs([as_entry(x) for x in learnings], neighbours(learnings)) == []


def test_the_learnings_edited_between_the_snapshots_are_flagged(bank):
    from memory_core.ranking.near_duplicates import near_duplicate_pairs

    _, edits = bank
    assert edits, "the snapshots hold edited learnings"
    for old, new in edits:
        pairs = near_duplicate_pairs([as_entry(old), as_entry(new)], neighbours([old, new]))
        assert [(a, b) for a, b, _ in pairs] == [tuple(sorted((old.entry_id, new.entry_id)))], old.name


def test_without_vectors_no_two_distinct_learnings_are_flagged(bank):
    from memory_core.ranking.near_duplicates import near_duplicates

    learnings, _ = bank
    flagged = [(a.name, b.name) for a, b in itertools.combinations(learnings, 2)
               if near_duplicates(a.name, a.description, a.category, [(as_entry(b), None)])]
    assert flagged == []
