"""Rows of the `entries` table read into the core's `Entry`, for both stores: each store selects its columns in
this shape (JSON list text, ISO 8601 UTC text). Trusted rows are wrapped as they are; rows that break the model's
rules (edited by hand, written by an old version) are revalidated or skipped."""

from __future__ import annotations

import copy
import json
import re
import sys
import threading
from collections import OrderedDict
from datetime import datetime, timezone
from typing import Optional

from memory_core.anchors.anchor import Anchor
from memory_core.entries.records import CATEGORIES, CONFIDENCE_RANK, ENTRY_FIELDS, SOURCES, Entry
from memory_core.safety.redaction import contains_secret

FIELDS = ["id", "name", "description", "reasoning", "category", "keywords", "references", "observation_count",
          "confidence", "recall_count", "last_recalled_at", "created_at", "updated_at", "source", "source_project",
          "scope", "has_embedding", "anchors"]
"""The columns every store's entry select returns, in this order (`has_embedding`: whether a vector is stored;
`anchors`: a JSON list of `Anchor.to_dict()`)."""
ENTRY_WIDTH = len(FIELDS)
"""How many columns of a select are the entry's (a copy's select adds its own after them)."""

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_ID = re.compile(r"^[0-9a-f]{16}$")
_CATEGORIES = frozenset(CATEGORIES)
_CONFIDENCES = frozenset(CONFIDENCE_RANK)
_SOURCES = frozenset(SOURCES)


def from_text(text: Optional[str]) -> Optional[datetime]:
    """Parse ISO 8601 (with Z, an offset or neither: naive means UTC); None when unparseable."""
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def dumps(values: list[str]) -> str:
    """A JSON list of strings, as the keywords and references columns hold them."""
    return json.dumps(values, ensure_ascii=False)


def json_list(text: Optional[str]) -> list[str]:
    """The strings of a JSON list column; anything else reads as empty."""
    if not text:
        return []
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def anchors_of(value: object) -> tuple[Anchor, ...]:
    """The anchors of an `anchors` column (JSON text, or a list from PostgreSQL's jsonb); anything unreadable
    reads as none: a hand-edited column never stops an entry from being read."""
    if isinstance(value, (str, bytes)):
        try:
            value = json.loads(value)
        except ValueError:
            return ()
    if not isinstance(value, list):
        return ()
    anchors = []
    for item in value:
        try:
            anchors.append(Anchor.from_dict(item))
        except (ValueError, TypeError, AttributeError):
            continue  # one bad anchor costs only itself
    return tuple(anchors)


def anchors_json(anchors: "tuple[Anchor, ...] | list[Anchor]") -> str:
    """The `anchors` column's JSON text ('[]' for none)."""
    return json.dumps([anchor.to_dict() for anchor in anchors], ensure_ascii=False)


class _KeptEntries:
    """Entries of the rows read last, by the whole row: checking a row for secrets costs ~0.15 ms and a
    long-running host returns the same entries again and again. A row that changed in any column is a new key."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[tuple, Entry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Optional[Entry]:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
        return _own_copy(entry)

    def put(self, key: tuple, entry: Entry) -> None:
        with self._lock:
            self._entries[key] = _own_copy(entry)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)


def _own_copy(entry: Entry) -> Entry:
    """A copy whose lists are its own: an entry is frozen, its lists are not (a caller may change them)."""
    copied = copy.copy(entry)
    object.__setattr__(copied, "keywords", list(entry.keywords))
    object.__setattr__(copied, "references", list(entry.references))
    return copied


_KEPT = _KeptEntries(1024)  # ~2 MB at most
_SCALARS = {str, int, bool, float, bytes, type(None)}  # bool: PostgreSQL's `embedding IS NOT NULL`


def row_entry(row: tuple) -> Optional[Entry]:
    """The Entry of one row of FIELDS, or None (with a warning) when it cannot be made valid."""
    types = tuple(map(type, row))  # part of the key: 2 and 2.0 are equal, but only one of them is trusted
    keep = isinstance(row, tuple) and all(t in _SCALARS for t in types)
    kept = _KEPT.get((row, types)) if keep else None
    if kept is not None:
        return kept
    data = dict(zip(FIELDS, row))
    created = from_text(data["created_at"])
    updated = from_text(data["updated_at"])
    data.update(
        keywords=json_list(data["keywords"]),
        references=json_list(data["references"]),
        reasoning=data["reasoning"] or "",
        observation_count=data["observation_count"] or 1,
        recall_count=data["recall_count"] or 0,
        confidence=data["confidence"] or "medium",
        last_recalled_at=from_text(data["last_recalled_at"]),
        created_at=created or updated or _EPOCH,
        updated_at=updated or created or _EPOCH,
        has_embedding=bool(data["has_embedding"]),
        anchors=anchors_of(data["anchors"]),
    )
    if _trusted(data):
        entry = Entry(**data)  # the schema's CHECK constraints already hold: no validation on the hot path
        if keep:
            _KEPT.put((row, types), entry)
        return entry
    return _revalidated(data)


def _revalidated(data: dict) -> Optional[Entry]:
    """Validated like a new draft, so it is cleaned (blank-stripped, secrets redacted) or skipped."""
    from pydantic import ValidationError

    from memory_core.entries.models import EntryDraft

    try:
        if not (isinstance(data["id"], str) and _ID.match(data["id"])):
            raise ValueError("id is not a 16-digit content hash")
        draft = EntryDraft.model_validate({k: v for k, v in data.items() if k in EntryDraft.model_fields})
    except (ValidationError, ValueError) as exc:
        reason = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        print(f"iflow-memory: skipping unreadable entry {data.get('id')}: {reason}", file=sys.stderr)
        return None
    return Entry(**{**{k: data[k] for k in ENTRY_FIELDS if k in data}, **draft.model_dump()})


def _trusted(data: dict) -> bool:
    """True when a row already satisfies the model (the usual case), so validation can be skipped."""
    return (
        isinstance(data["id"], str) and bool(_ID.match(data["id"]))
        and isinstance(data["name"], str) and bool(data["name"].strip())
        and isinstance(data["description"], str) and bool(data["description"].strip())
        and data["category"] in _CATEGORIES and data["confidence"] in _CONFIDENCES
        and data["source"] in _SOURCES
        and isinstance(data["observation_count"], int) and data["observation_count"] >= 1
        and isinstance(data["recall_count"], int) and data["recall_count"] >= 0
        and not _holds_secret(data)
    )


def _holds_secret(data: dict) -> bool:
    """A row stored before the secret patterns knew its secret's shape: every output path reads it through
    here, so it is revalidated (redacted) before it is shown (ADR 12). Core patterns only: cheap per row."""
    texts = [t for t in (data["name"], data["description"], data["reasoning"], data["source_project"] or "",
                         *data["references"], *data["keywords"]) if isinstance(t, str)]
    # One scan of the whole row first (a row is read at every session start): a secret in one field is a secret
    # in the fields joined by newlines, which every pattern treats as it treats a text's end. Only a row that
    # may hold one is checked field by field, so a match across two fields cannot make a row untrusted.
    if not contains_secret("\n".join(texts), scanners=False):
        return False
    return any(contains_secret(t, scanners=False) for t in texts)
