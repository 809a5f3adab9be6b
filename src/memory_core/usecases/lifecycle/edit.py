"""Edit: a person changes a memory's text (the viewer's form, `iflow-memory edit`). The changed fields are validated
as a write is (same rules, secrets redacted), stored through `replace_text` with an `edited` event, so the old id
resolves to the new one and the counts, dates and anchors stay; the markdown the store owes follows (ADR 26)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence

from pydantic import ValidationError

from memory_core.anchors.anchor import Anchor
from memory_core.entries.keywords import clean_keywords
from memory_core.entries.models import EntryDraft
from memory_core.entries.records import Entry, HistoryEvent
from memory_core.entries.request_checks import plain_error
from memory_core.errors import InvalidEntry
from memory_core.policies.bank_trust import BANK_PREFIX, bank_record
from memory_core.ports.clock import Clock
from memory_core.ports.entry_lifecycle import EntryLifecycle
from memory_core.ports.entry_store import EntryStore
from memory_core.safety.inert import one_line
from memory_core.usecases.bank_edits import recorded_banks
from memory_core.usecases.lifecycle.changes import follow_audit
from memory_core.usecases.reconcile_audit import ReconcileAudit, from_users_bank
from memory_core.usecases.retired_refusal import retired_words

EDITABLE = ("name", "description", "reasoning", "category", "references", "keywords", "confidence")
"""The fields a person may change, in the order results name them."""


@dataclass(frozen=True)
class Edited:
    """What an edit did: the entry as stored now, the id it had, the fields that changed (none: nothing to do),
    and why the markdown lags when it does."""

    entry: Entry
    old_id: str
    changed: tuple[str, ...]
    audit_problem: Optional[str] = None

    @property
    def id(self) -> str:
        """The entry's id now (a new one when the description changed)."""
        return self.entry.id


class HandWritten(InvalidEntry):
    """The entry was imported from a knowledge bank the user writes: the tool never rewrites that bank (ADR 26),
    so the edit is refused; `bank_file` names the file to edit instead (the next import updates the entry)."""

    def __init__(self, entry: Entry, bank_file: str) -> None:
        self.entry_id, self.bank_file = entry.id, bank_file
        super().__init__("id", f"{entry.id} — {one_line(entry.name)} was imported from a knowledge bank written by "
                               f"hand ({one_line(bank_file)}), which this tool never rewrites: edit its block there; "
                               "the next import (a session start, or `iflow-memory import`) updates this memory and "
                               "keeps its counts and history")


