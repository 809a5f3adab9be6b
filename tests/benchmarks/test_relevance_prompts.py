"""The `prompts` relevance set (issue 23): its judgements name only entries of the real bank's head snapshot,
every prompt is judged or marked unanswerable, and a dangling id stops the set instead of scoring as a miss;
the further sets (relevance_prompts_*.json) follow the same rules, and no prompt id is used by two sets."""

from __future__ import annotations

import json

import pytest

from benchmarks.common.paths import BANK_HEAD
from benchmarks.relevance.calibration import separation, spread
from benchmarks.relevance.sets import PROMPTS, _bank_entries, prompt_problems, prompts_set

# every further prompt set (held-out, and the ones written later) follows the same format and judging rules
MORE_PROMPTS = sorted(PROMPTS.parent.glob("relevance_prompts_*.json"))

needs_bank = pytest.mark.skipif(not BANK_HEAD.is_dir(), reason="the real bank needs ../shared beside the project")


def _data() -> dict:
    return json.loads(PROMPTS.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def bank_ids() -> set[str]:
    return {e.entry_id for e in _bank_entries()}


@needs_bank
def test_every_judgement_names_an_entry_of_the_bank_and_every_prompt_is_judged_or_unanswerable(bank_ids):
    data = _data()
    assert prompt_problems(data, bank_ids) == []
    answerable = [p for p in data["prompts"] if p.get("relevant")]
    unanswerable = [p for p in data["prompts"] if p.get("unanswerable")]
    assert len(answerable) + len(unanswerable) == len(data["prompts"])
    assert len(answerable) >= 50 and len(unanswerable) >= 12
    assert all(any(r["grade"] == 2 for r in p["relevant"]) for p in answerable), "an answerable prompt has a 2"


def test_a_dangling_id_an_unjudged_prompt_and_a_bad_grade_are_each_reported():
    data = _data()
    known = {r["entry"] for p in data["prompts"] for r in p.get("relevant", [])}
    first = data["prompts"][0]
    first["relevant"][0]["entry"] = "0123456789abcdef"
    first["relevant"][-1]["grade"] = 3
    data["prompts"].append({"id": "x01", "prompt": "neither judged nor marked"})
    problems = "\n".join(prompt_problems(data, known))
    assert f"{first['id']}: 0123456789abcdef" in problems
    assert "grade 3" in problems and "x01: neither judged nor marked unanswerable" in problems


@needs_bank
def test_the_set_refuses_a_file_with_a_dangling_id(tmp_path):
    data = _data()
    data["prompts"][0]["relevant"][0]["entry"] = "0123456789abcdef"
    path = tmp_path / "prompts.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="0123456789abcdef"):
        prompts_set(path)


@needs_bank
def test_the_set_keeps_unanswerable_prompts_out_of_the_judged_queries():
    found = prompts_set()
    data = _data()
    assert {q.key for q in found.unanswerable} == {p["id"] for p in data["prompts"] if p.get("unanswerable")}
    assert all(q.relevant for q in found.queries) and not any(q.relevant for q in found.unanswerable)
    assert all(q.session.text for q in found.queries + found.unanswerable)


@needs_bank
@pytest.mark.parametrize("path", MORE_PROMPTS, ids=lambda path: path.stem)
def test_every_further_prompt_set_names_only_entries_of_the_bank_and_has_a_2_for_each_answerable_prompt(
        path, bank_ids):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["about"] and prompt_problems(data, bank_ids) == []
    answerable = [p for p in data["prompts"] if p.get("relevant")]
    assert answerable and any(p.get("unanswerable") for p in data["prompts"])
    assert all(any(r["grade"] == 2 for r in p["relevant"]) for p in answerable), "an answerable prompt has a 2"
    found = prompts_set(path)
    assert len(found.queries) + len(found.unanswerable) == len(data["prompts"])


def test_prompt_ids_are_unique_across_all_prompt_sets():
    seen: dict[str, str] = {}
    for path in [PROMPTS, *MORE_PROMPTS]:
        for item in json.loads(path.read_text(encoding="utf-8"))["prompts"]:
            assert item["id"] not in seen, f"{item['id']} is in {seen.get(item['id'])} and {path.name}"
            seen[item["id"]] = path.name


def test_the_floor_statistics_order_pairs_and_spread_values():
    assert separation([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert separation([0.5], [0.5]) == 0.5 and separation([0.1], [0.9]) == 0.0
    assert spread(list(range(11))) == {"median": 5.0, "p10": 1.0, "p90": 9.0}


EXTRA_SETS = sorted(PROMPTS.parent.glob("relevance_prompts_*.json"))


@needs_bank
@pytest.mark.parametrize("path", EXTRA_SETS, ids=lambda p: p.name)
def test_every_further_prompt_file_is_valid_and_every_answerable_prompt_has_a_grade_2(path, bank_ids):
    data = json.loads(path.read_text(encoding="utf-8"))
    assert prompt_problems(data, bank_ids) == []
    assert all(any(r["grade"] == 2 for r in p["relevant"]) for p in data["prompts"] if p.get("relevant"))
    assert prompts_set(path).unanswerable, "each file also measures the floor on prompts nothing answers"


def test_prompt_ids_and_texts_are_unique_across_every_prompt_file():
    files = [PROMPTS, *EXTRA_SETS]
    ids = [p["id"] for f in files for p in json.loads(f.read_text(encoding="utf-8"))["prompts"]]
    texts = [p["prompt"] for f in files for p in json.loads(f.read_text(encoding="utf-8"))["prompts"]]
    assert len(set(ids)) == len(ids), sorted({i for i in ids if ids.count(i) > 1})
    assert len(set(texts)) == len(texts), "a prompt is repeated in another file"
