"""The MCP server (`iflow-memory serve`): store_memory, search_memory, delete_memory over stdio."""

from __future__ import annotations

import sys
from typing import Optional

from pydantic import BaseModel

from memory_apps.service import MemoryService
from memory_core.errors import InvalidEntry, MemoryCoreError
from memory_core.inert import one_line, strip_controls

INSTRUCTIONS = (
    "Long-term engineering memory. Call store_memory when you learn something worth keeping across sessions "
    "(a mistake to avoid, a pattern that worked, a rule of thumb), with the reasoning behind it. "
    "Call search_memory to look up earlier learnings about the task at hand."
)


class StoredMemory(BaseModel):
    """Result of store_memory."""

    id: str
    name: str
    created: bool
    observation_count: int
    embedded: bool
    message: str


class MemoryHit(BaseModel):
    """One search result."""

    id: str
    name: str
    category: str
    description: str
    score: float


class SearchResults(BaseModel):
    """Result of search_memory."""

    query: str
    results: list[MemoryHit]
    signals: str


class DeletedMemory(BaseModel):
    """Result of delete_memory."""

    id: str
    deleted: bool


def build_server(service: MemoryService):
    """An MCPServer whose tools run blocking work in worker threads."""
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("iflow-memory", instructions=INSTRUCTIONS, log_level="WARNING")

    async def in_thread(function, *args):
        try:
            return await anyio.to_thread.run_sync(function, *args)
        except InvalidEntry as exc:
            raise ToolError(f"invalid {exc.field}: {exc.message}") from exc
        except MemoryCoreError as exc:
            raise ToolError(f"memory store error: {exc}") from exc

    @server.tool()
    async def store_memory(name: str, description: str, reasoning: str, category: str,
                           references: Optional[list[str]] = None) -> StoredMemory:
        """Save a learning: name (short title), description (what was learned), reasoning (why it matters,
        how it was found), category (anti-patterns | patterns | heuristics), references (files, features)."""
        if not reasoning or not reasoning.strip():
            raise ToolError("invalid reasoning: must not be empty (say why this matters and how you found it)")
        result = await in_thread(lambda: service.remember(
            name, description, reasoning, category, references or [], source="session-capture"))
        name = one_line(result.name)  # results are read by a model: stored text is shown inert (ADR 13)
        if result.created:
            message = f"Stored: {name} (id: {result.entry_id})"
        else:
            message = (f"Already known: reinforced '{name}' (id: {result.entry_id}), "
                       f"now observed {result.observation_count} times")
        return StoredMemory(id=result.entry_id, name=name, created=result.created,
                            observation_count=result.observation_count, embedded=result.embedded, message=message)

    @server.tool()
    async def search_memory(query: str, limit: int = 10, category: Optional[str] = None) -> SearchResults:
        """Find stored learnings relevant to a query (meaning + keywords + prominence), best first."""
        if not query or not query.strip():
            raise ToolError("invalid query: must not be empty")
        if limit < 1 or limit > 100:
            raise ToolError("invalid limit: must be between 1 and 100")
        found = await in_thread(lambda: service.search(query, limit, category))
        signals = f"vector={found.vector.matches if found.vector.ran else 'off'}, " \
                  f"fts5={found.keyword.matches if found.keyword.ran else 'off'}"
        hits = [MemoryHit(id=r.entry.id, name=one_line(r.entry.name), category=r.entry.category,
                          description=strip_controls(r.entry.description), score=round(r.score, 4))
                for r in found.selected]
        return SearchResults(query=strip_controls(query), results=hits, signals=signals)

    @server.tool()
    async def delete_memory(entry_id: str) -> DeletedMemory:
        """Delete a stored learning by its id (as returned by store_memory or search_memory)."""
        deleted = await in_thread(lambda: service.delete(entry_id.strip()))
        if not deleted:
            raise ToolError(f"no entry with id {entry_id!r}; use search_memory to find ids")
        return DeletedMemory(id=entry_id.strip(), deleted=True)

    return server


def serve(global_store: Optional[str], project_root: Optional[str]) -> int:
    """Run the server on stdio until the client disconnects."""
    try:
        service = MemoryService(global_store, project_root)
        server = build_server(service)
    except ImportError:
        print("iflow-memory: the MCP server needs the mcp package: pip install 'iflow-memory[mcp]'", file=sys.stderr)
        return 1
    except MemoryCoreError as exc:
        print(f"iflow-memory: cannot start: {exc}", file=sys.stderr)
        return 2
    server.run()
    return 0
