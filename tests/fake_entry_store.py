"""InMemoryEntryStore: the test double of the SQLite store, every port it implements held in dictionaries."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Iterable, Optional, Sequence

from memory_adapters.vectors.float32 import pack_vector
from memory_core.entries.merge import imported, reinforced
from memory_core.entries.models import Entry, EntryDraft, EntryStats, ImportOutcome, UpsertOutcome
from memory_core.ports.audit_outbox import AuditTask
from memory_core.embedding.space import STAGED_KEYS, space_metadata
from memory_core.entries.browsing import BrowsePage, BrowseQuery, Tallies
from tests.fake_browsing import browse_entries, tally_entries


class InMemoryEntryStore:
    """EntryStore + EntryBrowser + KeywordIndex + EmbeddingStore + StagingVectorStore held in dictionaries.

    `keyword_search_available` is a plain attribute: False stands for a SQLite build without FTS5;
    `keyword_scale` too ("bm25": its term counts stand in for BM25; "ts_rank_cd" plays PostgreSQL).
    """

    def __init__(self, keyword_search: bool = True) -> None:
        self.entries: dict[str, Entry] = {}
        self.metadata: dict[str, str] = {}
        self.deleted_ids: set[str] = set()
        self.vectors_by_id: dict[str, bytes] = {}
        self.staged_by_id: dict[str, bytes] = {}
        self.query_vectors: dict[tuple[str, str], list[float]] = {}
        self.keyword_search_available = keyword_search
        self.keyword_scale = "bm25"
        self.outbox: dict[tuple[str, str], AuditTask] = {}
        self.more_scopes: dict[str, set[str]] = {}
        self._outbox_root: Optional[str] = None
        self._outbox_on = False
        self._seq = 0

    def queue_markdown(self, project_root: Optional[str]) -> None:
        """Queue a markdown write with every entry written or deleted from now on."""
        self._outbox_on, self._outbox_root = True, project_root

    def _queue(self, entry: Entry, action: str) -> None:
        if self._outbox_on:
            self._seq += 1
            key = (entry.id, self._outbox_root or "")
            self.outbox[key] = AuditTask(self._seq, entry.id, action, entry.category, self._outbox_root)

    def pending_audit(self, limit: int) -> list[AuditTask]:
        """The oldest owed markdown writes."""
        return sorted(self.outbox.values())[:limit]

    def audit_done(self, tasks: Sequence[AuditTask]) -> None:
        """Drop tasks not queued again since."""
        for task in tasks:
            key = (task.entry_id, task.project_root or "")
            if key in self.outbox and self.outbox[key].seq == task.seq:
                del self.outbox[key]

    def audit_failed(self, task: AuditTask) -> None:
        """Failures leave the task queued."""

    def upsert(self, draft: EntryDraft, now: datetime) -> UpsertOutcome:
        """Insert or reinforce, by the core's merge rule."""
        self.deleted_ids.discard(draft.entry_id)
        existing = self.entries.get(draft.entry_id)
        entry = reinforced(existing, draft, now)
        self.entries[entry.id] = entry
        self._queue(entry, "record")
        return UpsertOutcome(entry_id=entry.id, created=existing is None, observation_count=entry.observation_count)

    def import_entries(self, items, now: datetime) -> list[ImportOutcome]:
        """Import several markdown entries by the core's merge rule (all or nothing is trivially true in memory)."""
        outcomes = []
        for draft, updated_at in items:
            status, entry = imported(self.entries.get(draft.entry_id), draft, now, updated_at,
                                     draft.entry_id in self.deleted_ids)
            if entry is not None:
                self.entries[entry.id] = entry
            outcomes.append(ImportOutcome(entry_id=draft.entry_id, status=status))
        return outcomes

    def get(self, entry_id: str) -> Optional[Entry]:
        """Return one entry or None."""
        entry = self.entries.get(entry_id)
        return entry.with_changes(**{"has_embedding": entry_id in self.vectors_by_id}) if entry else None

    def all_entries(self) -> list[Entry]:
        """Return every entry."""
        return [self.get(i) for i in self.entries]  # type: ignore[misc]

    def ids_with_prefix(self, prefix: str, limit: int) -> list[str]:
        """Up to `limit` ids starting with `prefix`, in id order."""
        return sorted(i for i in self.entries if i.startswith(prefix))[:limit]

    def get_many(self, entry_ids: Sequence[str]) -> list[Entry]:
        """Return entries in the order of the ids given."""
        return [self.get(i) for i in entry_ids if i in self.entries]  # type: ignore[misc]

    def ranking_stats(self, scopes: Optional[Sequence[str]] = None) -> list[EntryStats]:
        """Return the ranking fields of every entry (universal or in `scopes`, when given)."""
        return [
            EntryStats.of(e.with_changes(has_embedding=e.id in self.vectors_by_id)) for e in self.entries.values()
            if scopes is None or e.scope is None or e.scope in scopes
            or bool(self.more_scopes.get(e.id, set()) & set(scopes))
        ]

    def cited_files(self) -> dict[str, list[str]]:
        """Return {entry id: its references} for every entry that cites at least one."""
        return {e.id: list(e.references) for e in self.entries.values() if e.references}

    def browse(self, query: BrowseQuery) -> BrowsePage:
        """One page of the entries matching `query` (EntryBrowser)."""
        return browse_entries(self.all_entries(), query)

    def tallies(self, top: int = 10) -> Tallies:
        """The overview's counts (EntryBrowser)."""
        return tally_entries(self.all_entries(), top)

    def count(self) -> int:
        """Return the number of entries."""
        return len(self.entries)

    def delete(self, entry_id: str) -> bool:
        """Delete one entry with its vector and its extra scopes, keeping its tombstone."""
        self.vectors_by_id.pop(entry_id, None)
        self.more_scopes.pop(entry_id, None)
        existing = self.entries.pop(entry_id, None)
        if existing is not None:
            self.deleted_ids.add(entry_id)
            self._queue(existing, "forget")
        return existing is not None

    def add_scope(self, entry_id: str, scope: str) -> None:
        """Let one more project see a scoped entry."""
        if entry_id in self.entries:
            self.more_scopes.setdefault(entry_id, set()).add(scope)

    def set_scope(self, entry_id: str, scope: Optional[str]) -> bool:
        """Change an entry's scope."""
        if entry_id not in self.entries:
            return False
        self.entries[entry_id] = self.entries[entry_id].with_changes(scope=scope)
        self._queue(self.entries[entry_id], "record")
        return True

    def record_recall(self, entry_ids: Sequence[str], when: datetime) -> None:
        """Count a recall for each id."""
        for entry_id in dict.fromkeys(entry_ids):
            entry = self.entries.get(entry_id)
            if entry:
                self.entries[entry_id] = entry.with_changes(
                    recall_count=entry.recall_count + 1, last_recalled_at=when)

    def get_metadata(self, key: str) -> Optional[str]:
        """Read metadata."""
        return self.metadata.get(key)

    def set_metadata(self, key: str, value: str) -> None:
        """Write metadata."""
        self.metadata[key] = value

    def metadata_items(self, prefix: str) -> dict[str, str]:
        """The metadata whose key starts with `prefix`."""
        return {k: v for k, v in self.metadata.items() if k.startswith(prefix)}

    def vectors(self) -> Iterable[tuple[str, bytes]]:
        """Return stored vectors, as the SQLite store does (float32 bytes)."""
        return list(self.vectors_by_id.items())

    def set_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store one vector (ignored for unknown ids, like an UPDATE that matches nothing)."""
        if entry_id in self.entries:
            self.vectors_by_id[entry_id] = pack_vector(vector)

    def pending_ids(self, limit: int) -> list[str]:
        """Ids without a vector."""
        return [i for i in self.entries if i not in self.vectors_by_id][:limit]

    def cached_query_vector(self, space: str, query: str) -> Optional[list[float]]:
        """The remembered query vector of this space, or None."""
        return self.query_vectors.get((space, query))

    def cache_query_vector(self, space: str, query: str, vector: Sequence[float]) -> None:
        """Remember a query vector, forgetting other spaces' ones."""
        self.query_vectors = {k: v for k, v in self.query_vectors.items() if k[0] == space}
        self.query_vectors[(space, query)] = list(vector)

    # -- StagingVectorStore (same semantics as SqliteEntryStore's) ----------------------------
    def start_staging(self, space) -> None:
        """Forget every staged vector and record the space being built."""
        self.staged_by_id = {}
        self.metadata.update(space_metadata(space, STAGED_KEYS))

    def unstaged_ids(self, limit: int) -> list[str]:
        """Ids of entries without a staged vector."""
        return [i for i in self.entries if i not in self.staged_by_id][:limit]

    def set_staged_vector(self, entry_id: str, vector: Sequence[float]) -> None:
        """Store one staged vector (ignored for unknown ids, like SQLite's INSERT ... SELECT)."""
        if entry_id in self.entries:
            self.staged_by_id[entry_id] = pack_vector(vector)

    def promote_staged(self, space) -> bool:
        """Swap the staged set in and pin `space`, only when every entry has a staged vector."""
        staged = self.staged_by_id
        if any(i not in staged for i in self.entries):
            return False
        self.vectors_by_id = {i: staged[i] for i in self.entries}
        self.staged_by_id = {}
        self.metadata.update(space_metadata(space))
        for key in [k for k in self.metadata if k.startswith("staged_embedding_")]:
            del self.metadata[key]
        return True

    def keyword_search(self, match_query: str, limit: int) -> dict[str, float]:
        """Score = number of query terms found in the entry's text (a crude stand-in for BM25)."""
        if not self.keyword_search_available:
            return {}
        terms = [t for t in match_query.split(" OR ") if t]
        scores: dict[str, float] = {}
        for entry in self.entries.values():
            text = " ".join([entry.name, entry.description, entry.reasoning, " ".join(entry.keywords)]).lower()
            words = set(re.findall(r"[^\W_]+", text))
            hits = sum(1 for t in terms if t in words)
            if hits:
                scores[entry.id] = float(hits)
        best = sorted(scores.items(), key=lambda kv: -kv[1])[:limit]
        return dict(best)
