"""The hook benchmark (`python -m benchmarks hooks`, issue 23) on a three-entry store and two prompts: the real
hook process runs on both paths, its answer is read back and scored, and it agrees with the calibration's
computation in process. Plus the parsing and the shares on their own."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from benchmarks.common.paths import BANK_HEAD
from benchmarks.hooks.main import HELD_OUT
from benchmarks.hooks.measure import measure_set
from benchmarks.hooks.runner import HookFailed, injected
from benchmarks.hooks.shares import hook_shares
from benchmarks.relevance.corpus_store import build_store
from benchmarks.relevance.sets import PROMPTS, Query, RelevanceSet, Session, _bank_entries, prompt_problems
from memory_core.entries.models import EntryDraft

ENTRIES = {
    "tree": ("anti-patterns", "Python-Side Recursion Against Relational DB for Tree Traversal",
             "Fetching each node's children with its own query makes deep outline pages slow; use a recursive CTE."),
    "venv": ("heuristics", "Recreate Python Venvs After Directory Renames",
             "Virtual environments hold absolute paths in their scripts; moving the folder breaks every script."),
    "bash": ("heuristics", "Assume Bash 3.2 Compatibility for Any Script Targeting macOS",
             "macOS ships bash 3.2: declare -A and mapfile fail there."),
}


def _tiny_set() -> RelevanceSet:
    drafts = {key: EntryDraft(name=name, description=text, category=category, source="retro")
              for key, (category, name, text) in ENTRIES.items()}
    answerable = Query("a1", Session(text="the outline page is slow because every node fetches its children with "
                                          "its own query, recursion against the relational database"), {"tree": 2})
    nothing = Query("u1", Session(text="zzqx vvrk plimf"), {})
    return RelevanceSet("tiny", "three entries", drafts, [answerable], unanswerable=[nothing])


@pytest.mark.slow
def test_the_hook_process_is_run_read_back_and_scored_on_both_paths(tmp_path):
    tiny = _tiny_set()
    built = build_store(tiny, str(tmp_path / "built"), datetime.now(timezone.utc))
    found = measure_set(tiny, built, tmp_path / "runs", ["full", "keyword"])
    full = found["full"]
    rows = {r["prompt"]: r for r in full["per_prompt"]}
    assert rows["a1"]["ids"][:1] == [built.ids["tree"]] and rows["a1"]["grades"][0] == 2
    assert rows["a1"]["semantic"] == "active" and rows["u1"]["ids"] == []
    assert full["hook"]["grade2"] == 1.0 and full["hook"]["silent"] == 1.0 and full["hook"]["max_injected"] <= 3
    for path in ("full", "keyword"):  # the hook process shows what the calibration's computation shows
        assert found[path]["same_as_replica"] == 1.0, found[path]["per_prompt"]
        assert all(r["ms"] > 0 and not r["stderr"] for r in found[path]["per_prompt"])
    assert all(not r["ids"] or r["semantic"].startswith("keywords only") for r in found["keyword"]["per_prompt"])


def test_the_answer_is_read_from_the_hook_json_and_nothing_printed_is_nothing():
    context = ("## Engineering Memory (for this prompt)\n\n*Memory: 2 of 9 for this prompt | semantic: active | "
               "floor: relevance 0.19*\n\n### A\n- id: 142d794ab1ad4061 · relevance 0.23\n### B\ntext - id: 00 · no\n"
               "- id: 0c4d07e5ed49ff01 · relevance 0.20\n")
    output = json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": context}})
    assert injected(output) == (["142d794ab1ad4061", "0c4d07e5ed49ff01"], "active")
    assert injected("") == ([], "") and injected("\n") == ([], "")
    with pytest.raises(HookFailed, match="not hook JSON"):
        injected("Traceback (most recent call last):")


def test_the_shares_count_prompts_and_shown_learnings_and_flag_more_than_three():
    given = [([2, 0], True), ([1], True), ([], True), ([], False), ([0], False)]
    found = hook_shares(given)
    assert found["grade2"] == pytest.approx(1 / 3) and found["relevant"] == pytest.approx(2 / 4)
    assert found["silent"] == 0.5 and found["injected_per_prompt"] == pytest.approx(4 / 5)
    assert found["max_injected"] == 2 and not found["targets_met"]
    assert hook_shares([([2], True), ([], False)])["targets_met"]
    assert not hook_shares([([2, 2, 2, 2], True), ([], False)])["targets_met"]  # never more than 3


@pytest.mark.skipif(not BANK_HEAD.is_dir(), reason="the real bank needs ../shared beside the project")
def test_the_held_out_prompts_name_only_entries_of_the_bank_and_are_all_judged():
    data = json.loads(HELD_OUT.read_text(encoding="utf-8"))
    assert prompt_problems(data, {e.entry_id for e in _bank_entries()}) == []
    answerable = [p for p in data["prompts"] if p.get("relevant")]
    assert len(answerable) >= 10 and len(data["prompts"]) - len(answerable) >= 5
    assert all(any(r["grade"] == 2 for r in p["relevant"]) for p in answerable)
    calibrated = {p["prompt"] for p in json.loads(PROMPTS.read_text(encoding="utf-8"))["prompts"]}
    assert not calibrated & {p["prompt"] for p in data["prompts"]}, "held out: none is a calibration prompt"
