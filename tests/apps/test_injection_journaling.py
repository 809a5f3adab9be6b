"""What the hooks journal (ADR 27): each path's signals mapped honestly (absent when not computed), prompts
redacted and cut, and a journal that fails never costs a hook anything but one stderr line."""

from __future__ import annotations

from types import SimpleNamespace

from memory_apps.session.journaling import (TRIGGER_CHARS, code_mark, diagnostic_of, journal_injection,
                                            journal_signals, nothing_shown, prompt_trigger, shown_memory)
from memory_core.anchors.marks import AnchorMarks
from memory_core.ranking.absolute_relevance import KEYWORD_MATCH
from memory_core.ranking.relevance_signals import BM25, COSINE, WORD_SHARE


def test_search_signals_become_meaning_and_keywords_on_a_0_to_1_scale():
    raw = {COSINE: 1.2, WORD_SHARE: 0.5, BM25: 7.3}
    assert journal_signals(raw, vector_ran=True) == {"meaning": 1.0, "keywords": 0.5}


def test_a_cosine_the_vector_step_never_computed_is_left_out():
    assert journal_signals({COSINE: 0.0, WORD_SHARE: 0.25}, vector_ran=False) == {"keywords": 0.25}


def test_a_negative_cosine_is_clipped_to_zero():
    assert journal_signals({COSINE: -0.3}, vector_ran=True) == {"meaning": 0.0}


def test_keyword_match_stands_in_where_the_scale_has_no_word_share():
    assert journal_signals({KEYWORD_MATCH: 1.0}) == {"keywords": 1.0}


def test_references_and_prominence_only_when_given():
    assert journal_signals({}, reference=0.6) == {"references": 0.6}
    assert journal_signals({}, prominence=0.4) == {"prominence": 0.4}
    assert journal_signals({}) == {}


def test_shown_memory_keeps_id_name_category_score_relevance_and_mark():
    entry = SimpleNamespace(id="0123456789abcdef", name="Use the csv module", category="patterns")
    shown = shown_memory(entry, 0.8, 0.66, {"meaning": 0.7}, "moved: src/a.py")
    assert (shown.entry_id, shown.name, shown.category, shown.score, shown.relevance, shown.mark) == \
        ("0123456789abcdef", "Use the csv module", "patterns", 0.8, 0.66, "moved: src/a.py")
    assert shown.signals == {"meaning": 0.7}


def test_a_prompt_is_redacted_before_it_is_cut():
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    kept = prompt_trigger("x" * (TRIGGER_CHARS - 10) + " " + token + " and more")
    assert len(kept) <= TRIGGER_CHARS
    assert "ghp_A1b2" not in kept


def test_the_diagnostic_is_the_line_the_block_printed():
    assert diagnostic_of("## Title\n\n*Memory: 2 for a.py | x*\n\n> fence\n") == "*Memory: 2 for a.py | x*"
    assert diagnostic_of("") == ""


class _Broken:
    def append(self, record):
        raise OSError("disk full")


def test_a_failing_journal_costs_one_stderr_line_and_nothing_on_stdout(capsys):
    journal_injection(_Broken(), "prompt", "proj", "", [], "s1", "why")
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "injection journal not updated" in err


def test_the_code_mark_says_current_only_where_the_check_ran():
    marks = AnchorMarks({"a" * 16: "cites src/a.py, now src/b.py"}, checked=frozenset({"a" * 16, "b" * 16}))
    assert code_mark(marks, "a" * 16) == "cites src/a.py, now src/b.py"
    assert code_mark(marks, "b" * 16) == "current", "checked, nothing to say: current"
    assert code_mark(marks, "c" * 16) == "", "not checked (no citation of this project, or no time)"
    assert code_mark(AnchorMarks(), "b" * 16) == ""


def test_nothing_shown_keeps_the_line_and_says_why():
    line = "*Memory: 0 for src/a.py | by what they cite: the file, its name, its directory*"
    assert nothing_shown(line, 2, "no memory cites it") == (
        "*Memory: 0 for src/a.py | by what they cite: the file, its name, its directory"
        " | already shown in this session: 2*")
    assert nothing_shown(line, 0, "no memory cites it").endswith("| no memory cites it*")
