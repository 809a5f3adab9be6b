"""The Memories page: search with relevance, filters, sort, paging, whole ids; stored text shown as text."""

from __future__ import annotations

import re

HOSTILE = ('<img src=x onerror=alert(1)>', '<script>alert("x")</script>')


def ids_in(page) -> list[str]:
    """The ids of the table's rows, in order."""
    return re.findall(r'<tr data-id="([0-9a-f]+)">', page.text)


def test_the_listing_shows_every_memory_with_its_whole_id(viewer):
    stored = [viewer.remember(f"Learning number {n}") for n in range(3)]
    page = viewer.client.get("/memories")
    assert page.status_code == 200 and "<h1>Memories</h1>" in page.text
    assert sorted(ids_in(page)) == sorted(stored) and all(len(i) == 16 for i in ids_in(page))
    assert "page 1 of 1 · 3 memories" in page.text


def test_the_root_sends_the_browser_to_the_memories(viewer):
    home = viewer.client.get("/")
    assert home.status_code == 303 and home.headers["location"] == "/memories"


def test_search_shows_good_matches_with_their_relevance_or_says_none(viewer):
    csv = viewer.remember("Quote CSV fields", "Quote CSV fields that hold the delimiter or a quote character.")
    viewer.remember("Pin the deploy image", "Deploy by image digest, never by a moving tag.")
    found = viewer.client.get("/memories", params={"q": "quote csv delimiter"})
    assert ids_in(found) == [csv]
    relevance = re.search(rf'<tr data-id="{csv}">\s*<td class="num">([0-9.]+)</td>', found.text)
    assert relevance and 0 < float(relevance[1]) <= 1
    nothing = viewer.client.get("/memories", params={"q": "kubernetes helm chart upgrade"})
    assert ids_in(nothing) == [] and "no good match" in nothing.text


def test_filters_by_category_source_trusted_and_retired(viewer):
    pattern = viewer.remember("Quote CSV fields", category="patterns")
    anti = viewer.remember("Never parse CSV by splitting", category="anti-patterns", source="retro")
    gone = viewer.remember("Use tabs in CSV", category="heuristics")
    viewer.service.retire(gone, "wrong")
    assert ids_in(viewer.client.get("/memories?category=anti-patterns")) == [anti]
    assert ids_in(viewer.client.get("/memories?source=retro")) == [anti]
    assert sorted(ids_in(viewer.client.get("/memories?trusted=yes"))) == sorted([pattern, anti])
    assert ids_in(viewer.client.get("/memories?trusted=no")) == []
    retired = viewer.client.get("/memories?retired=1")
    assert ids_in(retired) == [gone] and "wrong" in retired.text and "Retired memories" in retired.text
    assert ids_in(viewer.client.get("/memories?project=no-such-project")) == []
    assert sorted(ids_in(viewer.client.get("/memories?project=bank-app"))) == sorted([pattern, anti])


def test_the_stale_filter_shows_only_what_the_review_found_stale(viewer):
    viewer.remember("Quote CSV fields")
    page = viewer.client.get("/memories?stale=1")
    assert page.status_code == 200 and ids_in(page) == [] and "Stale memories" in page.text


def test_column_headers_sort_both_ways(viewer):
    ids = {name: viewer.remember(name) for name in ("Bravo rule", "alpha rule", "Charlie rule")}
    ascending = viewer.client.get("/memories?sort=name")
    assert ids_in(ascending) == [ids["alpha rule"], ids["Bravo rule"], ids["Charlie rule"]]
    assert 'href="/memories?sort=-name"' in ascending.text, "the sorted column's link reverses it"
    assert ids_in(viewer.client.get("/memories?sort=-name")) == [ids["Charlie rule"], ids["Bravo rule"],
                                                                 ids["alpha rule"]]


def test_pages_of_fifty_with_previous_and_next(viewer):
    stored = {viewer.remember(f"Learning {n:02d} about a topic") for n in range(52)}
    first = viewer.client.get("/memories?sort=name")
    assert len(ids_in(first)) == 50 and "page 1 of 2 · 52 memories" in first.text
    assert 'id="next"' in first.text and 'id="prev"' not in first.text
    second = viewer.client.get("/memories?sort=name&page=2")
    assert len(ids_in(second)) == 2 and "page 2 of 2" in second.text and 'id="prev"' in second.text
    assert set(ids_in(first)) | set(ids_in(second)) == stored


def test_a_bad_filter_is_said_on_the_page_not_a_500(viewer):
    for query in ("sort=evil", "category=nope", "page=zero", "trusted=maybe", "source=elsewhere"):
        page = viewer.client.get(f"/memories?{query}")
        assert page.status_code == 400 and 'id="flash"' in page.text, query


def test_hostile_names_render_as_text_in_the_listing_and_search(viewer):
    ids = [viewer.remember(name, f"{name} as a description of a learning") for name in HOSTILE]
    for path in ("/memories", "/memories?q=alert"):
        text = viewer.client.get(path).text
        assert "<img src=x" not in text and "<script>" not in text
        assert "&lt;img src=x onerror=alert(1)&gt;" in text and "&lt;script&gt;" in text
    assert sorted(ids_in(viewer.client.get("/memories"))) == sorted(ids)


def test_search_results_sort_by_a_column_and_back_to_relevance(viewer):
    ids = {name: viewer.remember(name, f"{name}: quote the csv delimiter in exported files.")
           for name in ("Zed csv rule", "Alpha csv rule")}
    by_name = viewer.client.get("/memories", params={"q": "csv delimiter", "sort": "name"})
    assert ids_in(by_name) == [ids["Alpha csv rule"], ids["Zed csv rule"]]
    assert 'href="/memories?q=csv+delimiter" class="sort" title="sort by relevance">relevance</a>' in by_name.text
    assert ids_in(viewer.client.get("/memories", params={"q": "csv delimiter", "sort": "-name"})) == [
        ids["Zed csv rule"], ids["Alpha csv rule"]]
