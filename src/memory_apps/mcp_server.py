"""The MCP server (`iflow-memory serve`): store_memory, search_memory, get_memory, delete_memory over stdio, and
the lifecycle tools (`mcp_lifecycle`: review_memory, confirm_memory, retire_memory, restore_memory)."""

from __future__ import annotations

import importlib.metadata
from typing import Annotated, Literal, Optional

from pydantic import BaseModel, Field, ValidationError

from memory_apps.formatting import EXIT_DATABASE, fail
from memory_apps.mcp_lifecycle import RetiredMemory, add_lifecycle_tools, retired_memory
from memory_apps.service import MemoryService
from memory_core.errors import InvalidEntry, MemoryCoreError, install_hint
from memory_core.safety.inert import one_line, strip_controls
from memory_core.entries.models import CATEGORIES, MAX_REFERENCES
from memory_core.entries.request_checks import MAX_IDS, MAX_LIMIT, plain_errors

INSTRUCTIONS = (
    "Long-term engineering memory. Call store_memory when you learn something worth keeping across sessions "
    "(a mistake to avoid, a pattern that worked, a rule of thumb), with the reasoning behind it. "
    "Call search_memory to look up earlier learnings about the task at hand, and get_memory to read in full "
    "the learnings a session's memory block lists by id and name only."
)

STORE_DESCRIPTION = (
    "Save a learning to long-term memory so later sessions (of this project and others) can find it. "
    "An entry's identity is its description text: storing again with the same description does not add a "
    "second entry, it reinforces the existing one (observation count + 1; the new name, and reasoning or "
    "references when given, replace the old). Besides the database, every store writes the markdown audit "
    "trail: the project's docs/knowledge-bank/*.md (the file of the entry's category, e.g. patterns.md) and the "
    "global store's copy, so the change shows up in the project's files. The result lists near_duplicates: "
    "stored learnings that say the same thing in other words (the new one is stored all the same). If one of them "
    "is the same learning, call store_memory again with merge_into set to its id (this reinforces it instead) and "
    "delete_memory the copy just stored; if they differ, leave both. The description of a retired learning (or "
    "merge_into a retired id) is refused, nothing stored: restore_memory brings that learning back."
)
SEARCH_DESCRIPTION = (
    "Find stored learnings relevant to a query, best first (meaning + keywords + prominence). Read-only. "
    "Returns only good matches: each result's relevance (0-1, comparable across queries) reaches a floor, so an "
    "empty results list means nothing stored answers the query (the note says so); include_weak_matches=true also "
    "returns the closest learnings under the floor, marked good_match=false."
)
GET_DESCRIPTION = (
    "Read stored learnings in full by id. A session's memory block may list learnings by id and name only "
    f"(`- <id> — <name>`); pass those ids (up to {MAX_IDS} a call) to get each one's description, reasoning and "
    "references. Ids that name no learning come back in not_found. Read-only."
)
NO_GOOD_MATCH = ("No stored learning is a good match for this query; include_weak_matches=true shows the closest "
                 "ones anyway.")
DELETE_DESCRIPTION = (
    "Delete a stored learning by its id (as returned by store_memory or search_memory), from the database and "
    "its markdown copies; later imports never bring it back."
)

CategoryName = Literal[CATEGORIES]  # type: ignore[valid-type]  # the enum a model sees is the core's own list


def server_version() -> str:
    """The installed iflow-memory version (reported as serverInfo.version), or "0+unknown" when not installed."""
    try:
        return importlib.metadata.version("iflow-memory")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


class SimilarMemory(BaseModel):
    """A stored learning that says what the new one says, in other words."""

    id: str
    name: str
    score: float


class StoredMemory(BaseModel):
    """Result of store_memory."""

    id: str
    name: str
    created: bool
    observation_count: int
    embedded: bool
    message: str
    superseded: Optional[str] = None
    near_duplicates: list[SimilarMemory] = []
    merged: bool = False


