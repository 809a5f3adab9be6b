"""Remember: validate a draft, store it (or reinforce it), and embed it when a provider is there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from memory_core.errors import EmbeddingError
from memory_core.keywords import clean_keywords
from memory_core.models import EntryDraft, UpsertOutcome
from memory_core.ports.clock import Clock
from memory_core.ports.entry_store import EntryStore


@dataclass
class Remembered:
    """The stored entry's id, whether it was new, and its observation count."""

    entry_id: str
    name: str
    created: bool
    observation_count: int


class Remember:
    """Stores learnings from writers (retro, MCP, CLI)."""

    def __init__(self, store: EntryStore, clock: Clock, embed_new: Optional[object] = None) -> None:
        self._store = store
        self._clock = clock
        self._embed_new = embed_new

    def run(self, draft: EntryDraft) -> Remembered:
        """Upsert the draft by content hash; vectors are added outside the write transaction."""
        draft = draft.model_copy(update={"keywords": clean_keywords(draft.keywords)})
        outcome: UpsertOutcome = self._store.upsert(draft, self._clock.now())
        if self._embed_new is not None:
            try:
                self._embed_new([outcome.entry_id])  # type: ignore[operator]
            except EmbeddingError:
                pass  # the entry stays pending and is embedded by a later write
        return Remembered(outcome.entry_id, draft.name, outcome.created, outcome.observation_count)
