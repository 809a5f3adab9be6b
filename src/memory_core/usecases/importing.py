"""Import knowledge-bank markdown into the store, idempotently."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from pydantic import ValidationError

from memory_core.session.deadline import Deadline
from memory_core.policies.first_import import import_marker, is_imported
from memory_core.policies.keyword_tiers import TieredKeywords
from memory_core.entries.knowledge import KnowledgeEntry
from memory_core.ranking.legacy import deduplicate, shown_text
from memory_core.policies.bank_trust import BANK_PREFIX, TRUSTED, WIDE, bank_record, is_trusted, record_bank
from memory_core.ports.audit_watermark import AuditWatermark
from memory_core.ports.bank_authorship import OTHERS, UNKNOWN, BankAuthors, BankAuthorship
from memory_core.ports.clock import Clock
from memory_core.ports.entry_store import EntryStore, ImportStateReader, StoredState
from memory_core.ports.knowledge_bank import KnowledgeBankReader
from memory_core.ports.project_layout import ProjectLayout
from memory_core.session.progress import SessionProgress

AUTHORSHIP_TIMEOUT_S = 10.0
"""How long an import without a deadline (`import`, `trust`, a background run) lets git name a bank's authors."""
SESSION_AUTHORSHIP_TIMEOUT_S = 2.0
"""At most this much of a first session's deadline (once per project; a slower git keeps the bank scoped)."""
IMPORT_BATCH = 100  # entries per committed transaction: an interrupted import keeps every finished batch


@dataclass
class ImportReport:
    """How many parsed entries were new, updated, unchanged, skipped or merged as duplicates."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0
    problems: list[str] = field(default_factory=list)
    """Why entries were skipped, one line each; the counts below are the entries left out."""
    skipped: int = 0
    duplicates: int = 0
    deleted: int = 0
    """Entries the user deleted earlier: never brought back by an import."""
    retired: int = 0
    """Entries retired (or edited into a newer id) earlier: never brought back by an import either (ADR 26)."""
    remaining: int = 0
    """Parsed entries not imported yet because the deadline came first (a later run resumes)."""
    banks: dict[str, str] = field(default_factory=dict)
    """The verdict on each category file of the project's bank (own, local, trusted, others, unknown)."""

    @property
    def complete(self) -> bool:
        """True when every parsed entry was handled."""
        return self.remaining == 0

    @property
    def decided(self) -> bool:
        """True when git named the authors of every bank file (an unknown one stays scoped, to be judged again)."""
        return UNKNOWN not in self.banks.values()

    @property
    def total(self) -> int:
        """Entries that reached the store."""
        return self.new + self.updated + self.unchanged


def read_sources(reader: KnowledgeBankReader, project_bank: str, global_store: str) -> list[KnowledgeEntry]:
    """Parse the project's knowledge bank (the directory `project_bank`), then the global store (local first)."""
    return reader.read(project_bank, "local") + reader.read(global_store, "global")


