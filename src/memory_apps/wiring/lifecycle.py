"""The lifecycle use cases' recipes (ADR 26): retire, restore, supersede, confirm, edit and review, with the seam
to the near-duplicate finder (`near_duplicate_pairs`)."""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence


def actor(tool: str) -> str:
    """Who made a change, as history records it: `<user> via <tool>` (cli, mcp, writer, library, import)."""
    import getpass  # only when a change is recorded: the hook's path imports this module with the recipes

    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        user = "unknown"
    return f"{user} via {tool}"


def retire(store, clock, reconcile):
    """Takes an entry out of injection and search, kept and restorable."""
    from memory_core.usecases.lifecycle.changes import Retire

    return Retire(lifecycle=store, clock=clock, reconcile=reconcile)


def restore(store, clock, reconcile):
    """Puts a retired entry back."""
    from memory_core.usecases.lifecycle.changes import Restore

    return Restore(lifecycle=store, clock=clock, reconcile=reconcile)


def supersede(store, clock, remember, reconcile):
    """Stores a new learning and retires the one it replaces."""
    from memory_core.usecases.lifecycle.supersede import Supersede

    return Supersede(store=store, lifecycle=store, clock=clock, remember=remember, reconcile=reconcile)


def confirm(store, clock, reconcile, code_files, layout, project_root: Optional[str]):
    """Re-anchors an entry to the project's code as it is today (anchors taken as a writer takes them)."""
    from memory_adapters.project.git_code_files import head_commit
    from memory_core.usecases.anchoring import check_anchor
    from memory_core.usecases.check_anchors import anchors_for
    from memory_core.usecases.lifecycle.changes import Confirm

    root = project_root or os.getcwd()
    identity = layout.identity(root)

    def today(references: Sequence[str]):
        return anchors_for(references, code_files, identity, head_commit(root))

    return Confirm(store=store, lifecycle=store, clock=clock, anchors_for=today, reconcile=reconcile,
                   project=identity, state_of=lambda anchor: check_anchor(anchor, code_files))


def edit(store, clock, reconcile, layout, tree_anchoring=None, project_root: Optional[str] = None):
    """A person's edit of a memory's text; the references it adds are anchored in the project it runs in."""
    import functools

    from memory_core.usecases.lifecycle.edit import EditEntry

    anchoring = functools.partial(tree_anchoring, project_root) if tree_anchoring and project_root else None
    return EditEntry(store=store, lifecycle=store, clock=clock, reconcile=reconcile, anchoring=anchoring,
                     bank_dir=layout.knowledge_bank)


def review(store, check_anchors, layout, project_root: Optional[str]):
    """The review queues: stale citations (judged in this project only), near-duplicates, superseded entries."""
    from memory_core.usecases.lifecycle.review import Review

    identity = layout.identity(project_root or os.getcwd())

    def stale(entries: Sequence[Any]):
        return check_anchors.states(entries, identity)  # a command a human waits for: no deadline

    return Review(store=store, lifecycle=store, stale_check=stale, duplicate_pairs=near_duplicate_pairs(store))


def near_duplicate_pairs(store):
    """Pairs of live entries that say the same thing, scored by the write-time rule (memory_core.ranking.
    near_duplicates): each entry's closest vectors, and for an entry without one its keyword search's hits."""
    from memory_core.ranking.fts_query import sanitise_fts_query
    from memory_core.ranking.near_duplicates import CANDIDATES, MIN_CANDIDATE_COSINE
    from memory_core.ranking.near_duplicates import near_duplicate_pairs as scored_pairs

    def pairs(entries: Sequence[Any]) -> list:
        neighbours: dict[str, dict[str, Optional[float]]] = {}
        if hasattr(store, "vectors"):
            from memory_adapters.vectors.neighbours import nearest_neighbours

            neighbours.update(nearest_neighbours(store.vectors(), MIN_CANDIDATE_COSINE, CANDIDATES))
        if getattr(store, "keyword_search_available", False):
            for entry in entries:
                query = sanitise_fts_query(f"{entry.name} {entry.description}")
                if entry.id not in neighbours and query:  # no vector: judged by words alone, as at write
                    hits = store.keyword_search(query, CANDIDATES + 1)
                    neighbours[entry.id] = {other: None for other in hits if other != entry.id}
        return scored_pairs(entries, neighbours)
    return pairs