class CitationState(BaseModel):
    """How one citation a learning took in this project stands in its code today (ADR 26)."""

    reference: str
    state: str
    """`current`, `changed` (the file or the cited region differs), `moved` (see moved_to) or `missing`."""
    moved_to: Optional[str] = None
    note: str = ""
    """The line to act on ("cites src/old.py, now src/new.py"); "" when current."""


def citation_states(states) -> list[CitationState]:
    """A learning's checked citations as the tools return them, stored paths on one line."""
    return [CitationState(reference=one_line(s.reference), state=s.state,
                          moved_to=one_line(s.moved_to) if s.moved_to else None, note=one_line(s.note()))
            for s in states]


class MemoryHit(BaseModel):
    """One search result."""

    id: str
    name: str
    category: str
    description: str
    score: float
    relevance: Optional[float]
    good_match: bool
    citations: list[CitationState] = []
    """Its citations of this project's code, checked now (empty when it cites none of this project's files)."""


class SearchResults(BaseModel):
    """Result of search_memory."""

    query: str
    results: list[MemoryHit]
    signals: str
    note: Optional[str] = None


class MemoryEntry(BaseModel):
    """One learning in full."""

    id: str
    name: str
    category: str
    description: str
    reasoning: str
    references: list[str]
    keywords: list[str]
    confidence: str
    observation_count: int
    source_project: Optional[str]
    citations: list[CitationState] = []
    """Its citations of this project's code, checked now (empty when it cites none of this project's files)."""


class Memories(BaseModel):
    """Result of get_memory."""

    entries: list[MemoryEntry]
    not_found: list[str]
    retired: list[RetiredMemory] = []


class DeletedMemory(BaseModel):
    """Result of delete_memory."""

    id: str
    deleted: bool


