"""The library's lifecycle methods (ADR 26): retire, restore, confirm, edit, history and review (supersede and merge
are arguments of `remember`). Mixed into `MemoryService`, whose lock, container and project they use."""

from __future__ import annotations

from typing import Optional

from memory_apps.upkeep.embedding_jobs import embed_after_write
from memory_apps.upkeep.opening import keep_snapshot
from memory_apps.wiring.adapter_functions import project_scopes
from memory_core.entries.models import Entry
from memory_core.errors import InvalidEntry


class LifecycleMethods:
    """What `MemoryService` offers to keep memories true; every change goes through the same use cases as the CLI."""

    def locate(self, text: str):
        """What an id or unique prefix names, live or retired (an edited entry's old id resolves to the current
        one): a `Located`, or None; InvalidEntry for a malformed id, AmbiguousId for a shared prefix."""
        from memory_core.usecases.lifecycle.locate import locate

        with self._lock:
            return locate(self.container.store(), self._lifecycle(), text)

    def sees(self, entry: Entry) -> bool:
        """Whether this project's sessions may read the entry (universal, or kept to this project: ADR 23)."""
        with self._lock:
            if self._scopes is None:
                self._scopes = project_scopes(self.project_root)  # a git lookup: once per service
            return entry.scope is None or entry.scope in self._scopes

    def retire(self, entry_id: str, reason: str = "") -> Optional[Entry]:
        """Take a live entry out of injection and search (kept, with its history, restorable); the retired entry,
        or None when the id names no live entry."""
        return self._change("retire", entry_id, reason)

    def restore(self, entry_id: str) -> Optional[Entry]:
        """Put a retired entry back (embedded again); the entry, or None when the id names no retired entry."""
        with self._lock:
            located = self.locate(entry_id)
            if located is None or located.retired is None:
                return None
            restored = self._change("restore", located.entry_id)
            if restored is not None:
                embed_after_write(self.container, [restored.id])
            return restored

    def confirm(self, entry_id: str):
        """Re-anchor a live entry to the project's code as it is today (its citations are current again): a
        `Confirmed` (`entry` with its new anchors, also as `id`, `name`, `anchors`; `anchored` of `cited`
        citations; `gone`: the citations whose file is absent, kept on their old anchor; `summary()` says it),
        or None when the id names no live entry."""
        return self._changed("confirm", entry_id)

    def edit(self, entry_id: str, **changes):
        """Change a live memory's text (`name`, `description`, `reasoning`, `category`, `references`, `keywords`,
        `confidence`; a change given as None keeps the field), validated and redacted as a write is, recorded as
        an `edited` event; an `Edited` (`entry` as stored now, `old_id`, `changed`: the fields that changed, empty
        when nothing did), or None when the id names no entry. A new description gives the entry a new id (the old
        one still finds it); counts, dates and anchors stay. InvalidEntry for bad input, a retired entry (restore
        it first) or another entry's text; `HandWritten` (an InvalidEntry naming `bank_file`) for an entry
        imported from a hand-written bank, which only that file changes."""
        from memory_apps.wiring.lifecycle import actor

        with self._lock:
            located = self.locate(entry_id)
            if located is None:
                return None
            self._prepare_write()
            edited = self.container.edit().run(located.entry_id, changes, actor(self.tool))
            if edited is None or not edited.changed:
                return edited
            self._say_audit(edited.audit_problem)
            embed_after_write(self.container, [edited.id])  # the edited row has no vector yet
            keep_snapshot(self.container)
            return edited

    def hand_written_file(self, entry_id: str) -> Optional[str]:
        """For a live entry imported from a knowledge bank written by hand (which `edit` refuses), the bank file
        to edit instead; None for any other entry or an unknown id (a page shows this in place of its form)."""
        with self._lock:
            located = self.locate(entry_id)
            if located is None or located.entry is None or located.entry.source != "import":
                return None
            return self.container.edit().bank_file(located.entry)

    def history(self, entry_id: str) -> list:
        """The history events (who, when, what) of an entry and of every older id it had, oldest first."""
        with self._lock:
            lifecycle = self._lifecycle()
            return lifecycle.history(lifecycle.resolve(entry_id))

    def retired_entries(self) -> list:
        """Every retired entry (`RetiredEntry`: the entry, when, why, what superseded it), newest first."""
        with self._lock:
            return self._lifecycle().retired_entries()

    def review(self):
        """What needs a human (`ReviewQueues`): entries with stale citations, near-duplicate pairs, superseded
        entries."""
        with self._lock:
            self._lifecycle()
            return self.container.review().run()

    def _change(self, action: str, entry_id: str, *arguments: str) -> Optional[Entry]:
        changed = self._changed(action, entry_id, *arguments)
        return changed.entry if changed is not None else None

    def _changed(self, action: str, entry_id: str, *arguments: str):
        from memory_apps.wiring.lifecycle import actor

        with self._lock:
            self._prepare_write()
            if action != "restore":
                entry_id = self._live_id(entry_id, "id") or ""
                if not entry_id:
                    return None
            changed = getattr(self.container, action)().run(entry_id, *arguments, actor(self.tool))
            if changed is None:
                return None
            self._say_audit(changed.audit_problem)
            keep_snapshot(self.container)
            return changed

    def _live_id(self, text: str, field: str) -> Optional[str]:
        """The live id `text` names (an edited entry's old id included); None when it names none. For
        `supersedes`, InvalidEntry instead of None."""
        located = self.locate(text)
        if located is not None and located.entry is not None:
            return located.entry_id
        if field == "id":
            return None
        why = "is retired" if located is not None else "names no entry"
        raise InvalidEntry(field, f"{text} {why}")

    def _lifecycle(self):
        from memory_core.errors import StorageError
        from memory_core.ports.entry_lifecycle import EntryLifecycle

        store = self.container.store()
        if not isinstance(store, EntryLifecycle):
            raise StorageError("this store keeps no entry lifecycle (retire, restore, history)")
        return store