class ImportKnowledgeBank:
    """Brings markdown entries into the store; re-importing the same files changes nothing."""

    def __init__(self, reader: KnowledgeBankReader, store: EntryStore, clock: Clock, layout: ProjectLayout,
                 keywords: Optional[TieredKeywords] = None, authorship: Optional[BankAuthorship] = None) -> None:
        self._reader = reader
        self._store = store
        self._clock = clock
        self._layout = layout
        self._keywords = keywords
        self._authorship = authorship  # None: every bank counts as somebody else's (scoped), the safe side

    def imported(self, project_root: str) -> bool:
        """Whether this project's knowledge bank was fully imported into a non-empty store."""
        return is_imported(self._store, project_root)

    def run(self, project_root: str, global_store: str, deadline: Optional[Deadline] = None,
            batch_size: int = IMPORT_BATCH, progress: Optional[SessionProgress] = None) -> ImportReport:
        """Import the project's knowledge bank and the global store's markdown in committed batches (local first).

        With a deadline, batches stop once it passed (the first batch always runs, so every call makes
        progress); re-running resumes, because entries already stored are left unchanged. `progress` learns when
        a batch is being committed (a session's watchdog lets it finish)."""
        lost = isinstance(self._store, AuditWatermark) and self._store.markdown_ahead()
        if lost:  # the database lost commits: first the deletes among them, so no bank revives those entries
            self._store.reopen_imports()
        parsed = read_sources(self._reader, self._layout.knowledge_bank(project_root), global_store)
        if progress is not None:
            progress.sources = parsed
        unique = deduplicate(parsed)
        report = ImportReport(duplicates=len(parsed) - len(unique))
        project = self._layout.name(project_root)
        now = self._clock.now()
        timeout = AUTHORSHIP_TIMEOUT_S if deadline is None else max(0.2, deadline.cap(SESSION_AUTHORSHIP_TIMEOUT_S))
        decided = self._bank_scopes(project_root, parsed, report, now.strftime("%Y-%m-%dT%H:%M:%SZ"), timeout,
                                    session=deadline is not None)
        scopes = _Scopes(decided, {e.entry_id for e in parsed if e.origin == "global"})
        todo = self._not_yet_stored(unique, report, scopes)
        size = max(1, batch_size)
        for start in range(0, len(todo), size):
            if start and deadline is not None and deadline.expired():
                report.remaining = len(todo) - start
                break
            items = self._drafts(todo[start:start + size], project, report, scopes)
            if progress is not None:
                progress.batch_started(len(items))
            outcomes = []
            try:
                outcomes = self._store.import_entries(items, now)
            finally:
                if progress is not None:
                    progress.batch_ended(len(outcomes))
            for outcome in outcomes:
                setattr(report, outcome.status, getattr(report, outcome.status) + 1)
        # Without git's verdict on every file the import stays unmarked: a slow git on the first session must not
        # keep the user's own bank scoped for good; the next import (the background run's, with more time) asks again.
        if report.complete and report.decided:
            self._store.set_metadata(import_marker(project_root), now.strftime("%Y-%m-%dT%H:%M:%SZ"))
        if report.complete and lost:  # the lost commits are back whatever git says of the bank's authors
            self._store.caught_up()
        return report

    def _bank_scopes(self, project_root: str, entries: list[KnowledgeEntry], report: ImportReport,
                     when: str, timeout_s: float, session: bool = False) -> dict[str, Optional[str]]:
        """The scope of each category file's entries (None: universal), decided once per import: the user's own
        or trusted bank is universal, one committed by somebody else stays the project's (ADR 23)."""
        categories = sorted({e.category for e in entries if e.origin == "local"})
        if not categories:
            return {}
        identity = self._layout.identity(project_root)
        if is_trusted(self._store, identity):
            authors = BankAuthors({c: TRUSTED for c in categories})
        elif session and _git_was_too_slow(self._store, identity):
            # A session already lost its time to this git once: the background run (more time) asks it again.
            authors = BankAuthors({c: UNKNOWN for c in categories})
        elif self._authorship is not None:
            authors = self._authorship.authors(project_root, categories, timeout_s)
        else:
            authors = BankAuthors({c: OTHERS for c in categories})
        report.banks = {c: authors.verdicts.get(c, OTHERS) for c in categories}
        record_bank(self._store, identity, project_root, report.banks, authors.strangers, when)
        return {c: None if verdict in WIDE else identity for c, verdict in report.banks.items()}

    def _not_yet_stored(self, entries: list[KnowledgeEntry], report: ImportReport,
                        scopes: "_Scopes") -> list[KnowledgeEntry]:
        """Entries an import would change; the others count as unchanged without a write, so a resumed import
        starts where the last one stopped. An entry this bank holds that is stored for another project (a copy
        of the project, the same learning in two banks) becomes this project's too."""
        stored = {state.id: state for state in self._stored_states([k.entry_id for k in entries])}
        todo = []
        for entry in entries:
            known = stored.get(entry.entry_id)
            could_label = bool(entry.keywords) or self._keywords is not None
            scope = scopes.of(entry)
            if known is not None and scope is not None and known.scope not in (None, scope):
                self._store.add_scope(known.id, scope)
            if known is None or entry.observation_count > known.observation_count or (
                    could_label and not known.labelled) or (scope is None and known.scope is not None):
                todo.append(entry)
            else:
                report.unchanged += 1
        return todo

    def _stored_states(self, ids: list[str]) -> list[StoredState]:
        """What the store holds of these entries: read cheaply when the store can (a resumed import of a big
        bank must reach its first new batch well within a session's deadline), else from the whole entries."""
        if isinstance(self._store, ImportStateReader):
            return self._store.import_states(ids)
        found: list[StoredState] = []
        for start in range(0, len(ids), 500):
            found += [StoredState(e.id, e.observation_count, bool(e.keywords), e.scope)
                      for e in self._store.get_many(ids[start:start + 500])]
        return found

    def _drafts(self, batch: list[KnowledgeEntry], project: str, report: ImportReport,
                scopes: "_Scopes") -> list:
        """Validated drafts; keywords are generated only for entries the store does not already label.

        A bank somebody else committed is scoped to its project whatever its text claims (`Tags: universal`,
        a stored source): a cloned repository's bank must not reach the user's other projects (ADR 23)."""
        labelled = {e.id for e in self._store.get_many([k.entry_id for k in batch]) if e.keywords}
        items = []
        for entry in batch:
            try:
                draft = entry.to_draft(project if entry.origin == "local" else None)
            except ValidationError as exc:
                report.skipped += 1
                field_name = exc.errors()[0]["loc"][0] if exc.errors() else "entry"
                name = shown_text(entry.name)  # hand-written markdown: its name never passed the validators
                report.problems.append(f"skipped '{name}' ({entry.category}): invalid {field_name}")
                continue
            scope = scopes.of(entry)
            update: dict = {"scope": scope}
            if scope is not None and scopes.strangers(entry):
                update["source"] = "import"  # a stranger's file says nothing about how an entry was stored
            draft = draft.model_copy(update=update)
            if self._keywords is not None and not draft.keywords and entry.entry_id not in labelled:
                draft = draft.model_copy(update={"keywords": self._keywords.generate(
                    draft.name, draft.description, draft.reasoning, draft.category)})
            items.append((draft, entry.last_observed))
        return items


def _git_was_too_slow(store: EntryStore, identity: str) -> bool:
    """Whether the last import of this bank got no verdict from git for some file."""
    record = bank_record(store.get_metadata(BANK_PREFIX + identity))
    return record is not None and UNKNOWN in record["files"].values()


@dataclass
class _Scopes:
    """What one import decided: the scope of each bank file's entries (None: universal), and the entries the
    global store's markdown lists (what the user's tools stored: universal even where a bank, read first and so
    the copy deduplicate keeps, holds the same entry)."""

    by_category: dict[str, Optional[str]]
    listed_globally: set[str]

    def of(self, entry: KnowledgeEntry) -> Optional[str]:
        """Where an entry belongs: a bank entry takes its file's scope, narrowed to the project its block names
        (an exported scoped entry) only when the file is the user's own."""
        if entry.origin != "local" or entry.entry_id in self.listed_globally:
            return None
        decided = self.by_category.get(entry.category)
        return entry.scope if decided is None else decided

    def strangers(self, entry: KnowledgeEntry) -> bool:
        """Whether the entry comes from a bank file somebody else wrote (its text decides nothing)."""
        return entry.origin == "local" and self.by_category.get(entry.category) is not None
