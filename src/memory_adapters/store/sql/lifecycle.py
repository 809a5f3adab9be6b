"""EntryLifecycle written once for both SQL stores (ADR 26): retired entries leave `entries` for
`retired_entries`, an edit moves the entry to its new id and leaves an alias, and every change is an event of
`entry_history`; each method is one short transaction that also queues the markdown the change owes. What a store
spells its own way (reading an entry locked, writing a whole row, removing one, queuing markdown) it gives as
`LifecycleRows`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, Protocol, Sequence

from memory_adapters.store.sql.connection import SqlConnection
from memory_adapters.store.sql.lifecycle_rows import detail_json, entry_json, entry_from_json, event_of, retired_of
from memory_adapters.store.sql.rows import anchors_json
from memory_core.anchors.anchor import Anchor
from memory_core.entries.records import CONFIDENCE_RANK, Entry, HistoryEvent, RetiredEntry

if TYPE_CHECKING:
    from memory_core.entries.models import EntryDraft

MAX_ALIAS_HOPS = 64  # edits chain old → new; a chain this long (or a cycle a hand edit made) stops here
_RETIRED = "SELECT entry, retired_at, reason, superseded_by FROM retired_entries"
_EVENTS = "SELECT entry_id, action, at, actor, detail FROM entry_history"


class LifecycleRows(Protocol):
    """One store's spelling of what the lifecycle does to `entries`, inside the caller's transaction."""

    mark: str  # the driver's parameter placeholder
    json_mark: str  # a JSON parameter: `?` (SQLite text) or `%s::jsonb`

    def stored(self, conn: Any, entry_id: str) -> Optional[Entry]:
        """The live entry with this id (locked until commit where the store can), or None."""
        ...

    def insert(self, conn: Any, entry: Entry) -> None:
        """Write a new row holding the whole entry (counts, dates, anchors, scope), without a vector."""
        ...

    def remove(self, conn: Any, entry_id: str) -> None:
        """Delete the entry's row with its extra scopes and staged vector."""
        ...

    def queue(self, conn: Any, entry: Entry, action: str) -> None:
        """Queue the entry's markdown write (`record` or `forget`), when the store writes for an audit trail."""
        ...

    def time(self, when: Any) -> Any:
        """A datetime as the store's time parameter."""
        ...


