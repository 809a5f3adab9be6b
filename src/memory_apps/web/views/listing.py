"""The Memories page's request and rows: parse the query string, filter/sort/page a list in Python (search
results, retired entries), and turn a page of entries into rows and links. Pure: no Starlette."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Callable, Mapping, Optional, Sequence
from urllib.parse import urlencode

from memory_apps.web.views.scopes import SeenBy, seen_by
from memory_core.anchors.states import AnchorState
from memory_core.entries.browsing import DEFAULT_SORT, SORTS, BrowsePage, BrowseQuery, InvalidBrowse
from memory_core.entries.records import CATEGORIES, SOURCES, Entry

PER_PAGE = 50
PARAMS = ("q", "category", "project", "source", "trusted", "stale", "retired", "sort", "page")
COLUMNS = (  # (title, sort key or None, numeric)
    ("id", None, False), ("category", "category", False), ("name", "name", False), ("source", None, False),
    ("project", None, False), ("seen by", None, False), ("obs", "observations", True),
    ("recalls", "recalls", True), ("last shown", "last_shown", False), ("updated", "updated", False),
)
_OLDEST = datetime.min.replace(tzinfo=timezone.utc)
MARKED_STATES = ("changed", "moved", "missing")
"""The citation states a row marks (a current citation needs no mark), in this order."""


@dataclass(frozen=True)
class ListingRequest:
    """What the Memories page was asked for (every field from the query string, checked)."""

    q: str = ""
    category: Optional[str] = None
    project: Optional[str] = None
    source: Optional[str] = None
    trusted: Optional[bool] = None
    stale: bool = False
    retired: bool = False
    sort: str = ""
    """"" : the natural order (relevance for a search, newest retired first, else DEFAULT_SORT)."""
    page: int = 1

    def params(self) -> dict[str, str]:
        """The request as query-string values (empty ones left out)."""
        values = {"q": self.q, "category": self.category or "", "project": self.project or "",
                  "source": self.source or "", "trusted": {True: "yes", False: "no", None: ""}[self.trusted],
                  "stale": "1" if self.stale else "", "retired": "1" if self.retired else "", "sort": self.sort,
                  "page": str(self.page) if self.page != 1 else ""}
        return {k: v for k, v in values.items() if v}

    def link(self, **changes) -> str:
        """`/memories?…` for this request with some fields changed (a new filter or sort goes back to page 1)."""
        if "page" not in changes:
            changes["page"] = 1
        return "/memories" + _query(replace(self, **changes).params())

    def browse_query(self, ids: Optional[tuple[str, ...]] = None) -> BrowseQuery:
        """The store's query for this request (its sort or the default one)."""
        return BrowseQuery(category=self.category, project=self.project, source=self.source, trusted=self.trusted,
                           ids=ids, sort=self.sort or DEFAULT_SORT, page=self.page, per_page=PER_PAGE)


def _query(params: Mapping[str, str]) -> str:
    return "?" + urlencode(params) if params else ""


def parse_listing(params: Mapping[str, str]) -> ListingRequest:
    """The request a query string makes; InvalidBrowse naming the bad value (an unknown category, sort …)."""
    def text(name: str) -> Optional[str]:
        value = (params.get(name) or "").strip()
        return value or None

    category, source = text("category"), text("source")
    if category is not None and category not in CATEGORIES:
        raise InvalidBrowse(f"unknown category {category!r}; one of {', '.join(CATEGORIES)}")
    if source is not None and source not in SOURCES:
        raise InvalidBrowse(f"unknown source {source!r}; one of {', '.join(SOURCES)}")
    trusted = {None: None, "yes": True, "no": False}.get(text("trusted"), "bad")
    if trusted == "bad":
        raise InvalidBrowse("trusted is yes or no")
    sort = text("sort") or ""
    if sort and sort.lstrip("-") not in SORTS:
        raise InvalidBrowse(f"unknown sort {sort!r}; one of {', '.join(SORTS)} (prefix - for descending)")
    try:
        page = int(text("page") or 1)
    except ValueError:
        raise InvalidBrowse("page is a number") from None
    if page < 1:
        raise InvalidBrowse("page starts at 1")
    return ListingRequest(q=text("q") or "", category=category, project=text("project"), source=source,
                          trusted=trusted, stale=text("stale") == "1", retired=text("retired") == "1", sort=sort,
                          page=page)


