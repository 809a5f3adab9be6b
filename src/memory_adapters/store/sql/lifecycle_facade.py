"""The EntryLifecycle part of a store facade (ADR 26), the same for SQLite and PostgreSQL: each method answered by
the store's `_lifecycle` (a `SqlEntryLifecycle` over the store's own rows)."""

from __future__ import annotations

from memory_adapters.store.sql.facade import answered_by
from memory_adapters.store.sql.lifecycle import SqlEntryLifecycle


class LifecycleAnswers:
    """Mixed into a store facade that holds a `SqlEntryLifecycle` in `_lifecycle`."""

    set_anchors = answered_by("_lifecycle", SqlEntryLifecycle.set_anchors)
    retire = answered_by("_lifecycle", SqlEntryLifecycle.retire)
    restore = answered_by("_lifecycle", SqlEntryLifecycle.restore)
    retired = answered_by("_lifecycle", SqlEntryLifecycle.retired)
    retired_entries = answered_by("_lifecycle", SqlEntryLifecycle.retired_entries)
    replace_text = answered_by("_lifecycle", SqlEntryLifecycle.replace_text)
    resolve = answered_by("_lifecycle", SqlEntryLifecycle.resolve)
    aliases = answered_by("_lifecycle", SqlEntryLifecycle.aliases)
    history = answered_by("_lifecycle", SqlEntryLifecycle.history)
    all_history = answered_by("_lifecycle", SqlEntryLifecycle.all_history)
    record_event = answered_by("_lifecycle", SqlEntryLifecycle.record_event)
    apply_history = answered_by("_lifecycle", SqlEntryLifecycle.apply_history)
    bank_blocks = answered_by("_lifecycle", SqlEntryLifecycle.bank_blocks)
    set_bank_blocks = answered_by("_lifecycle", SqlEntryLifecycle.set_bank_blocks)
    import_anchors = answered_by("_lifecycle", SqlEntryLifecycle.import_anchors)  # ImportedAnchors
    put_retired = answered_by("_lifecycle", SqlEntryLifecycle.put_retired)  # for a copy (`migrate`)