class SqlEntryLifecycle:
    """EntryLifecycle over `entries`, `retired_entries`, `entry_aliases`, `entry_history` and `bank_blocks`."""

    def __init__(self, connection: SqlConnection, rows: LifecycleRows) -> None:
        self._connection = connection
        self._rows = rows

    def set_anchors(self, entry_id: str, anchors: Sequence[Anchor], event: Optional[HistoryEvent] = None) -> bool:
        """Replace an entry's anchors (and record `event`, e.g. `confirmed`); False when the id is unknown."""
        rows, mark = self._rows, self._rows.mark

        def work(conn: Any) -> bool:
            entry = rows.stored(conn, entry_id)
            if entry is None:
                return False
            conn.execute(f"UPDATE entries SET anchors = {rows.json_mark} WHERE id = {mark}",
                         (anchors_json(tuple(anchors)), entry_id))
            if event is not None:
                self._add_event(conn, event)
            if owes_markdown(entry):
                rows.queue(conn, entry, "record")  # global-format blocks carry their anchors
            return True

        return self._connection.transaction(work)

    def import_anchors(self, anchors: Mapping[str, Sequence[Anchor]]) -> int:
        """ImportedAnchors: set the anchors an import's markdown carries on the entries it created, in one
        transaction, queuing no markdown (the markdown they were read from holds them); how many were set."""
        rows, mark = self._rows, self._rows.mark

        def work(conn: Any) -> int:
            return sum(max(0, conn.execute(f"UPDATE entries SET anchors = {rows.json_mark} WHERE id = {mark}",
                                           (anchors_json(tuple(found)), entry_id)).rowcount)
                       for entry_id, found in sorted(anchors.items()))

        return self._connection.transaction(work)

    def retire(self, entry_id: str, event: HistoryEvent, superseded_by: Optional[str] = None) -> Optional[RetiredEntry]:
        """Move an entry out of `entries` into the retired table, whole; None when it is not a live entry."""
        rows, mark = self._rows, self._rows.mark

        def work(conn: Any) -> Optional[RetiredEntry]:
            entry = rows.stored(conn, entry_id)
            if entry is None:
                return None
            scopes = tuple(r[0] for r in conn.execute(f"SELECT scope FROM entry_scopes WHERE id = {mark}",
                                                      (entry_id,)).fetchall())
            retired = RetiredEntry(entry, event.at, str(event.detail.get("reason") or ""), superseded_by)
            rows.remove(conn, entry_id)  # FTS and the vectors' version follow the row (triggers)
            conn.execute(f"DELETE FROM retired_entries WHERE id = {mark}", (entry_id,))
            conn.execute(f"INSERT INTO retired_entries (id, entry, retired_at, reason, superseded_by) VALUES "
                         f"({mark}, {rows.json_mark}, {mark}, {mark}, {mark})",
                         (entry_id, entry_json(entry, scopes), rows.time(event.at), retired.reason, superseded_by))
            self._add_event(conn, event)
            rows.queue(conn, entry, "record")  # the replay finds it gone: its block leaves the markdown
            return retired

        return self._connection.transaction(work)

    def restore(self, entry_id: str, event: HistoryEvent) -> Optional[Entry]:
        """Put a retired entry back (its vector is re-embedded later); None when it is not retired."""
        rows, mark = self._rows, self._rows.mark

        def work(conn: Any) -> Optional[Entry]:
            row = conn.execute(f"SELECT entry FROM retired_entries WHERE id = {mark}", (entry_id,)).fetchone()
            found = entry_from_json(row[0]) if row else None
            if found is None:
                return None
            entry, scopes = found
            conn.execute(f"DELETE FROM retired_entries WHERE id = {mark}", (entry_id,))
            live = rows.stored(conn, entry.id)
            if live is None:  # else written again since it was retired: the live entry stays as it is
                rows.insert(conn, entry)
                for scope in scopes:
                    conn.execute(f"INSERT INTO entry_scopes (id, scope) VALUES ({mark}, {mark}) "
                                 "ON CONFLICT DO NOTHING", (entry.id, scope))
            self._add_event(conn, event)
            restored = rows.stored(conn, entry.id)
            if restored is not None and owes_markdown(restored):
                rows.queue(conn, restored, "record")
            return restored

        return self._connection.transaction(work)

    def retired(self, entry_id: str) -> Optional[RetiredEntry]:
        """The retired entry with this id, or None."""
        found = self._connection.read(f"{_RETIRED} WHERE id = {self._rows.mark}", (entry_id,))
        return retired_of(found[0]) if found else None

    def retired_entries(self) -> list[RetiredEntry]:
        """Every retired entry, newest retirement first."""
        found = self._connection.read(f"{_RETIRED} ORDER BY retired_at DESC, id")
        return [r for r in map(retired_of, found) if r is not None]

    def replace_text(self, old_id: str, draft: "EntryDraft", event: HistoryEvent, as_given: bool = False,
                     anchors: Optional[Sequence[Anchor]] = None) -> Optional[Entry]:
        """An edit: store `draft` under its new id with the old entry's counts, dates and anchors, drop the old
        row and make the old id resolve to the new one; None when `old_id` is not live or the new id is taken
        (live, or retired: an edit never overwrites another entry). `as_given` (a person's edit): the draft is
        the whole new text, and one whose description is unchanged rewrites the entry under its own id;
        `anchors`: the new entry's, instead of the old one's."""
        rows, mark, new_id = self._rows, self._rows.mark, draft.entry_id

        def work(conn: Any) -> Optional[Entry]:
            old = rows.stored(conn, old_id)
            if old is None:
                return None
            if new_id == old_id:
                return self._rewrite(conn, old, draft, event, anchors) if as_given else None
            if rows.stored(conn, new_id) is not None or conn.execute(
                    f"SELECT 1 FROM retired_entries WHERE id = {mark}", (new_id,)).fetchone():
                return None
            rows.insert(conn, edited(old, draft, event, as_given, anchors))
            conn.execute(f"UPDATE entry_scopes SET id = {mark} WHERE id = {mark}", (new_id, old_id))
            rows.remove(conn, old_id)
            conn.execute(f"DELETE FROM deleted_entries WHERE id = {mark}", (new_id,))
            # The new id is nobody's old id any more (an edit undone: A → B → A); whatever led to the old id
            # now leads to the new one, so chains stay one hop long.
            conn.execute(f"DELETE FROM entry_aliases WHERE old_id = {mark}", (new_id,))
            conn.execute(f"UPDATE entry_aliases SET new_id = {mark} WHERE new_id = {mark}", (new_id, old_id))
            conn.execute(f"INSERT INTO entry_aliases (old_id, new_id) VALUES ({mark}, {mark}) "
                         "ON CONFLICT (old_id) DO UPDATE SET new_id = excluded.new_id", (old_id, new_id))
            self._add_event(conn, event)
            entry = rows.stored(conn, new_id)
            rows.queue(conn, old, "record")  # gone: its block leaves the markdown
            if entry is not None and owes_markdown(entry):
                rows.queue(conn, entry, "record")
            return entry

        return self._connection.transaction(work)

    def _rewrite(self, conn: Any, old: Entry, draft: "EntryDraft", event: HistoryEvent,
                 anchors: Optional[Sequence[Anchor]]) -> Entry:
        """A person's edit that kept the description: the entry written again under its id, scopes kept (its
        vector goes with the row: the new name is embedded again)."""
        rows, mark = self._rows, self._rows.mark
        scopes = [r[0] for r in conn.execute(f"SELECT scope FROM entry_scopes WHERE id = {mark}",
                                             (old.id,)).fetchall()]
        rows.remove(conn, old.id)
        rows.insert(conn, edited(old, draft, event, True, anchors))
        for scope in scopes:
            conn.execute(f"INSERT INTO entry_scopes (id, scope) VALUES ({mark}, {mark}) ON CONFLICT DO NOTHING",
                         (old.id, scope))
        self._add_event(conn, event)
        entry = rows.stored(conn, old.id) or old
        if owes_markdown(entry):
            # Queued with the old category: a block that moved to another category's file leaves the old one.
            rows.queue(conn, old, "record")
        return entry

    def resolve(self, entry_id: str) -> str:
        """The id an entry has now: follows edits (old id → newest id); any other id comes back unchanged."""
        seen, current = {entry_id}, entry_id
        for _ in range(MAX_ALIAS_HOPS):
            found = self._connection.read(f"SELECT new_id FROM entry_aliases WHERE old_id = {self._rows.mark}",
                                          (current,))
            if not found or found[0][0] in seen:
                break
            current = found[0][0]
            seen.add(current)
        return current

    def aliases(self) -> dict[str, str]:
        """Every old id and the id it resolves to now."""
        direct = dict(self._connection.read("SELECT old_id, new_id FROM entry_aliases"))
        return {old: _followed(direct, old) for old in direct}

    def history(self, entry_id: str) -> list[HistoryEvent]:
        """The events of this entry and of every older id it had, oldest first."""
        newest = self.resolve(entry_id)
        pointing: dict[str, list[str]] = {}
        for old, new in self._connection.read("SELECT old_id, new_id FROM entry_aliases"):
            pointing.setdefault(new, []).append(old)
        ids, todo = {entry_id, newest}, [newest]
        while todo:  # every id whose edits led here
            for old in pointing.get(todo.pop(), ()):
                if old not in ids:
                    ids.add(old)
                    todo.append(old)
        wanted = sorted(ids)
        marks = ",".join([self._rows.mark] * len(wanted))
        found = self._connection.read(f"{_EVENTS} WHERE entry_id IN ({marks}) ORDER BY at, seq", wanted)
        return [event_of(row) for row in found]

    def all_history(self) -> list[HistoryEvent]:
        """Every event, oldest first (the markdown audit trail's history file is written from it)."""
        return [event_of(row) for row in self._connection.read(f"{_EVENTS} ORDER BY at, seq")]

    def record_event(self, event: HistoryEvent) -> None:
        """Append one event (an update that is not a lifecycle move: `merged`)."""
        self._connection.transaction(lambda conn: self._add_event(conn, event))

    def apply_history(self, events: Sequence[HistoryEvent], retired: Sequence[RetiredEntry],
                      aliases: Mapping[str, str], restored: Sequence[Entry] = ()) -> None:
        """A rebuild from markdown: put back the history, the retired entries, the aliases and the restored
        entries no markdown but the history holds, skipping what is already there (applying the same file twice
        changes nothing)."""
        rows, mark = self._rows, self._rows.mark

        def work(conn: Any) -> None:
            for event in events:
                if not conn.execute(f"SELECT 1 FROM entry_history WHERE entry_id = {mark} AND action = {mark} AND "
                                    f"at = {mark} AND actor = {mark} AND detail = {rows.json_mark}",
                                    self._event_params(event)).fetchone():
                    self._add_event(conn, event)
            for item in retired:
                if rows.stored(conn, item.entry.id) is None:  # written again since: the live entry wins
                    conn.execute(f"INSERT INTO retired_entries (id, entry, retired_at, reason, superseded_by) "
                                 f"VALUES ({mark}, {rows.json_mark}, {mark}, {mark}, {mark}) ON CONFLICT (id) "
                                 "DO NOTHING", (item.entry.id, entry_json(item.entry), rows.time(item.retired_at),
                                                item.reason, item.superseded_by))
            for old, new in sorted(aliases.items()):
                if old != new:
                    conn.execute(f"INSERT INTO entry_aliases (old_id, new_id) VALUES ({mark}, {mark}) "
                                 "ON CONFLICT (old_id) DO UPDATE SET new_id = excluded.new_id", (old, new))
            for entry in restored:  # live again, its vector embedded later; it owes no markdown (its bank's)
                if not self._held(conn, entry.id):
                    rows.insert(conn, entry)

        self._connection.transaction(work)

    def _held(self, conn: Any, entry_id: str) -> bool:
        """Whether the store knows this id in any state: live, retired, edited away or deleted."""
        mark = self._rows.mark
        return self._rows.stored(conn, entry_id) is not None or any(
            conn.execute(f"SELECT 1 FROM {table} WHERE {column} = {mark}", (entry_id,)).fetchone()
            for table, column in (("retired_entries", "id"), ("entry_aliases", "old_id"), ("deleted_entries", "id")))

    def put_retired(self, retired: Sequence[RetiredEntry], unretired: Sequence[str]) -> None:
        """For a copy: hold these retired entries exactly as given (a live row of the same id goes, as it went in
        the source), and forget the retired rows of `unretired` ids (live again in the source)."""
        rows, mark = self._rows, self._rows.mark

        def work(conn: Any) -> None:
            for item in retired:
                rows.remove(conn, item.entry.id)
                conn.execute(f"DELETE FROM retired_entries WHERE id = {mark}", (item.entry.id,))
                conn.execute(f"INSERT INTO retired_entries (id, entry, retired_at, reason, superseded_by) VALUES "
                             f"({mark}, {rows.json_mark}, {mark}, {mark}, {mark})",
                             (item.entry.id, entry_json(item.entry), rows.time(item.retired_at), item.reason,
                              item.superseded_by))
            for entry_id in unretired:
                conn.execute(f"DELETE FROM retired_entries WHERE id = {mark}", (entry_id,))

        self._connection.transaction(work)

    def bank_blocks(self, bank: str) -> dict[tuple[str, str], str]:
        """What the last import of one bank file held: {(category, name): entry id}."""
        found = self._connection.read(f"SELECT category, name, id FROM bank_blocks WHERE bank = {self._rows.mark}",
                                      (bank,))
        return {(category, name): entry_id for category, name, entry_id in found}

    def set_bank_blocks(self, bank: str, blocks: Mapping[tuple[str, str], str]) -> None:
        """Record what an import of one bank file held (replacing the previous record)."""
        mark = self._rows.mark

        def work(conn: Any) -> None:
            conn.execute(f"DELETE FROM bank_blocks WHERE bank = {mark}", (bank,))
            for (category, name), entry_id in sorted(blocks.items()):
                conn.execute(f"INSERT INTO bank_blocks (bank, category, name, id) VALUES ({mark}, {mark}, {mark}, "
                             f"{mark})", (bank, category, name, entry_id))

        self._connection.transaction(work)

    def _event_params(self, event: HistoryEvent) -> tuple:
        return (event.entry_id, event.action, self._rows.time(event.at), event.actor, detail_json(event.detail))

    def _add_event(self, conn: Any, event: HistoryEvent) -> None:
        mark = self._rows.mark
        conn.execute(f"INSERT INTO entry_history (entry_id, action, at, actor, detail) VALUES ({mark}, {mark}, "
                     f"{mark}, {mark}, {self._rows.json_mark})", self._event_params(event))