SORT_KEYS: dict[str, Callable[[Entry], object]] = {
    "updated": lambda e: e.updated_at, "created": lambda e: e.created_at, "name": lambda e: e.name.casefold(),
    "category": lambda e: e.category, "recalls": lambda e: e.recall_count,
    "last_shown": lambda e: e.last_recalled_at or _OLDEST, "observations": lambda e: e.observation_count,
}


def matches(entry: Entry, query: BrowseQuery) -> bool:
    """Whether an entry passes the query's filters (the same rules a store's `browse` applies)."""
    return ((query.category is None or entry.category == query.category)
            and (query.project is None or (entry.source_project or "") == query.project)
            and (query.source is None or entry.source == query.source)
            and (query.trusted is None or (entry.scope is None) == query.trusted)
            and (query.ids is None or entry.id in query.ids))


def page_of(entries: Sequence[Entry], query: BrowseQuery, keep_order: bool = False) -> BrowsePage:
    """One page of `entries` filtered and sorted as `query` asks, in Python (for lists already in memory: search
    results, retired entries); `keep_order` keeps the given order (relevance, newest retired first)."""
    kept = [e for e in entries if matches(e, query)]
    if not keep_order:
        key = SORT_KEYS[query.key]
        kept.sort(key=lambda e: e.id)  # ties break on the id, ascending either way
        kept.sort(key=key, reverse=query.descending)
    return BrowsePage(kept[query.offset:query.offset + query.per_page], len(kept), query)


@dataclass
class Row:
    """One line of the table: plain values the template escapes."""

    id: str
    category: str
    name: str
    source: str
    project: str
    seen_by: str
    observations: int
    recalls: int
    last_shown: str
    updated: str
    relevance: Optional[str] = None
    retired: Optional[str] = None
    seen_by_title: str = ""
    """The full identity of the repository a kept entry stays in ("" for every project)."""
    marks: tuple["Mark", ...] = ()
    """Its citations that no longer match the code, by state."""


@dataclass(frozen=True)
class Mark:
    """A citation state shown beside a memory's name (changed, moved, missing), with what it means."""

    state: str
    note: str


def marks(states: Sequence[AnchorState]) -> tuple[Mark, ...]:
    """One mark per state its citations are in, other than current; the note names each citation."""
    found = []
    for state in MARKED_STATES:
        notes = [s.note() for s in states if s.state == state]
        if notes:
            found.append(Mark(state, "; ".join(notes)))
    return tuple(found)


@dataclass
class Header:
    """A column title, with the link that sorts by it (None: not sortable) and its current direction."""

    title: str
    link: Optional[str] = None
    direction: str = ""
    numeric: bool = False


@dataclass
class Listing:
    """What the Memories template shows."""

    request: ListingRequest
    rows: list[Row]
    total: int
    page: int
    pages: int
    headers: list[Header]
    prev_link: Optional[str] = None
    next_link: Optional[str] = None
    mode: str = "browse"
    """browse, search or retired."""


def day(moment: Optional[datetime]) -> str:
    """A timestamp as its UTC day ("" for none)."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d") if moment else ""


def row(entry: Entry, relevance: Optional[float] = None, retired: Optional[str] = None,
        names: Optional[Mapping[str, str]] = None, states: Sequence[AnchorState] = ()) -> Row:
    """The table row of one entry; `names` names the projects kept entries stay in, `states` are its citations'."""
    seen: SeenBy = seen_by(entry.scope, names)
    return Row(entry.id, entry.category, entry.name, entry.source, entry.source_project or "", seen.text,
               entry.observation_count, entry.recall_count, day(entry.last_recalled_at), day(entry.updated_at),
               None if relevance is None else f"{relevance:.2f}", retired, seen.title, marks(states))


def headers(request: ListingRequest, natural: str) -> list[Header]:
    """Column titles; a sortable one links to its order (ascending first, again for descending)."""
    current = request.sort or natural
    found = []
    for title, key, numeric in COLUMNS:
        if key is None:
            found.append(Header(title, numeric=numeric))
            continue
        direction = "asc" if current == key else "desc" if current == f"-{key}" else ""
        target = f"-{key}" if direction == "asc" else key
        found.append(Header(title, request.link(sort=target), direction, numeric))
    return found


def listing(request: ListingRequest, page: BrowsePage, rows: list[Row], mode: str) -> Listing:
    """The page's view model: rows, column links, pager links."""
    natural = DEFAULT_SORT if mode == "browse" else ""
    current = min(request.page, page.pages)
    return Listing(request, rows, page.total, current, page.pages, headers(request, natural),
                   request.link(page=current - 1) if current > 1 else None,
                   request.link(page=current + 1) if current < page.pages else None, mode)