def build_server(service: MemoryService):
    """An MCPServer whose tools run blocking work in worker threads."""
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.types import ToolAnnotations

    class PlainErrorServer(MCPServer):
        """Reports arguments that fail the input schema in a line naming each field, not a pydantic dump."""

        async def call_tool(self, name, arguments, context=None):
            """Call a tool; a schema failure becomes `invalid <field>: <why>` for each field."""
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                    raise
                problems = "; ".join(f"invalid {p.field}: {p.message}" for p in plain_errors(cause, "arguments"))
                raise ToolError(f"Error executing tool {name}: {problems}") from cause

    server = PlainErrorServer("iflow-memory", instructions=INSTRUCTIONS, version=server_version(),
                              log_level="WARNING")

    async def in_thread(function, *args):
        from memory_core.usecases.retired_refusal import RetiredLearning

        try:
            return await anyio.to_thread.run_sync(function, *args)
        except RetiredLearning as exc:  # nothing stored: say what was retired and how it comes back
            raise ToolError(f"{exc.described}; restore_memory brings it back") from exc
        except InvalidEntry as exc:
            raise ToolError(f"invalid {exc.field}: {exc.message}") from exc
        except MemoryCoreError as exc:
            raise ToolError(f"memory store error: {exc}") from exc

    # Not idempotent in the MCP sense ("a repeat has no additional effect"): a repeat never adds a second entry,
    # but it counts one more observation, which raises the entry's rank, so a blind retry is not free. Not
    # destructive: nothing is removed; a repeat only rewrites the same learning (same description) with the
    # caller's newer name, reasoning and references, and the markdown audit trail records it.
    @server.tool(description=STORE_DESCRIPTION, annotations=ToolAnnotations(
        title="Store a learning", read_only_hint=False, destructive_hint=False, idempotent_hint=False,
        open_world_hint=False))
    async def store_memory(
        name: Annotated[str, Field(min_length=1, description="Short title of the learning, e.g. 'Quote CSV "
                                                             "fields'.")],
        description: Annotated[str, Field(min_length=1, description=(
            "What was learned, in a sentence or two. This text is the entry's identity: the same description "
            "again reinforces the stored entry instead of adding one."))],
        reasoning: Annotated[str, Field(min_length=1, description=(
            "Why it matters and how it was found (the incident, measurement or review behind it)."))],
        category: Annotated[CategoryName, Field(description=(
            "anti-patterns: a mistake to avoid; patterns: an approach that worked; heuristics: a rule of "
            "thumb."))],
        references: Annotated[Optional[list[str]], Field(max_length=MAX_REFERENCES, description=(
            "Optional files or features the learning is about, e.g. ['src/export.py']."))] = None,
        supersedes: Annotated[Optional[str], Field(description=(
            "Optional id of a stored learning this one replaces (it was wrong or outdated): it is retired, "
            "pointing to the new one."))] = None,
        merge_into: Annotated[Optional[str], Field(description=(
            "Optional id of a stored learning (as near_duplicates, search_memory or get_memory gave it) that "
            "this one repeats: reinforce that learning (observation count + 1, these references added) instead "
            "of storing a new one."))] = None,
    ) -> StoredMemory:
        """Store or reinforce one learning (the model reads STORE_DESCRIPTION)."""
        if not reasoning.strip():
            raise ToolError("invalid reasoning: must not be empty (say why this matters and how you found it)")
        result = await in_thread(lambda: service.remember(
            name, description, reasoning, category, references or [], source="session-capture",
            supersedes=supersedes.strip() if supersedes else None,
            merge_into=merge_into.strip() if merge_into else None))
        name = one_line(result.name)  # results are read by a model: stored text is shown inert (ADR 13)
        similar = [SimilarMemory(id=n.entry_id, name=one_line(n.name), score=n.score) for n in result.near_duplicates]
        if result.merged:
            message = (f"Merged into '{name}' (id: {result.entry_id}): reinforced, now observed "
                       f"{result.observation_count} times; nothing new stored")
        elif result.created:
            message = f"Stored: {name} (id: {result.entry_id})"
        else:
            message = (f"Already known: reinforced '{name}' (id: {result.entry_id}), "
                       f"now observed {result.observation_count} times")
        if result.superseded:
            message += f"; retired {result.superseded}, which it supersedes"
        if similar:
            message += ". Similar stored learnings: " + "; ".join(f"{s.id} — {s.name}" for s in similar) + (
                f". If one says the same thing, delete_memory {result.entry_id} and store again with "
                f"merge_into=<its id>" if result.created else "")
        return StoredMemory(id=result.entry_id, name=name, created=result.created,
                            observation_count=result.observation_count, embedded=result.embedded, message=message,
                            superseded=result.superseded, near_duplicates=similar, merged=result.merged)

    # Read-only: a search ranks what is stored and records nothing (recall counts are a session start's).
    @server.tool(description=SEARCH_DESCRIPTION, annotations=ToolAnnotations(
        title="Search learnings", read_only_hint=True, open_world_hint=False))
    async def search_memory(
        query: Annotated[str, Field(min_length=1, description=(
            "What to look for, in plain words: the task, error or question at hand."))],
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description=(
            f"How many learnings to return at most (1 to {MAX_LIMIT})."))] = 10,
        category: Annotated[Optional[CategoryName], Field(description=(
            "Only learnings of this category; omit for every category."))] = None,
        include_weak_matches: Annotated[bool, Field(description=(
            "Also return learnings under the relevance floor (good_match=false): the closest ones even when "
            "nothing matches well. Default false: good matches only."))] = False,
    ) -> SearchResults:
        """Search stored learnings (the model reads SEARCH_DESCRIPTION)."""
        found = await in_thread(lambda: service.search(  # the service checks query and limit
            query, limit, category, include_weak=include_weak_matches))
        signals = f"vector={found.vector.matches if found.vector.ran else 'off'}, " \
                  f"fts5={found.keyword.matches if found.keyword.ran else 'off'}"
        hits = [MemoryHit(id=r.entry.id, name=one_line(r.entry.name), category=r.entry.category,
                          description=strip_controls(r.entry.description), score=round(r.score, 4),
                          relevance=None if r.relevance is None else round(r.relevance, 3),
                          good_match=found.is_good(r), citations=citation_states(found.anchors.get(r.entry.id, [])))
                for r in found.selected]
        note = None
        if not any(hit.good_match for hit in hits):
            note = NO_GOOD_MATCH if found.total else "No learnings are stored yet."
        return SearchResults(query=strip_controls(query), results=hits, signals=signals, note=note)

    # Read-only, like search: reading a learning the block named records nothing.
    @server.tool(description=GET_DESCRIPTION, annotations=ToolAnnotations(
        title="Read learnings in full", read_only_hint=True, open_world_hint=False))
    async def get_memory(
        ids: Annotated[list[str], Field(min_length=1, max_length=MAX_IDS, description=(
            "The 16-character ids of the learnings (as the memory block, search_memory or store_memory gave "
            "them); a unique prefix of at least 4 characters also works."))],
    ) -> Memories:
        """Read learnings by id (the model reads GET_DESCRIPTION)."""
        found = await in_thread(lambda: service.get_many(ids))
        retired = await in_thread(lambda: _retired_or_edited(service, found))
        states = await in_thread(lambda: service.citations(found.entries)) if found.entries else {}
        return Memories(entries=[shown_entry(e, states.get(e.id, ())) for e in found.entries],
                        not_found=[one_line(text) for text in found.not_found], retired=retired)

    # Destructive (it removes a learning) and idempotent: deleting again changes nothing more; the repeat only
    # answers that the id is unknown.
    @server.tool(description=DELETE_DESCRIPTION, annotations=ToolAnnotations(
        title="Delete a learning", read_only_hint=False, destructive_hint=True, idempotent_hint=True,
        open_world_hint=False))
    async def delete_memory(
        entry_id: Annotated[str, Field(min_length=1, description=(
            "The 16-character id of the learning, as store_memory or search_memory returned it."))],
    ) -> DeletedMemory:
        """Delete one learning (the model reads DELETE_DESCRIPTION)."""
        deleted = await in_thread(lambda: service.delete(entry_id.strip()))
        if not deleted:
            raise ToolError(f"no entry with id {entry_id!r}; use search_memory to find ids")
        return DeletedMemory(id=entry_id.strip(), deleted=True)

    add_lifecycle_tools(server, service, in_thread)
    return server


