"""What a session start and a search ask their wiring for. The dependency-injector container and the hook's
wiring (`HookWiring`, built from the same recipes without dependency-injector) both satisfy it (ADR 21)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol

if TYPE_CHECKING:
    from memory_apps.wiring.embedding_setup import Builder
    from memory_core.ports.clock import Clock
    from memory_core.ports.context_source import ProjectContextSource
    from memory_core.ports.embedder import Embedder
    from memory_core.ports.shared_work import SharedWork
    from memory_core.ports.vector_index import VectorIndex
    from memory_core.usecases.importing import ImportKnowledgeBank
    from memory_core.usecases.retrieve import RetrieveAndRank
    from memory_core.usecases.session_start import SessionStart


class WiringConfig(Protocol):
    """The configuration values the shared setup code reads, each called like the container's options."""

    embedding_provider: Callable[[], Optional[str]]
    embedding_model: Callable[[], Optional[str]]


class SessionWiring(Protocol):
    """The collaborators of a session start and of a search."""

    config: WiringConfig

    def store(self) -> Any:
        """The entry store (also the keyword and the reference index)."""

    def clock(self) -> "Clock":
        """The clock."""

    def context_source(self) -> "ProjectContextSource":
        """The project's feature files and git changes."""

    def shared_work(self) -> "SharedWork":
        """Leases and the background run."""

    def embedder_builder(self) -> "Builder":
        """The function that asks for an embedding adapter by provider name."""

    def vector_index(self, dimensions: int, write_cache: bool = True) -> "VectorIndex":
        """The vector index over the store in one embedding space."""

    def retrieve(self, embedder: Optional["Embedder"] = None, vector_index: Optional["VectorIndex"] = None,
                 embedder_problem: str = ...) -> "RetrieveAndRank":
        """The retrieve-and-rank use case with a query embedder and an index (or why there is none)."""

    def importer(self) -> "ImportKnowledgeBank":
        """The markdown importer."""

    def session_start(self) -> "SessionStart":
        """The session-start use case over this wiring."""
