"""The Sessions page's list: one row per session (or per project for `inject`, which has none), newest first,
paged, built from the journal's summaries (no memory is read for it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional
from urllib.parse import urlencode

from memory_apps.web.views.entry_refs import Moment, moment
from memory_apps.web.views.sessions import SessionGroup
from memory_core.safety.inert import one_line
from memory_core.session.journal import InjectionSummary

PAGE_SIZE = 25
NO_SESSION_TITLE = "(no session id)"
"""Records without a session id: the `inject` command or the library, or a hook given none it could use."""


@dataclass
class SessionRow:
    """One session: its id, project, first and last injection, how many injections and memories, and the
    newest diagnostic line."""

    session_id: str
    project: str
    first: Moment
    last: Moment
    injections: int = 0
    shown: int = 0
    diagnostic: str = ""

    @property
    def title(self) -> str:
        """The session's id, or that it had none."""
        return self.session_id or NO_SESSION_TITLE

    @property
    def href(self) -> Optional[str]:
        """The session's own page (None for `inject`'s records: they have no session)."""
        return session_href(self.session_id) if self.session_id else None


@dataclass
class SessionList:
    """One page of sessions, and the newest session's injections in full (on the first page)."""

    rows: list[SessionRow] = field(default_factory=list)
    page: int = 1
    pages: int = 1
    total: int = 0
    latest: Optional[SessionGroup] = None
    latest_injections: int = 0
    """How many injections the newest session holds in all (`latest` may show fewer)."""

    @property
    def prev_link(self) -> Optional[str]:
        """The previous page, if any."""
        return f"/sessions?{urlencode({'page': self.page - 1})}" if self.page > 1 else None

    @property
    def next_link(self) -> Optional[str]:
        """The next page, if any."""
        return f"/sessions?{urlencode({'page': self.page + 1})}" if self.page < self.pages else None


def session_href(session_id: str) -> str:
    """One session's page (the id URL-encoded: it is stored text)."""
    return f"/sessions?{urlencode({'session': session_id})}"


def session_rows(summaries: Iterable[InjectionSummary]) -> list[SessionRow]:
    """The summaries grouped by session (those without one by project), the newest session first."""
    rows: dict[tuple[str, str], SessionRow] = {}
    for summary in sorted(summaries, key=lambda s: s.at, reverse=True):
        key = (summary.session_id, "" if summary.session_id else summary.project)
        at = moment(summary.at)
        row = rows.get(key)
        if row is None:
            row = rows[key] = SessionRow(one_line(summary.session_id), one_line(summary.project), at, at)
        row.first = at  # newest first: the last one seen is the session's first
        row.injections += 1
        row.shown += summary.shown
        if not row.diagnostic and summary.diagnostic:
            row.diagnostic = one_line(summary.diagnostic)
    return list(rows.values())


def session_list(rows: list[SessionRow], page: int, latest: Optional[SessionGroup] = None,
                 page_size: int = PAGE_SIZE) -> SessionList:
    """Page `page` (clipped to those there are) of `rows`, with `latest` expanded on the first page."""
    pages = max(1, -(-len(rows) // page_size))
    page = min(max(page, 1), pages)
    shown = rows[(page - 1) * page_size:page * page_size]
    return SessionList(shown, page, pages, len(rows), latest if page == 1 else None,
                       rows[0].injections if rows else 0)