def _retired_or_edited(service: MemoryService, found) -> list[RetiredMemory]:
    """Of the ids get_many did not find: retired ones said so, an edited entry's old id read as the entry it
    became (`found` updated in place); the others stay not found."""
    retired, missing = [], []
    for text in found.not_found:
        try:
            located = service.locate(text)
        except InvalidEntry:
            located = None
        if located is not None and located.retired is not None and service.sees(located.retired.entry):
            retired.append(retired_memory(located.retired))
            continue
        current = service.get_many([located.entry_id]).entries if located is not None else []
        if current and current[0] not in found.entries:
            found.entries.append(current[0])
        elif not current:
            missing.append(text)
    found.not_found = missing
    return retired


def shown_entry(entry, states=()) -> MemoryEntry:
    """An entry as get_memory returns it: stored text inert (ADR 13), names and list items on one line, with its
    checked citations (`states`)."""
    return MemoryEntry(id=entry.id, name=one_line(entry.name), category=entry.category,
                       description=strip_controls(entry.description), reasoning=strip_controls(entry.reasoning),
                       references=[one_line(r) for r in entry.references], keywords=[one_line(k) for k in entry.keywords],
                       confidence=entry.confidence, observation_count=entry.observation_count,
                       source_project=one_line(entry.source_project) if entry.source_project else None,
                       citations=citation_states(states))


def serve(global_store: Optional[str], project_root: Optional[str]) -> int:
    """Run the server on stdio until the client disconnects."""
    try:
        service = MemoryService(global_store, project_root, create=True, tool="mcp")  # a writer (ADR 14)
        server = build_server(service)
    except ImportError:
        return fail(f"the MCP server needs the mcp package: {install_hint('mcp')}")
    except MemoryCoreError as exc:
        return fail(f"cannot start: {exc}", EXIT_DATABASE)
    server.run()
    return 0
