"""The injection journal: what each session start, prompt hook and file hook gave the agent, and why (the
viewer's Sessions page answers "why did the agent see this?" from it). Stored text only: never a raw prompt."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping, Optional

HOOKS = ("session-start", "prompt", "file", "inject")
"""Who injected: the three Claude Code hooks, and `inject` (the command or the library, no session)."""
SIGNALS = ("meaning", "keywords", "references", "prominence")
"""The signals a shown memory may carry (each 0-1 where known; absent when the step did not compute it):
meaning = cosine to the context or prompt, keywords = the keyword match, references = how much it cites the
file or the paths in play, prominence = recency, counts and confidence."""

CURRENT = "current"
"""A shown memory's mark when its citations of the project were checked and all are current."""
ALREADY_SHOWN = "already shown in this session"
"""The diagnostic's words when a hook showed nothing because what it calls for was shown earlier in the session."""


@dataclass(frozen=True)
class ShownMemory:
    """One memory an injection showed, with what ranked it."""

    entry_id: str
    name: str
    category: str
    score: float = 0.0
    """The ranking's own score (comparable within one injection only)."""
    relevance: Optional[float] = None
    """Absolute relevance 0-1 (one scale for every query) where the step computed it."""
    signals: Mapping[str, float] = field(default_factory=dict)
    mark: str = ""
    """The code check's line for it (moved, missing, changed), CURRENT when it checked them and all are current,
    '' when it did not check them (no citation of the project, no time; or a record older than CURRENT)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data."""
        return {"entry_id": self.entry_id, "name": self.name, "category": self.category, "score": self.score,
                "relevance": self.relevance, "signals": dict(self.signals), "mark": self.mark}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ShownMemory":
        """The memory `to_dict` wrote; ValueError/KeyError/TypeError on a malformed one."""
        signals = {str(k): float(v) for k, v in dict(data.get("signals") or {}).items() if k in SIGNALS}
        relevance = data.get("relevance")
        return cls(str(data["entry_id"]), str(data["name"]), str(data["category"]), float(data.get("score") or 0.0),
                   None if relevance is None else float(relevance), signals, str(data.get("mark") or ""))


@dataclass(frozen=True)
class InjectionRecord:
    """One injection: when, which session and hook, for which project, the diagnostic line, what was shown."""

    at: datetime
    hook: str
    project: str
    diagnostic: str
    shown: tuple[ShownMemory, ...] = ()
    session_id: str = ""
    """'' for `inject` (no Claude Code session)."""
    trigger: str = ""
    """The prompt hook: the prompt, redacted and cut to 200 characters; the file hook: the file; else ''."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (the time as ISO 8601 UTC)."""
        return {"at": self.at.astimezone(timezone.utc).isoformat(), "hook": self.hook, "project": self.project,
                "diagnostic": self.diagnostic, "shown": [m.to_dict() for m in self.shown],
                "session_id": self.session_id, "trigger": self.trigger}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "InjectionRecord":
        """The record `to_dict` wrote; ValueError/KeyError/TypeError on a malformed one."""
        hook = str(data["hook"])
        if hook not in HOOKS:
            raise ValueError(f"unknown hook {hook!r}")
        at = datetime.fromisoformat(str(data["at"]))
        return cls(at if at.tzinfo else at.replace(tzinfo=timezone.utc), hook, str(data["project"]),
                   str(data["diagnostic"]), tuple(ShownMemory.from_dict(m) for m in data.get("shown") or ()),
                   str(data.get("session_id") or ""), str(data.get("trigger") or ""))


@dataclass(frozen=True)
class InjectionSummary:
    """What the Sessions list and the Overview chart need of one injection: no memory, only how many."""

    at: datetime
    hook: str
    project: str
    session_id: str
    diagnostic: str
    shown: int

    @classmethod
    def of(cls, record: InjectionRecord) -> "InjectionSummary":
        """The summary of a whole record."""
        return cls(record.at, record.hook, record.project, record.session_id, record.diagnostic, len(record.shown))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "InjectionSummary":
        """The summary of what `InjectionRecord.to_dict` wrote, its memories counted, not built; ValueError,
        KeyError or TypeError on a malformed one."""
        hook = str(data["hook"])
        if hook not in HOOKS:
            raise ValueError(f"unknown hook {hook!r}")
        at = datetime.fromisoformat(str(data["at"]))
        shown = data.get("shown") or ()
        if not isinstance(shown, (list, tuple)):
            raise TypeError("shown is not a list")
        return cls(at if at.tzinfo else at.replace(tzinfo=timezone.utc), hook, str(data["project"]),
                   str(data.get("session_id") or ""), str(data["diagnostic"]), len(shown))
