"""The lifecycle use cases' recipes (ADR 26): retire, restore, supersede, confirm and review, with the seams to
the anchor check (`check_anchors_for`, `anchors_for`) and the near-duplicate finder (`near_duplicate_pairs`)."""

from __future__ import annotations

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


def confirm(store, clock, reconcile, project_root: Optional[str]):
    """Re-anchors an entry to the project's code as it is today."""
    from memory_core.usecases.lifecycle.changes import Confirm

    return Confirm(store=store, lifecycle=store, clock=clock, anchors_for=anchors_for(project_root or "."),
                   reconcile=reconcile)


def review(store, project_root: Optional[str]):
    """The review queues of the project's entries: stale citations, near-duplicates, superseded entries."""
    from memory_core.usecases.lifecycle.review import Review

    return Review(store=store, lifecycle=store, stale_check=check_anchors_for(project_root or "."),
                  duplicate_pairs=near_duplicate_pairs(store))


def anchors_for(project_root: str):
    """Today's anchors of references in this project (i24-check's anchoring)."""
    raise NotImplementedError("anchors_for: wired when the anchor check lands")  # swapped on merge


def check_anchors_for(project_root: str):
    """The anchor states of entries, judged in this project only (i24-check's CheckAnchors)."""
    def states(entries: Sequence[Any]) -> dict:
        return {}
    return states  # swapped on merge


def near_duplicate_pairs(store):
    """Pairs of live entries that say the same thing (i24-dups' finder); none until it is wired."""
    def pairs(entries: Sequence[Any]) -> list:
        return []
    return pairs  # swapped on merge
