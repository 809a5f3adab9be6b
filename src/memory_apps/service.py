"""MemoryService: the operations the MCP server, the CLI and library users share, over one container."""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass, field, replace
from typing import Optional, Sequence

from pydantic import ValidationError

from memory_apps.config import MemoryConfig, load_config
from memory_apps.service_lifecycle import LifecycleMethods
from memory_apps.service_reads import ViewerReads
from memory_apps.session.kept_retrieval import KeptRetrieval
from memory_apps.upkeep.embedding_jobs import embed_after_write
from memory_apps.upkeep.opening import keep_snapshot, open_store_recovering, prepare_write
from memory_apps.wiring.adapter_functions import project_scopes
from memory_apps.wiring.container import Container, build_container
from memory_apps.wiring.lifecycle import actor
from memory_apps.store_paths import global_store_dir, missing_store
from memory_core.errors import InvalidEntry, StoreNotFound
from memory_core.entries.models import Entry, EntryDraft
from memory_core.entries.request_checks import (
    MAX_LIMIT, check_category, check_ids, check_limit, check_query, plain_error,
)
from memory_core.anchors.states import AnchorState
from memory_core.usecases.near_duplicates import Neighbour
from memory_core.usecases.retrieve import Retrieval


CHECK_S = 2.0
"""How long a search or a look-up waits for the check of its results' citations (a slow git is left out)."""


@dataclass
class StoreResult:
    """What storing a learning did."""

    entry_id: str
    name: str
    created: bool
    observation_count: int
    embedded: bool
    superseded: Optional[str] = None
    """The id of the entry this one replaced and retired (`supersedes`)."""
    near_duplicates: list[Neighbour] = field(default_factory=list)
    """Stored learnings that say the same in other words (advice: this one was stored all the same)."""
    merged: bool = False
    """The learning reinforced the entry `merge_into` named instead of being stored."""


@dataclass
class FoundEntries:
    """What a look-up by ids found: the entries in the order asked, and the ids that name none."""

    entries: list[Entry]
    not_found: list[str]


