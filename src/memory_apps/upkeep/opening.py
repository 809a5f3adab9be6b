"""Opening the store for a write path: a corrupt file is moved aside and rebuilt, the markdown a killed writer
owed is written, the project's bank imported on first use; and the periodic snapshot, and the checks before a
write through a store opened for reading."""

from __future__ import annotations

import os
import sys
from typing import Optional

from memory_apps.wiring.adapter_functions import (
    make_store_private, move_aside, read_history, read_tombstones, restore_newest, take_snapshot,
)
from memory_apps.wiring.container import Container


def open_store_recovering(container: Container, project_root: Optional[str], global_store: str,
                          auto_import: bool = True, reading: bool = False):
    """Open the store for writing. A corrupt file (or another program's) is moved aside, never deleted, and
    rebuilt: from the newest sound snapshot when there is one, then from the markdown audit trail, with the
    store's list of deleted entries applied so nothing deleted comes back. With `auto_import` the project's
    knowledge bank is imported when it was not yet; with `reading` only a rebuilt database is (a read writes no
    import marker, and leaves the store's permissions to the next write: `prepare_write`)."""
    from memory_core.errors import DatabaseCorrupt

    if not reading:
        notice = make_store_private(global_store)  # before it receives anything new
        if notice:
            print(f"iflow-memory: {notice}", file=sys.stderr)
    rebuilt = False
    try:
        store = container.store()
    except DatabaseCorrupt as exc:
        db_path = container.config.db_path()
        moved = move_aside(db_path, exc)
        where = f"moved it to {moved}" if moved else "another process already moved it aside"
        restored = restore_newest(db_path) if moved else None
        again = f"; restored the snapshot {os.path.basename(restored)}" if restored else ""
        print(f"iflow-memory: {exc}; {where}{again}", file=sys.stderr)
        container.store.reset()
        store = container.store()
        rebuilt = True
    empty = rebuilt or store.count() == 0  # asked once: the history may put restored entries back first
    if empty:
        tombstones = read_tombstones(global_store)
        if tombstones:
            store.apply_tombstones(tombstones)
        restore_history(store, global_store)
    audit_root = container.config.project_root()
    store.queue_markdown(os.path.abspath(audit_root) if audit_root else None)
    report = container.reconcile().run()  # markdown a killed writer still owed
    for problem in report.problems[:1]:
        print(f"iflow-memory: {problem}", file=sys.stderr)
    root = os.path.abspath(project_root or os.getcwd())
    importer = container.importer()
    new = 0
    if reading:
        # A read rebuilds an empty or rebuilt database from the store's own markdown, never the project's bank.
        new = _restore_store_markdown(container, global_store) if empty else 0
    elif auto_import and (rebuilt or not importer.imported(root)):
        new = importer.run(root, global_store).new
    if new:
        print(f"iflow-memory: imported {new} {'entry' if new == 1 else 'entries'} from markdown", file=sys.stderr)
    return store


def restore_history(store, global_store: str) -> None:
    """Put back the retired entries, aliases and history the store's markdown keeps (ADR 26), before any import,
    so no bank revives a retired or edited-away entry. A history file that cannot be read only warns."""
    from memory_core.ports.entry_lifecycle import EntryLifecycle
    from memory_core.usecases.rebuild_history import apply_history_file

    if not isinstance(store, EntryLifecycle):
        return
    try:
        history = read_history(global_store)
    except OSError as exc:
        print(f"iflow-memory: entry history not read: {exc}", file=sys.stderr)
        return
    apply_history_file(store, history.events, history.retired, history.aliases, history.restored)


def _restore_store_markdown(container: Container, global_store: str) -> int:
    """A read's recovery of an empty or rebuilt database: the global store's own markdown (every entry the
    user's tools stored is there), never the project's bank, and no project recorded as imported. An entry
    that does not validate is left out here; `iflow-memory import` names it. Returns how many were new."""
    from pydantic import ValidationError

    from memory_core.ranking.legacy import deduplicate

    from memory_core.usecases.importing import import_anchors

    items, anchors = [], {}
    for entry in deduplicate(container.knowledge_reader().read(global_store, "global")):
        try:
            items.append((entry.to_draft(None), entry.last_observed))
        except ValidationError:
            continue
        if entry.anchors:
            anchors[entry.entry_id] = entry.anchors
    store, now, new = container.store(), container.clock().now(), 0
    for start in range(0, len(items), 100):  # committed batches, as an import commits them
        created = [o.entry_id for o in store.import_entries(items[start:start + 100], now) if o.status == "new"]
        new += len(created)
        anchored = {entry_id: anchors[entry_id] for entry_id in created if entry_id in anchors}
        if anchored:  # the global store's blocks carry them (ADR 26)
            import_anchors(store, anchored)
    return new


def keep_snapshot(container: Container) -> Optional[str]:
    """Take the periodic snapshot of the database when one is due (a failure only warns)."""
    import sqlite3

    if container.config.database_url():
        return None  # a server keeps its own backups (pg_dump, replication): not this program's job
    try:
        return take_snapshot(container.config.db_path())
    except (OSError, sqlite3.Error) as exc:
        print(f"iflow-memory: snapshot not taken: {exc}", file=sys.stderr)
        return None


def prepare_write(container: Container, project_root: str, global_store: str) -> None:
    """Before a write through a store opened for reading: make the store private, and when the database lost
    commits its markdown recorded (a deleted `-wal`), import the markdown again first, so this write neither
    hides the loss (its number would pass the watermark) nor comes before the entries it lost."""
    from memory_core.ports.audit_watermark import AuditWatermark

    notice = make_store_private(global_store)
    if notice:
        print(f"iflow-memory: {notice}", file=sys.stderr)
    store = container.store()
    if isinstance(store, AuditWatermark) and store.markdown_ahead():
        new = container.importer().run(os.path.abspath(project_root), global_store).new
        if new:
            print(f"iflow-memory: imported {new} {'entry' if new == 1 else 'entries'} from markdown", file=sys.stderr)