class EditEntry:
    """Applies a person's changes to one live entry."""

    def __init__(self, store: EntryStore, lifecycle: EntryLifecycle, clock: Clock,
                 reconcile: Optional[ReconcileAudit] = None,
                 anchoring: Optional[Callable[[Sequence[str]], Sequence[Anchor]]] = None,
                 bank_dir: Optional[Callable[[str], str]] = None) -> None:
        self._store, self._lifecycle, self._clock = store, lifecycle, clock
        self._reconcile = reconcile
        self._anchoring = anchoring  # references → their anchors in the tree the editor runs in
        self._bank_dir = bank_dir  # a project root → its knowledge bank's directory (to name the file to edit)

    def run(self, entry_id: str, changes: Mapping[str, object], actor: str) -> Optional[Edited]:
        """Edit the live entry `entry_id` (an edited entry's old id resolves); None when it names no entry.
        InvalidEntry for an unknown field, an invalid value, a retired entry, a text another entry holds;
        HandWritten for an entry of a hand-written bank. Changing nothing is no edit: `changed` is empty."""
        unknown = sorted(set(changes) - set(EDITABLE))
        if unknown:
            raise InvalidEntry(unknown[0], f"cannot be edited (the fields are {', '.join(EDITABLE)})")
        current = self._lifecycle.resolve(entry_id)
        entry = self._store.get(current)
        if entry is None:
            retired = self._lifecycle.retired(current)
            if retired is None:
                return None
            raise InvalidEntry("id", f"{retired_words(retired)}: restore it first (`iflow-memory restore "
                                     f"{current}`), then edit it")
        if from_users_bank(entry):
            raise HandWritten(entry, self.bank_file(entry))
        draft = self._draft(entry, changes)
        changed = tuple(f for f in EDITABLE if _value(draft, f) != _value(entry, f))
        if not changed:
            return Edited(entry, entry.id, ())
        self._check_free(entry, draft.entry_id)
        detail: dict = {"old_id": entry.id, "new_id": draft.entry_id, "fields": list(changed)}
        if "description" in changed:
            detail["old_description"] = entry.description
        if "name" in changed:
            detail["old_name"] = entry.name
        event = HistoryEvent(draft.entry_id, "edited", self._clock.now(), actor, detail)
        stored = self._lifecycle.replace_text(entry.id, draft, event, as_given=True,
                                              anchors=self._anchors(entry, draft.references))
        if stored is None:  # changed or retired by another writer between the read and the edit
            raise InvalidEntry("id", f"{entry.id} changed while it was being edited: look at it again")
        return Edited(stored, entry.id, changed, follow_audit(self._reconcile))

    def _draft(self, entry: Entry, changes: Mapping[str, object]) -> EntryDraft:
        """The whole new entry, validated as a write is (a change given as None keeps the field)."""
        fields: dict = {f: list(v) if isinstance(v := getattr(entry, f), list) else v for f in EDITABLE}
        fields.update({f: v for f, v in changes.items() if v is not None})
        fields.update(source=entry.source, source_project=entry.source_project, scope=entry.scope,
                      observation_count=entry.observation_count)
        try:
            draft = EntryDraft.model_validate(fields)
        except ValidationError as exc:
            raise plain_error(exc) from exc
        if changes.get("keywords") is not None and list(draft.keywords) != list(entry.keywords):
            # A person's labels, cleaned as a writer's are (a form that sends the stored ones back changes none).
            draft = draft.model_copy(update={"keywords": clean_keywords(draft.keywords)})
        return draft

    def _check_free(self, entry: Entry, new_id: str) -> None:
        """InvalidEntry when the new description is another entry's text: live, retired, or one it was edited
        from (an edit never takes another entry's id; undoing this entry's own edit is fine)."""
        if new_id == entry.id:
            return
        other = self._store.get(new_id)
        if other is not None:
            raise InvalidEntry("description", f"another memory already says this: {new_id} — "
                                              f"{one_line(other.name)} (retire one of them, or word it differently)")
        retired = self._lifecycle.retired(new_id)
        if retired is not None:
            raise InvalidEntry("description", f"this is the text of a retired memory: {retired_words(retired)} "
                                              f"(`iflow-memory restore {new_id}` brings it back)")
        now = self._lifecycle.resolve(new_id)
        if now not in (new_id, entry.id):
            raise InvalidEntry("description", f"this is an earlier text of memory {now}, edited since")

    def _anchors(self, entry: Entry, references: Sequence[str]) -> tuple[Anchor, ...]:
        """The edited entry's anchors: those of references it still cites, as they were learned, and today's
        for the references the edit added (an absent file gets none)."""
        kept = tuple(a for a in entry.anchors if a.reference in references)
        added = [r for r in references if r not in entry.references]
        fresh = tuple(self._anchoring(added)) if added and self._anchoring is not None else ()
        return kept + fresh

    def bank_file(self, entry: Entry) -> str:
        """The hand-written bank file whose last import held the entry (the file to edit instead): a path when its
        project's root is known."""
        for key in recorded_banks(self._store):
            if entry.id not in self._lifecycle.bank_blocks(key).values():
                continue
            identity, _, file = key.rpartition("#")
            root = (bank_record(self._store.get_metadata(BANK_PREFIX + identity)) or {}).get("root")
            if isinstance(root, str) and root and self._bank_dir is not None:
                return os.path.join(self._bank_dir(root), file)
            return f"{file} of the knowledge bank of {identity}"
        project = f" of {entry.source_project}" if entry.source_project else ""
        return f"{entry.category}.md in the knowledge bank{project}"


def _value(item: object, field: str) -> object:
    value = getattr(item, field)
    return list(value) if isinstance(value, (list, tuple)) else value
