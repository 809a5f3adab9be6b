"""The Sessions page's data: the injection journal grouped by session, newest first, each injection with what it
showed and the signals that ranked each memory ("why did the agent see this?")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional
from urllib.parse import urlencode

from memory_apps.web.views.entry_refs import EntryRef, Moment, moment, ref_of
from memory_core.safety.inert import one_line
from memory_core.session.journal import ALREADY_SHOWN, SIGNALS, InjectionRecord, ShownMemory

HOOK_LABELS = {"session-start": "Session start", "prompt": "Prompt", "file": "File", "inject": "inject"}
TRIGGER_LABELS = {"prompt": "Prompt", "file": "File"}
EMPTY_TEXT = ("No injections recorded yet. From now on, every session start, prompt and file hook records what it "
              "gave the agent, and why; they appear here.")
NONE_TEXTS = {"prompt": "Nothing shown: no memory was relevant enough.",
              "file": "Nothing shown: no memory cites this file, or those that do were shown earlier in this session."}
"""Why a hook showed nothing, for records that do not say (older ones; new ones say it on their diagnostic line)."""
NONE_ALREADY = "Nothing new: what it calls for was already shown in this session."
NO_SESSION = "without a session id"
"""How a group of records without a session id is named (`inject`, the library, or a hook given none it could
use)."""


@dataclass(frozen=True)
class Signal:
    """One ranking signal of a shown memory, 0-1, with the text shown beside its bar."""

    name: str
    value: float

    @property
    def text(self) -> str:
        """The value to two decimals."""
        return f"{self.value:.2f}"

    @property
    def percent(self) -> int:
        """The value as a whole percentage, clipped to 0-100 (a bar's length)."""
        return round(min(1.0, max(0.0, self.value)) * 100)


@dataclass(frozen=True)
class ShownItem:
    """A memory one injection showed: the link, its rank and score, its relevance, its signals, its code mark."""

    entry: EntryRef
    rank: int
    score: str
    relevance: Optional[Signal]
    signals: tuple[Optional[Signal], ...]
    """One per name of `journal.SIGNALS`, in that order; None where the injection did not compute it."""
    mark: str


@dataclass(frozen=True)
class InjectionItem:
    """One injection: hook, time, what triggered it, the diagnostic line, and what it showed."""

    hook: str
    hook_label: str
    at: Moment
    trigger_label: str
    trigger: str
    diagnostic: str
    shown: tuple[ShownItem, ...]
    none_text: str = ""
    """Why nothing was shown ('' when something was)."""


@dataclass
class SessionGroup:
    """One session's injections (newest first) with its id, project and time span."""

    session_id: str
    project: str
    first: Moment
    last: Moment
    injections: list[InjectionItem] = field(default_factory=list)

    @property
    def title(self) -> str:
        """The session's name on the page: its id, or that it had none."""
        return self.session_id or NO_SESSION

    @property
    def href(self) -> Optional[str]:
        """This session alone on the page (None for injections without a session)."""
        return f"/sessions?{urlencode({'session': self.session_id})}" if self.session_id else None

    @property
    def shown_count(self) -> int:
        """How many memories the session's injections showed in all."""
        return sum(len(i.shown) for i in self.injections)


@dataclass
class SessionsView:
    """The page: session groups newest first, the one session asked for (if any), and the empty-journal text."""

    sessions: list[SessionGroup] = field(default_factory=list)
    session_id: Optional[str] = None
    signal_names: tuple[str, ...] = SIGNALS
    empty_text: str = EMPTY_TEXT

    @property
    def empty(self) -> bool:
        """Nothing to show."""
        return not self.sessions


def sessions_view(records: Iterable[InjectionRecord], session_id: Optional[str] = None) -> SessionsView:
    """Group journal records by session (records without a session by project), newest session first and newest
    injection first in each; only `session_id`'s records when it is given."""
    wanted = one_line(session_id) if session_id else None
    ordered = sorted(records, key=lambda r: r.at, reverse=True)
    groups: dict[tuple[str, str], SessionGroup] = {}
    for record in ordered:
        if wanted is not None and record.session_id != wanted:
            continue
        key = (record.session_id, "" if record.session_id else record.project)
        at = moment(record.at)
        group = groups.get(key)
        if group is None:
            group = groups[key] = SessionGroup(one_line(record.session_id), one_line(record.project), at, at)
        group.first = at  # records come newest first: the last one seen is the session's first
        group.injections.append(_injection(record, at))
    return SessionsView(list(groups.values()), wanted)


def _injection(record: InjectionRecord, at: Moment) -> InjectionItem:
    return InjectionItem(record.hook, HOOK_LABELS.get(record.hook, one_line(record.hook)), at,
                         TRIGGER_LABELS.get(record.hook, ""), one_line(record.trigger), one_line(record.diagnostic),
                         tuple(_shown(memory, rank) for rank, memory in enumerate(record.shown, 1)),
                         "" if record.shown else none_text(record))


def none_text(record: InjectionRecord) -> str:
    """Why an injection showed nothing: what its diagnostic line says, or (for records that do not say) the
    hook's usual reason."""
    if ALREADY_SHOWN in record.diagnostic:
        return NONE_ALREADY
    if record.diagnostic:
        return "Nothing shown."  # its diagnostic line, shown beside, says why
    return NONE_TEXTS.get(record.hook, "Nothing shown.")


def _shown(memory: ShownMemory, rank: int) -> ShownItem:
    # Every signal in the journal's fixed order, so the columns line up from one memory to the next.
    signals = tuple(Signal(name, float(memory.signals[name])) if name in memory.signals else None
                    for name in SIGNALS)
    relevance = None if memory.relevance is None else Signal("relevance", float(memory.relevance))
    return ShownItem(ref_of(memory.entry_id, memory.name, memory.category), rank, f"{memory.score:.3f}", relevance,
                     signals, one_line(memory.mark))
