"""Category-balanced selection (spec 001 D3 selection, spec 002 token budget, AC12)."""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.ranking.selection import balanced_select, group_by_category, select_by_scores

PRIORITY = ["anti-patterns", "heuristics", "patterns"]


@dataclass(eq=False)
class Item:
    category: str
    score: float
    tag: int


def key(item: Item):
    return (-item.score, item.tag)


ITEMS = st.lists(st.tuples(st.sampled_from(PRIORITY), st.integers(0, 1000)), max_size=30).map(
    lambda rows: [Item(c, s, i) for i, (c, s) in enumerate(rows)])
LIMITS = st.one_of(st.just(-1), st.just(0), st.integers(1, 35))


def guaranteed(items: list[Item], limit: int) -> set[int]:
    """Tags of the top-3 per category when the limit allows 3 for every non-empty category."""
    buckets = {c: sorted((i for i in items if i.category == c), key=key) for c in PRIORITY}
    non_empty = [c for c in PRIORITY if buckets[c]]
    if limit < 0 or limit >= 3 * len(non_empty):
        return {i.tag for c in non_empty for i in buckets[c][:3]}
    return set()


def fill_outcome(items: list[Item], limit: int, fill: str) -> tuple[list[Item], list[Item], list[Item]]:
    """(chosen, those chosen beyond the guaranteed top-3 per category, those left out) for one fill rule."""
    chosen = balanced_select(items, lambda i: i.category, key, limit, fill=fill)
    chosen_tags = {i.tag for i in chosen}
    extra = [i for i in chosen if i.tag not in guaranteed(items, limit)]
    return chosen, extra, [i for i in items if i.tag not in chosen_tags]


@settings(max_examples=80, deadline=None)
@given(items=ITEMS, limit=LIMITS, fill=st.sampled_from(["score", "category-priority"]))
def test_size_uniqueness_and_min_three(items, limit, fill):
    chosen = balanced_select(items, lambda i: i.category, key, limit, fill=fill)
    tags = [i.tag for i in chosen]
    assert len(tags) == len(set(tags))
    assert all(i in items for i in chosen)
    expected_size = len(items) if limit == -1 else min(limit, len(items))
    assert len(chosen) == expected_size
    non_empty = {i.category for i in items}
    if limit == -1 or limit >= 3 * len(non_empty):
        for c in non_empty:
            size = sum(1 for i in items if i.category == c)
            assert sum(1 for i in chosen if i.category == c) >= min(3, size)


@settings(max_examples=80, deadline=None)
@given(items=ITEMS, limit=LIMITS)
def test_score_fill_takes_best_leftovers(items, limit):
    _, extra, left_out = fill_outcome(items, limit, "score")
    for x in extra:
        for y in left_out:
            assert key(x) < key(y), f"{x} chosen over better {y}"


@settings(max_examples=80, deadline=None)
@given(items=ITEMS, limit=LIMITS)
def test_category_priority_fill(items, limit):
    chosen, extra, left_out = fill_outcome(items, limit, "category-priority")
    for y in left_out:
        # nothing from a lower-priority category was added while y's category still had entries
        assert all(PRIORITY.index(x.category) <= PRIORITY.index(y.category) for x in extra)
        # inside a category the best entries are taken first
        assert all(key(x) < key(y) for x in chosen if x.category == y.category)


def test_category_priority_example_from_spec_002():
    # 15 strong anti-patterns, 4 heuristics, 4 patterns, limit 11: 3+3+3 then anti-patterns fill
    items = ([Item("anti-patterns", 100 - n, n) for n in range(15)]
             + [Item("heuristics", 50 - n, 20 + n) for n in range(4)]
             + [Item("patterns", 900 - n, 40 + n) for n in range(4)])
    chosen = balanced_select(items, lambda i: i.category, key, 11, fill="category-priority")
    counts = {c: sum(1 for i in chosen if i.category == c) for c in PRIORITY}
    assert counts == {"anti-patterns": 5, "heuristics": 3, "patterns": 3}
    by_score = balanced_select(items, lambda i: i.category, key, 11, fill="score")
    counts = {c: sum(1 for i in by_score if i.category == c) for c in PRIORITY}
    # score fill: the last pattern (897) and the best leftover anti-pattern (97) beat every heuristic
    assert counts == {"anti-patterns": 4, "heuristics": 3, "patterns": 4}


def test_below_three_per_category_the_guarantee_is_skipped():
    items = [Item("anti-patterns", 10 - n, n) for n in range(6)] + [Item("patterns", 1, 10), Item("heuristics", 0, 11)]
    chosen = balanced_select(items, lambda i: i.category, key, 5, fill="category-priority")
    assert [i.category for i in chosen] == ["anti-patterns"] * 5


def test_group_by_category_orders_blocks_and_keeps_selection_order():
    items = [Item("patterns", 1, 0), Item("heuristics", 1, 1), Item("anti-patterns", 1, 2),
             Item("patterns", 1, 3), Item("anti-patterns", 1, 4)]
    groups = group_by_category(items, lambda i: i.category)
    assert [c for c, _ in groups] == PRIORITY
    assert [[i.tag for i in members] for _, members in groups] == [[2, 4], [1], [0, 3]]
    assert [c for c, _ in group_by_category(items[:1], lambda i: i.category)] == ["patterns"]


# -- select_by_scores: the session-start shortcut must choose exactly what balanced_select chooses -----------
@dataclass(frozen=True)
class Scored:
    id: str
    category: str


SCORED = st.lists(
    st.tuples(st.sampled_from(PRIORITY + ["unknown"]),
              st.sampled_from([0.0, 0.25, 0.5, 0.5, 0.75, 1.0]) | st.floats(0, 1)),  # many ties on purpose
    max_size=120,
).map(lambda rows: ([Scored(f"id{i:04d}", c) for i, (c, _) in enumerate(rows)],
                    {f"id{i:04d}": s for i, (_, s) in enumerate(rows)}))


@settings(max_examples=300, deadline=None)
@given(data=SCORED, limit=LIMITS)
def test_select_by_scores_equals_the_full_balanced_selection(data, limit):
    items, scores = data
    full = balanced_select(items, lambda i: i.category, lambda i: (-scores[i.id], i.id), limit)
    fast = select_by_scores(items, scores, attrgetter("id"), attrgetter("category"), limit)
    assert [i.id for i in fast] == [i.id for i in full]


def test_select_by_scores_reaches_deep_for_a_sparse_category():
    """A category whose best entry scores last overall still gets its three slots."""
    items = [Scored(f"a{i:03d}", "anti-patterns") for i in range(200)]
    items += [Scored(f"p{i}", "patterns") for i in range(3)]
    scores = {i.id: 1.0 - n / 1000 for n, i in enumerate(items)}
    chosen = select_by_scores(items, scores, attrgetter("id"), attrgetter("category"), 20)
    assert len(chosen) == 20
    assert [i.id for i in chosen if i.category == "patterns"] == ["p0", "p1", "p2"]