def owes_markdown(entry: Entry) -> bool:
    """Whether a change to a live entry is written to the markdown audit trail: an imported entry's markdown is
    the bank it came from (its history goes to the history file); writing it into the global store's markdown
    would make it look held there, so its removal from the bank would no longer retire it."""
    return entry.source != "import"


def edited(old: Entry, draft: "EntryDraft", event: HistoryEvent, as_given: bool = False,
           anchors: Optional[Sequence[Anchor]] = None) -> Entry:
    """The entry an edit stores: the draft's text under its new id, with the old entry's counts (the higher
    observation count), dates, confidence (unless the draft's is higher), provenance, scope and anchors (or
    `anchors`). `as_given` (a person's edit): the draft's reasoning, keywords, references and confidence as they
    are, even empty or lower (a bank edit fills what its block leaves out from the old entry)."""
    new = Entry.from_draft(draft, event.at)
    kept = new.with_changes(observation_count=max(old.observation_count, new.observation_count),
                            recall_count=old.recall_count, last_recalled_at=old.last_recalled_at,
                            created_at=old.created_at, source=old.source, source_project=old.source_project,
                            scope=old.scope, anchors=tuple(old.anchors if anchors is None else anchors))
    if as_given:
        return kept
    confidence = max(old.confidence, new.confidence, key=lambda c: CONFIDENCE_RANK.get(c, 0))
    return kept.with_changes(confidence=confidence, keywords=list(new.keywords or old.keywords),
                             references=list(new.references or old.references),
                             reasoning=new.reasoning or old.reasoning)


def _followed(direct: Mapping[str, str], old: str) -> str:
    """Where a chain of aliases ends (a cycle stops where it would repeat)."""
    seen, current = {old}, old
    for _ in range(MAX_ALIAS_HOPS):
        nxt = direct.get(current)
        if nxt is None or nxt in seen:
            break
        current = nxt
        seen.add(current)
    return current
