"""The reference markdown-only injector (spec 002): dedup, sort, select, format, track."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Optional, Sequence

from memory_core.entries.knowledge import KnowledgeEntry
from memory_core.entries.records import CONFIDENCE_RANK
from memory_core.safety.redaction import redact_secrets
from memory_core.session.rendering import render_block
from memory_core.ranking.selection import balanced_select, group_by_category


def deduplicate(entries: Sequence[KnowledgeEntry]) -> list[KnowledgeEntry]:
    """Keep one entry per content hash: the first seen, unless a later one has more observations."""
    winners: dict[str, KnowledgeEntry] = {}
    order: list[str] = []
    for entry in entries:
        key = entry.entry_id
        if key not in winners:
            winners[key] = entry
            order.append(key)
        elif entry.observation_count > winners[key].observation_count:
            winners[key] = entry
    return [winners[k] for k in order]


def _recency(entry: KnowledgeEntry) -> float:
    # Global entries carry a date; local ones only their position in the file.
    if entry.last_observed is not None:
        when = entry.last_observed
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return when.timestamp()
    return float(entry.position)


def legacy_sort_key(entry: KnowledgeEntry) -> tuple[int, int, float]:
    """Observation count desc, confidence desc, then most recent first."""
    return (-entry.observation_count, -CONFIDENCE_RANK[entry.confidence], -_recency(entry))


def legacy_select(entries: Sequence[KnowledgeEntry], limit: int) -> list[KnowledgeEntry]:
    """Min-3 per category when the limit allows, then fill by category priority."""
    return balanced_select(
        deduplicate(entries), lambda e: e.category, legacy_sort_key, limit, fill="category-priority"
    )


def format_legacy(selected: Sequence[KnowledgeEntry], diagnostic: Optional[str] = None) -> str:
    """Return the markdown block as the reference injector printed it, with secrets redacted ('' when empty):
    hand-written bank files are printed here without ever passing the models' validators."""
    if not selected:
        return ""
    groups = group_by_category(selected, lambda e: e.category)
    return render_block([(c, [shown_text(e.raw_text) for e in members]) for c, members in groups], diagnostic)


def shown_text(text: str) -> str:
    """Markdown text as this pipeline shows it: the core's secret patterns applied (no scanner: hook path)."""
    return redact_secrets(text, scanners=False)


def tracking_record(selected: Sequence[KnowledgeEntry], project: str, now: datetime) -> dict:
    """The `.last-injection.json` document for a legacy injection."""
    local = sum(1 for e in selected if e.origin == "local")
    return {
        "timestamp": now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "project": project,
        "entries_injected": len(selected),
        "sources": {"local": local, "global": len(selected) - local},
        "entry_names": [shown_text(e.name) for e in selected],
    }
