"""EntryBrowser contract: one filtered, sorted page with its total, and the overview's tallies, the same from
every store (SQLite, PostgreSQL where a server can start, and the in-memory fake the core tests use)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory_core.entries.browsing import SORTS, BrowseQuery, InvalidBrowse
from memory_core.entries.models import EntryDraft
from memory_core.ports.entry_store import EntryBrowser
from tests.fakes import T0

HOUR, DAY = timedelta(hours=1), timedelta(days=1)
SCOPE = "git:" + "a" * 40


def draft(name: str, description: str, **fields) -> EntryDraft:
    """A valid draft; tests give only the fields they care about."""
    values = {"name": name, "description": description, "category": "patterns", "keywords": ["csv"]}
    values.update(fields)
    return EntryDraft(**values)


@pytest.fixture
def four(store) -> dict[str, str]:
    """Four entries that differ in every sortable and filterable field; returns {letter: id}.

    a: patterns, manual, project alpha, created T0+1h, re-observed at T0+3d (updated last, 2 observations), never
       shown; b: anti-patterns, session-capture, project beta, scoped, created T0+2h, shown twice (last T0+5d);
    c: heuristics, import, no project, created T0+1d, shown once (T0+4d); d: patterns, retro, project alpha,
       created T0+2d, never shown.
    """
    ids = {
        "a": store.upsert(draft("Beta retries", "Retry the flaky upload", source_project="alpha"), T0 + HOUR),
        "b": store.upsert(draft("alpha cache", "Never cache the token", category="anti-patterns",
                                source="session-capture", source_project="beta", scope=SCOPE), T0 + 2 * HOUR),
        "c": store.upsert(draft("Gamma", "Prefer small fixtures", category="heuristics", source="import"),
                          T0 + DAY),
        "d": store.upsert(draft("delta", "Pin the schema version", source="retro", source_project="alpha"),
                          T0 + 2 * DAY),
    }
    ids = {letter: outcome.entry_id for letter, outcome in ids.items()}
    store.upsert(draft("Beta retries", "Retry the flaky upload", source_project="alpha"), T0 + 3 * DAY)
    store.record_recall([ids["b"], ids["c"]], T0 + 4 * DAY)
    store.record_recall([ids["b"]], T0 + 5 * DAY)
    return ids


# Each sort's order, ascending and descending, as groups of letters; a group holds ties, which go by id.
ORDERS = {
    "updated": ("b c d a", "a d c b"),
    "created": ("a b c d", "d c b a"),
    "name": ("b a d c", "c d a b"),  # alpha cache, Beta retries, delta, Gamma: case ignored
    "category": ("b c ad", "ad c b"),
    "recalls": ("ad c b", "b c ad"),
    "last_shown": ("c b ad", "b c ad"),  # never shown last both ways
    "observations": ("bcd a", "a bcd"),
}


def expected(groups: str, ids: dict[str, str]) -> list[str]:
    """The ids in the order the groups give, ties within a group by id."""
    return [i for group in groups.split() for i in sorted(ids[letter] for letter in group)]


def listed(store, **query) -> list[str]:
    """The ids of one page of the browse."""
    return [e.id for e in store.browse(BrowseQuery(**query)).entries]


class EntryBrowserContract:
    """Behaviour every EntryBrowser store must show; subclasses name their `backend`."""

    def test_implements_the_port(self, store):
        assert isinstance(store, EntryBrowser)

    def test_the_orders_cover_every_sort(self):
        assert set(ORDERS) == set(SORTS)

    @pytest.mark.parametrize("sort", sorted(ORDERS))
    def test_each_sort_orders_both_ways_with_ties_by_id(self, store, four, sort):
        ascending, descending = ORDERS[sort]
        assert listed(store, sort=sort) == expected(ascending, four)
        assert listed(store, sort="-" + sort) == expected(descending, four)

    def test_the_default_order_is_most_recently_updated_first(self, store, four):
        assert listed(store) == expected("a d c b", four)

    def test_a_page_holds_whole_entries(self, store, four):
        page = store.browse(BrowseQuery(ids=(four["b"],)))
        entry = page.entries[0]
        assert (entry.name, entry.category, entry.source, entry.source_project, entry.scope) == (
            "alpha cache", "anti-patterns", "session-capture", "beta", SCOPE)
        assert (entry.recall_count, entry.last_recalled_at, entry.created_at) == (2, T0 + 5 * DAY, T0 + 2 * HOUR)

    @pytest.mark.parametrize("filters, letters", [
        ({"category": "patterns"}, "ad"),
        ({"category": "heuristics"}, "c"),
        ({"project": "alpha"}, "ad"),
        ({"project": "nowhere"}, ""),
        ({"source": "import"}, "c"),
        ({"source": "session-capture"}, "b"),
        ({"trusted": True}, "acd"),
        ({"trusted": False}, "b"),
        ({"category": "patterns", "source": "retro", "trusted": True}, "d"),
    ])
    def test_each_filter_keeps_only_its_matches(self, store, four, filters, letters):
        page = store.browse(BrowseQuery(sort="created", **filters))
        assert [e.id for e in page.entries] == [four[letter] for letter in letters]
        assert page.total == len(letters)

    def test_the_ids_filter_takes_hundreds_of_ids(self, store, four):
        unknown = tuple(f"{n:016x}" for n in range(400))
        page = store.browse(BrowseQuery(ids=unknown + (four["c"], four["a"]), sort="name"))
        assert [e.id for e in page.entries] == [four["a"], four["c"]]
        assert page.total == 2

    def test_an_id_is_a_value_never_sql(self, store, four):
        hostile = ("x') OR 1=1 --", "' OR '1'='1", '"]')
        assert store.browse(BrowseQuery(ids=hostile)).total == 0
        assert listed(store, category="patterns' OR '1'='1") == []

    def test_an_empty_ids_filter_matches_nothing(self, store, four):
        page = store.browse(BrowseQuery(ids=()))
        assert (page.entries, page.total, page.pages) == ([], 0, 1)

    def test_the_ids_filter_combines_with_the_others(self, store, four):
        assert listed(store, ids=(four["a"], four["b"], four["d"]), trusted=True, sort="created") == [
            four["a"], four["d"]]

    def test_pages_split_the_order_and_keep_the_total(self, store, four):
        first = store.browse(BrowseQuery(sort="created", per_page=3))
        second = store.browse(BrowseQuery(sort="created", per_page=3, page=2))
        assert [e.id for e in first.entries + second.entries] == expected("a b c d", four)
        assert (first.total, second.total, first.pages, len(second.entries)) == (4, 4, 2, 1)

    def test_a_page_past_the_last_is_refused(self, store, four):
        with pytest.raises(InvalidBrowse):
            store.browse(BrowseQuery(per_page=2, page=3))
        with pytest.raises(InvalidBrowse):
            store.browse(BrowseQuery(category="heuristics", page=2))

    def test_an_empty_store_has_one_empty_page(self, store):
        page = store.browse(BrowseQuery(sort="-last_shown", category="patterns"))
        assert (page.entries, page.total, page.pages) == ([], 0, 1)
        with pytest.raises(InvalidBrowse):
            store.browse(BrowseQuery(page=2))

    def test_a_deleted_entry_is_neither_listed_nor_counted(self, store, four):
        store.delete(four["d"])
        page = store.browse(BrowseQuery(project="alpha"))
        assert ([e.id for e in page.entries], page.total) == ([four["a"]], 1)
        assert store.tallies().total == 3

    # -- tallies ----------------------------------------------------------------------------
    def test_tallies_count_by_category_project_source_and_day(self, store, four):
        tallies = store.tallies()
        assert tallies.total == 4
        assert tallies.by_category == {"patterns": 2, "anti-patterns": 1, "heuristics": 1}
        assert tallies.by_project == {"alpha": 2, "beta": 1, "": 1}
        assert tallies.by_source == {"manual": 1, "session-capture": 1, "import": 1, "retro": 1}
        assert tallies.added_per_day == {T0.date(): 2, (T0 + DAY).date(): 1, (T0 + 2 * DAY).date(): 1}
        assert list(tallies.added_per_day) == sorted(tallies.added_per_day)

    def test_tallies_tell_recalled_from_never_shown(self, store, four):
        tallies = store.tallies()
        assert (tallies.recalled, tallies.never_recalled) == (2, 2)
        assert [e.id for e in tallies.most_recalled] == [four["b"], four["c"]]
        assert [e.id for e in tallies.never_shown] == [four["a"], four["d"]]  # oldest first

    def test_tallies_keep_only_the_top_entries(self, store, four):
        tallies = store.tallies(top=1)
        assert [e.id for e in tallies.most_recalled] == [four["b"]]
        assert [e.id for e in tallies.never_shown] == [four["a"]]
        assert tallies.recalled + tallies.never_recalled == 4
        assert tallies.most_recalled[0].recall_count == 2

    def test_tallies_of_an_empty_store(self, store):
        tallies = store.tallies()
        assert (tallies.total, tallies.recalled, tallies.never_recalled) == (0, 0, 0)
        assert tallies.by_category == tallies.by_project == tallies.by_source == tallies.added_per_day == {}
        assert tallies.most_recalled == tallies.never_shown == []


class TestSqliteEntryBrowser(EntryBrowserContract):
    backend = "sqlite"


class TestPostgresEntryBrowser(EntryBrowserContract):
    backend = "postgres"


class TestInMemoryEntryBrowser(EntryBrowserContract):
    backend = "fake"
