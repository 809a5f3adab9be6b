"""The library's reads for the viewer's Overview and Sessions pages: the store's tallies and the injection
journal. Mixed into `MemoryService`, whose lock and container they use."""

from __future__ import annotations

from typing import Optional

SUMMARISED = 1000
"""Records summarised from a journal that cannot summarise itself (about all a journal keeps)."""


class ViewerReads:
    """What the viewer reads beside entries: counts the store computes itself, and what hooks injected."""

    def count(self) -> int:
        """How many live entries the store holds (one COUNT: cheap at any size)."""
        with self._lock:
            return self.container.store().count()

    def tallies(self, top: int = 10):
        """The store's `Tallies` (counts by category, project and source, added per day, the `top` most recalled
        and oldest never-shown entries); StorageError on a store that cannot count for itself."""
        from memory_core.errors import StorageError
        from memory_core.ports.entry_store import EntryBrowser

        with self._lock:
            store = self.container.store()
            if not isinstance(store, EntryBrowser):
                raise StorageError("this store cannot page or count its entries (the viewer needs a SQLite or "
                                   "PostgreSQL store)")
            return store.tallies(top)

    def injections(self, limit: int = 200, session_id: Optional[str] = None) -> list:
        """The journal's newest `limit` injections (`InjectionRecord`), newest first, of one session when given;
        [] when this wiring keeps no journal."""
        journal = getattr(self.container, "injection_journal", None)
        if journal is None:  # a wiring without the journal's recipe records nothing to show
            return []
        return journal().recent(limit, session_id)

    def injection_summaries(self) -> list:
        """Every kept injection as an `InjectionSummary` (no memories, only how many), newest first; [] when this
        wiring keeps no journal. Cheap on a journal that keeps its summaries between calls."""
        from memory_core.ports.session_ledger import InjectionSummaries
        from memory_core.session.journal import InjectionSummary

        journal = getattr(self.container, "injection_journal", None)
        if journal is None:
            return []
        journal = journal()
        if isinstance(journal, InjectionSummaries):
            return journal.summaries()
        return [InjectionSummary.of(r) for r in journal.recent(SUMMARISED)]