class MemoryService(LifecycleMethods, ViewerReads):
    """Thread-safe facade over the container: remember, search, get, delete, list."""

    def __init__(self, global_store: Optional[str] = None, project_root: Optional[str] = None,
                 settings: Optional[MemoryConfig] = None, create: bool = False, tool: str = "library") -> None:
        """Open the global store; one that does not exist is created by the first write (`remember`, `inject`),
        or here with `create`. Reads of a store that does not exist raise StoreNotFound (ADR 14). `tool` names
        the caller in the history of the changes it makes (`<user> via <tool>`)."""
        self.tool = tool
        self.project_root = os.path.abspath(project_root or os.getcwd())
        self.global_store = global_store_dir(global_store)
        self.settings = settings or load_config(self.project_root)
        # A long-running host: the container keeps the embedders it built, so a model loads once.
        self._container = build_container(self.settings, self.global_store, project_root=self.project_root,
                                          full_check=True, keep_models=True)
        self._lock = threading.RLock()
        self._opened = False
        self._kept: Optional[KeptRetrieval] = None
        self._scopes: Optional[tuple[str, ...]] = None
        if create or os.path.isdir(self.global_store):
            self._open()

    def _open(self) -> None:
        """Open (creating) the store. A read never imports the project's knowledge bank: session starts,
        `import` and `maintain` do (only a store rebuilt from markdown re-imports here)."""
        with self._lock:
            if not self._opened:
                open_store_recovering(self._container, self.project_root, self.global_store, reading=True)
                self._opened = True

    @property
    def container(self) -> Container:
        """The container over the opened store; StoreNotFound when the store does not exist (a read creates
        nothing: a mistyped `global_store` must not leave an empty store behind)."""
        if not self._opened:
            problem = missing_store(self.global_store)
            if problem:
                raise StoreNotFound(problem)
            self._open()
        return self._container

    def _prepare_write(self) -> None:
        """The store private, and the markdown imported again first when the database lost commits."""
        prepare_write(self.container, self.project_root, self.global_store)

    @property
    def _retrieval(self) -> KeptRetrieval:
        if self._kept is None:
            self._kept = KeptRetrieval(self.container)  # a warm search reuses the model, vectors and stats
        return self._kept

    def close(self) -> None:
        """Close the store (on PostgreSQL, let go of the server connection); the service is done afterwards."""
        with self._lock:
            if self._opened:
                self._container.store().close()

    def __enter__(self) -> "MemoryService":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def project_name(self) -> str:
        """The base name of the project root (recorded as source_project)."""
        return os.path.basename(self.project_root)

    def remember(self, name: str, description: str, reasoning: str = "", category: str = "patterns",
                 references: Optional[list[str]] = None, keywords: Optional[list[str]] = None,
                 source: str = "manual", confidence: Optional[str] = None,
                 supersedes: Optional[str] = None, merge_into: Optional[str] = None) -> StoreResult:
        """Validate and store a learning (a repeat reinforces the existing entry), then embed it; the result names
        the stored learnings it repeats in other words. With `supersedes` (an id or unique prefix), retire that
        entry as replaced by this one (InvalidEntry, nothing stored, when it names no live entry); with
        `merge_into`, reinforce that entry instead of storing this one (InvalidEntry when it names none)."""
        if supersedes is not None and merge_into is not None:
            raise InvalidEntry("merge_into", "supersedes and merge_into exclude each other")
        fields = {"name": name, "description": description, "reasoning": reasoning, "category": category,
                  "references": references or [], "keywords": keywords or [], "source": source,
                  "source_project": self.project_name}  # universal: a captured learning helps every project (AC4)
        if confidence:
            fields["confidence"] = confidence
        try:
            draft = EntryDraft.model_validate(fields)
        except ValidationError as exc:
            raise plain_error(exc) from exc
        with self._lock:
            self._open()  # a write creates the store
            self._prepare_write()
            superseded = None
            if supersedes is not None:
                result = self._supersede(draft, supersedes)
                stored, superseded = result.remembered, result.old_id
            else:
                target = self._merge_target(merge_into) if merge_into is not None else None
                stored = self.container.remember().run(draft, merge_into=target, actor=actor(self.tool))
            report = embed_after_write(self.container, [stored.entry_id])
            keep_snapshot(self.container)
            entry = self.container.store().get(stored.entry_id)
        return StoreResult(stored.entry_id, stored.name, stored.created, stored.observation_count,
                           bool(entry and entry.has_embedding) or bool(report and report.embedded), superseded,
                           [n for n in stored.near_duplicates if n.entry_id != superseded], stored.merged)

    def _supersede(self, draft: EntryDraft, supersedes: str):
        old_id = self._live_id(supersedes, "supersedes")
        result = self.container.supersede().run(draft, old_id, actor(self.tool))
        self._say_audit(result.audit_problem)
        return result

    def _merge_target(self, text: str) -> str:
        """The full id `merge_into` names; InvalidEntry (field merge_into) when it names no entry, RetiredLearning
        when it names a retired one."""
        from memory_core.usecases.retired_refusal import RetiredLearning

        try:
            located = self.locate(text)
        except InvalidEntry as exc:
            raise InvalidEntry("merge_into", exc.message) from exc
        if located is None:
            raise InvalidEntry("merge_into", f"no entry with id {text}")
        if located.retired is not None:
            raise RetiredLearning("merge_into", located.retired)
        return located.entry_id

    def search(self, query: str, limit: int = 10, category: Optional[str] = None,
               include_weak: bool = False) -> Retrieval:
        """Hybrid search (vector + keyword + prominence): of the best `limit`, only the good matches, those whose
        `relevance` (0-1, one scale for every query) reaches the search floor, so a query nothing answers gets
        an empty `selected`; `include_weak` keeps the rest too (`Retrieval.is_good` tells them apart).
        InvalidEntry for a blank query or a limit outside 1..100."""
        query, limit, category = check_query(query), check_limit(limit, MAX_LIMIT), check_category(category)
        with self._lock:
            if self._scopes is None:
                self._scopes = project_scopes(self.project_root)  # a git lookup: once per service
            found = self._retrieval.current().search(query, limit, category, scopes=self._scopes)
        found = self._checked(found)
        return found if include_weak else replace(found, selected=found.good_matches())

    def citations(self, entries: Sequence[Entry]) -> dict[str, list[AnchorState]]:
        """How the citations these entries took in this project stand in its tree today, by entry id: `current`,
        `changed`, `moved` (with `moved_to`) or `missing`; entries with no such citation are absent (ADR 26)."""
        from memory_core.session.deadline import Deadline, MonotonicTicker

        with self._lock:
            if self._scopes is None:
                self._scopes = project_scopes(self.project_root)  # a git lookup: once per service
            check = self.container.anchor_checks()(self.project_root)
            return check.states(entries, self._scopes[0], Deadline.after(MonotonicTicker(), CHECK_S))

    def _checked(self, found: Retrieval) -> Retrieval:
        """A search's results with their citations checked, those citing only missing files after the others."""
        from memory_core.usecases.check_anchors import lowered_last, marks_of, AnchorReport

        states = self.citations([r.entry for r in found.selected]) if any(
            r.entry.anchors for r in found.selected) else {}
        if not states:
            return found
        return replace(found, selected=lowered_last(found.selected, marks_of(AnchorReport(states))), anchors=states)

    def resolve_id(self, text: str) -> Optional[str]:
        """The full id an id or unique prefix (4+ hex characters) names, or None; InvalidEntry for a malformed id,
        AmbiguousId (an InvalidEntry) for a prefix several entries share."""
        from memory_core.policies.entry_ids import resolve_entry_id

        with self._lock:
            return resolve_entry_id(self.container.store(), text)

    def get(self, entry_id: str) -> Optional[Entry]:
        """One entry by id."""
        with self._lock:
            return self.container.store().get(entry_id)

    def get_many(self, ids: Sequence[str]) -> FoundEntries:
        """The entries these ids (or unique prefixes) name, as this project's sessions see them; an id that is
        malformed, ambiguous, unknown or kept to another project is listed in `not_found`. InvalidEntry when
        `ids` is not a list of 1 to 20 texts."""
        from memory_core.policies.entry_ids import resolve_entry_id

        wanted = check_ids(ids)
        with self._lock:
            store = self.container.store()
            if self._scopes is None:
                self._scopes = project_scopes(self.project_root)  # a git lookup: once per service
            resolved: dict[str, Optional[str]] = {}
            for text in wanted:
                try:
                    resolved[text] = resolve_entry_id(store, text)
                except InvalidEntry:
                    resolved[text] = None  # malformed or ambiguous: this id names no one entry
            found = {e.id: e for e in store.get_many([i for i in dict.fromkeys(resolved.values()) if i])}
        # An entry kept to another project (ADR 23) is not this project's to read: reported like an unknown id.
        visible = {i: e for i, e in found.items() if e.scope is None or e.scope in self._scopes}
        result = FoundEntries([], [])
        for text in wanted:
            entry = visible.get(resolved[text] or "")
            if entry is None:
                result.not_found.append(text)
            elif entry not in result.entries:  # a prefix and the whole id of one entry: shown once
                result.entries.append(entry)
        return result

    def delete(self, entry_id: str) -> bool:
        """Delete one entry (and its markdown copies here); True when it existed. Imports never revive it."""
        with self._lock:
            self._prepare_write()
            if not self.container.store().delete(entry_id):  # queues the markdown removal with the delete
                return False
            for problem in self.container.reconcile().run().problems[:1]:
                print(f"iflow-memory: markdown copy not removed yet: {problem}", file=sys.stderr)
            return True

    def promote(self, entry_id: str) -> bool:
        """Make an entry universal (every project's sessions see it) and move its markdown to the global store."""
        with self._lock:
            self._prepare_write()
            if not self.container.store().set_scope(entry_id, None):
                return False
            for problem in self.container.reconcile().run().problems[:1]:
                print(f"iflow-memory: markdown copy not written yet: {problem}", file=sys.stderr)
            return True

    def entries(self) -> list[Entry]:
        """Every entry."""
        with self._lock:
            return self.container.store().all_entries()

    def inject(self, limit: int = 20) -> str:
        """The session-start memory block for this project; InvalidEntry for a limit outside 1..100."""
        from memory_apps.session.injection import InjectRequest, run_injection
        from memory_apps.session.shell import session_deadline

        limit = check_limit(limit, MAX_LIMIT)
        with self._lock:
            self._open()  # a session start creates the store, as the hook does
            return run_injection(InjectRequest(self.project_root, self.global_store, limit), self.settings,
                                 lambda: self.container, session_deadline(process_start=False), emit=lambda _: None)

    @staticmethod
    def _say_audit(problem: Optional[str]) -> None:
        if problem:
            print(f"iflow-memory: markdown copy not written yet: {problem}", file=sys.stderr)
