"""The MCP server's lifecycle tools (ADR 26): review_memory, confirm_memory, retire_memory, restore_memory, and
what get_memory says of a retired id; an agent tidies up the memory when asked, with the same rules as the CLI."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import BaseModel, Field

from memory_core.safety.inert import one_line

REVIEW_DESCRIPTION = (
    "List the stored learnings that need a decision, in three queues: stale (the code a learning cites moved, "
    "changed or is gone since it was learned; each reference with its state and, for a move, the new path), "
    "near_duplicates (pairs of learnings that say the same thing) and superseded (learnings retired as replaced by "
    "a later one). Read-only. Act on it only when the user asks you to tidy up the memory: confirm_memory (still "
    "true), retire_memory (no longer true), restore_memory (a retirement was a mistake)."
)
CONFIRM_DESCRIPTION = (
    "Say a stored learning is still true of the code as it is now: its citations are re-anchored to today's files, "
    "so it is no longer listed as stale. Use after reading the cited code, when the user asked you to review. A "
    "cited file that is gone keeps its old anchor and stays marked; the message says where it went: then store "
    "the corrected learning with supersedes, or retire_memory it."
)
RETIRE_DESCRIPTION = (
    "Retire a stored learning that is no longer true: it is no longer injected into sessions or found by search, "
    "but kept with its history; restore_memory brings it back. Give the reason."
)
RESTORE_DESCRIPTION = "Bring a retired learning back into sessions and search (undo retire_memory)."
ID_FIELD = "The 16-character id of the learning (as review_memory or search_memory gave it), or a unique prefix."


class StaleReference(BaseModel):
    """One citation that is no longer current."""

    reference: str
    state: str
    moved_to: Optional[str]
    note: str


class StaleMemory(BaseModel):
    """A learning whose citations went stale."""

    id: str
    name: str
    references: list[StaleReference]


class DuplicatePair(BaseModel):
    """Two learnings that say the same thing."""

    ids: list[str]
    names: list[str]
    score: float


class SupersededMemory(BaseModel):
    """A learning retired as replaced by a later one."""

    id: str
    name: str
    superseded_by: Optional[str]


class ReviewQueues(BaseModel):
    """Result of review_memory."""

    stale: list[StaleMemory]
    near_duplicates: list[DuplicatePair]
    superseded: list[SupersededMemory]
    note: str


class LifecycleChange(BaseModel):
    """Result of confirm_memory, retire_memory and restore_memory."""

    id: str
    name: str
    action: str
    message: str


class RetiredMemory(BaseModel):
    """A retired learning get_memory was asked for: what happened to it."""

    id: str
    name: str
    retired_at: str
    reason: str
    superseded_by: Optional[str]
    message: str


def review_result(queues: Any) -> ReviewQueues:
    """The review queues as review_memory returns them (stored text inert)."""
    stale = [StaleMemory(id=s.entry.id, name=one_line(s.entry.name), references=[
        StaleReference(reference=one_line(a.reference), state=a.state,
                       moved_to=one_line(a.moved_to) if a.moved_to else None, note=one_line(a.note()))
        for a in s.states]) for s in queues.stale]
    pairs = [DuplicatePair(ids=[p.first.id, p.second.id], names=[one_line(p.first.name), one_line(p.second.name)],
                           score=round(p.score, 4)) for p in queues.near_duplicates]
    superseded = [SupersededMemory(id=r.entry.id, name=one_line(r.entry.name), superseded_by=r.superseded_by)
                  for r in queues.superseded]
    note = ("Nothing needs review." if queues.empty() else
            "Ask the user before changing anything; then confirm_memory, retire_memory or restore_memory by id.")
    return ReviewQueues(stale=stale, near_duplicates=pairs, superseded=superseded, note=note)


def retired_memory(retired: Any) -> RetiredMemory:
    """What get_memory says of a retired id."""
    by = f"; superseded by {retired.superseded_by}" if retired.superseded_by else ""
    why = f" ({one_line(retired.reason)})" if retired.reason else ""
    return RetiredMemory(id=retired.entry.id, name=one_line(retired.entry.name),
                         retired_at=retired.retired_at.isoformat(), reason=one_line(retired.reason),
                         superseded_by=retired.superseded_by,
                         message=f"Retired{why}{by}: no longer injected or searched; restore_memory brings it back.")


def add_lifecycle_tools(server: Any, service: Any, in_thread: Any) -> None:
    """Register review_memory, confirm_memory, retire_memory and restore_memory on the server."""
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    def change(action: str, entry_id: str, *arguments: str):
        found = service.locate(entry_id.strip())
        if found is None:
            raise ToolError(f"no entry with id {one_line(entry_id)!r}; use search_memory or review_memory to find ids")
        if (found.retired is None) != (action != "restore"):
            state = "retired (restore_memory first)" if found.retired is not None else "not retired"
            raise ToolError(f"{found.entry_id} is {state}")
        entry = getattr(service, action)(found.entry_id, *arguments)
        if entry is None:
            raise ToolError(f"no entry with id {one_line(entry_id)!r}")
        return entry

    # Read-only: a review checks citations and lists; it changes nothing (the anchor cache is a cache).
    @server.tool(description=REVIEW_DESCRIPTION, annotations=ToolAnnotations(
        title="Review learnings", read_only_hint=True, open_world_hint=False))
    async def review_memory(
        queue: Annotated[Optional[Literal["stale", "near_duplicates", "superseded"]], Field(description=(
            "Only this queue (the others come back empty); omit for all three."))] = None,
    ) -> ReviewQueues:
        """List what needs a decision (the model reads REVIEW_DESCRIPTION)."""
        result = review_result(await in_thread(service.review))
        for other in {"stale", "near_duplicates", "superseded"} - {queue or ""} if queue else ():
            setattr(result, other, [])
        return result

    # Idempotent: confirming again takes the same anchors of the same code (one more history line).
    @server.tool(description=CONFIRM_DESCRIPTION, annotations=ToolAnnotations(
        title="Confirm a learning", read_only_hint=False, destructive_hint=False, idempotent_hint=True,
        open_world_hint=False))
    async def confirm_memory(entry_id: Annotated[str, Field(min_length=1, description=ID_FIELD)]) -> LifecycleChange:
        """Re-anchor one learning (the model reads CONFIRM_DESCRIPTION)."""
        confirmed = await in_thread(lambda: change("confirm", entry_id))
        return LifecycleChange(id=confirmed.id, name=one_line(confirmed.name), action="confirmed",
                               message=f"Confirmed: {confirmed.summary()}")

    # Not destructive: the learning is kept and restore_memory undoes it.
    @server.tool(description=RETIRE_DESCRIPTION, annotations=ToolAnnotations(
        title="Retire a learning", read_only_hint=False, destructive_hint=False, idempotent_hint=False,
        open_world_hint=False))
    async def retire_memory(
        entry_id: Annotated[str, Field(min_length=1, description=ID_FIELD)],
        reason: Annotated[str, Field(description="Why it is no longer true (kept in its history).")] = "",
    ) -> LifecycleChange:
        """Retire one learning (the model reads RETIRE_DESCRIPTION)."""
        entry = await in_thread(lambda: change("retire", entry_id, reason.strip()))
        return LifecycleChange(id=entry.id, name=one_line(entry.name), action="retired",
                               message="Retired: no longer injected or found by search; restore_memory undoes it")

    @server.tool(description=RESTORE_DESCRIPTION, annotations=ToolAnnotations(
        title="Restore a learning", read_only_hint=False, destructive_hint=False, idempotent_hint=False,
        open_world_hint=False))
    async def restore_memory(entry_id: Annotated[str, Field(min_length=1, description=ID_FIELD)]) -> LifecycleChange:
        """Restore one retired learning (the model reads RESTORE_DESCRIPTION)."""
        entry = await in_thread(lambda: change("restore", entry_id))
        return LifecycleChange(id=entry.id, name=one_line(entry.name), action="restored",
                               message="Restored: injected and found by search again")
