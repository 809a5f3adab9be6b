"""What a session start is asked and what it answers: the request, the ranked answer and the vector work it
owes (kept apart from the use case so its callers read the shapes without its machinery)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from memory_core.anchors.marks import AnchorMarks
from memory_core.embedding.space import EmbeddingSpace
from memory_core.usecases.retrieve import Retrieval

if TYPE_CHECKING:
    from memory_core.usecases.importing import ImportReport

SEMANTIC, DEGRADED, OFF = "semantic", "degraded", "off"


@dataclass
class SessionRequest:
    """Which project, which global store, how many entries."""

    project_root: str
    global_store: str
    limit: int
    scopes: Optional[tuple[str, ...]] = None
    """The project's scopes (its identity): universal entries and these are candidates; None: every entry."""


@dataclass
class SessionAnswer:
    """The ranked selection, which step produced it and why, and what was left to the background."""

    retrieval: Retrieval
    step: str
    """`semantic` (meaning + keywords + prominence), `degraded` (the vector step did not finish or failed:
    keywords + prominence) or `off` (no vectors to compare: keywords + prominence)."""
    import_report: Optional["ImportReport"] = None
    import_elsewhere: bool = False
    """Another process is importing this project's knowledge bank right now."""
    import_deferred: bool = False
    """The database was too busy to import now; the background run does it."""
    background: bool = False
    """A background run was started for what this session left undone (set by `finish`)."""
    owed: Optional["VectorWork"] = None
    query: Optional[str] = None
    project_root: str = ""
    unembedded: int = 0
    """Entries in scope without a vector after this session (counted whether or not a space is pinned yet)."""
    marks: AnchorMarks = field(default_factory=AnchorMarks)
    """What the check of the selection's citations found (ADR 26): a line per marked entry, the lowered ones."""

    @property
    def reason(self) -> str:
        """Why vectors were not used ('' when they were)."""
        return "" if self.retrieval.vector.ran else self.retrieval.vector.reason

    @property
    def import_unfinished(self) -> bool:
        """The project's knowledge bank is not (yet) all in the database."""
        report = self.import_report
        return self.import_elsewhere or self.import_deferred or (report is not None and not report.complete)

    @property
    def bank_undecided(self) -> bool:
        """Git did not name the authors of some bank file in time: the background run asks again."""
        return self.import_report is not None and not self.import_report.decided


@dataclass
class VectorWork:
    """What the vector step has in hand at the moment the session must decide."""

    query_vector: Optional[list[float]] = None
    cached: bool = False
    passages: list[str] = field(default_factory=list)
    passage_vectors: dict[str, list[float]] = field(default_factory=dict)
    cached_passages: set[str] = field(default_factory=set)
    fresh: list[tuple[str, list[float]]] = field(default_factory=list)
    failure: str = ""
    index_ready: bool = False
    pin: Optional[EmbeddingSpace] = None
    """The space a new database gets from the vectors embedded inline (pinned in `finish`)."""
