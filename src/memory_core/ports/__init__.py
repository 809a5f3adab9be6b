"""Ports: the small protocols adapters implement, one per file."""

from memory_core.ports.clock import Clock
from memory_core.ports.context_source import ProjectContext, ProjectContextSource
from memory_core.ports.embedder import Embedder
from memory_core.ports.entry_store import EmbeddingStore, EntryStore
from memory_core.ports.keyword_generator import KeywordGenerator
from memory_core.ports.keyword_index import KeywordIndex
from memory_core.ports.knowledge_bank import KnowledgeBankReader
from memory_core.ports.project_layout import ProjectLayout
from memory_core.ports.query_vector_cache import QueryVectorCache
from memory_core.ports.session_ledger import SessionLedger, SessionShown
from memory_core.ports.shared_work import SharedWork
from memory_core.ports.vector_index import PreparableVectorIndex, VectorIndex

__all__ = [
    "Clock", "EmbeddingStore", "Embedder", "EntryStore", "KeywordGenerator", "KeywordIndex",
    "KnowledgeBankReader", "PreparableVectorIndex", "ProjectContext", "ProjectContextSource", "ProjectLayout",
    "QueryVectorCache", "SessionLedger", "SessionShown", "SharedWork", "VectorIndex",
]
