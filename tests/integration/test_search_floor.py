"""`search` shows good matches only and says "no good match" otherwise (issue 23): the CLI as a user runs it and
the library, on a project that ranks by keywords only (no embedding model to load)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memory_core.entries.hashing import content_hash
from tests._helpers import run_in_process, write_settings

pytestmark = pytest.mark.slow

LEARNINGS = [
    {"name": "Quote CSV fields", "description": "Quote CSV fields that contain delimiters or newlines.",
     "reasoning": "Unquoted commas shifted every column of the bank export.", "category": "patterns"},
    {"name": "Pin dependency versions",
     "description": "Pin dependency versions in a lockfile; floating ranges broke the CI build twice.",
     "reasoning": "Two red builds in one week.", "category": "anti-patterns"},
]
CSV_ID = content_hash(LEARNINGS[0]["description"])
ACTIVE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class Shell:
    """`iflow-memory` in-process with a temp HOME, on a keyword-only project holding LEARNINGS."""

    def __init__(self, root: Path) -> None:
        self.home, self.project, self.store = root / "home", root / "project", root / "store"
        self.home.mkdir()
        self.project.mkdir()
        write_settings(self.project, embedding_provider="none")

    def __call__(self, *args: str):
        return run_in_process("memory_apps.cli", [*args, "--global-store", str(self.store)], self.home,
                              cwd=self.project)

    def search(self, *args: str):
        result = self("search", "--project-root", str(self.project), *args)
        assert result.returncode == 0, result.stderr
        return result.stdout


@pytest.fixture(scope="module")
def shell(tmp_path_factory) -> Shell:
    shell = Shell(tmp_path_factory.mktemp("search-floor"))
    for learning in LEARNINGS:
        written = shell("write", "--project-root", str(shell.project), "--entry-json", json.dumps(learning))
        assert written.returncode == 0, written.stderr
    return shell


def test_nonsense_says_no_good_match_and_points_at_all(shell):
    out = shell.search("zzzzqqq")

    assert out.startswith('no good match for "zzzzqqq"'), out
    assert "--all" in out and CSV_ID not in out


def test_a_real_match_is_shown_with_its_relevance(shell):
    lines = shell.search("quote", "csv", "fields").splitlines()

    assert lines[0].split() == ["relevance", "score", "id", "category", "name"]
    assert CSV_ID in lines[2] and re.match(r"\s*0\.\d{3}\s", lines[2]), lines
    assert not any(content_hash(LEARNINGS[1]["description"]) in line for line in lines), "no weak row"


def test_all_shows_the_weak_results_marked(shell):
    lines = shell.search("--all", "zzzzqqq").splitlines()

    assert lines[0].split()[-1] == "match"
    rows = lines[2:]
    assert len(rows) == len(LEARNINGS) and all(row.split()[-1] == "weak" for row in rows), lines
    assert "good" in shell.search("--all", "csv").splitlines()[2].split()


def test_json_is_empty_without_a_good_match_and_carries_relevance(shell):
    assert json.loads(shell.search("--json", "zzzzqqq")) == []
    weak = json.loads(shell.search("--json", "--all", "zzzzqqq"))
    found = json.loads(shell.search("--json", "csv", "delimiters"))

    assert {item["id"] for item in weak} == {content_hash(x["description"]) for x in LEARNINGS}
    assert {item["good_match"] for item in weak} == {False}
    assert [item["id"] for item in found] == [CSV_ID]
    assert found[0]["relevance"] == round(found[0]["relevance"], 3) and 0 < found[0]["relevance"] <= 1


def test_a_hostile_query_is_echoed_inert(shell):
    out = shell.search("zzzz\x1b]0;owned\x07\x1b[31mred\u202eqqq")

    assert out.startswith('no good match for "zzzz'), out
    assert not ACTIVE.search(out), repr(out)


def test_help_explains_the_floor(shell):
    result = shell("search", "--help")

    assert "no good match" in result.stdout and "--all" in result.stdout
    assert re.search(r"relevance .*floor", " ".join(result.stdout.split())), result.stdout


def test_the_library_filters_the_same_way(shell, isolated_home):
    from memory_apps.service import MemoryService

    with MemoryService(str(shell.store), str(shell.project)) as service:
        nothing = service.search("zzzzqqq")
        weak = service.search("zzzzqqq", include_weak=True)
        found = service.search("quote csv fields")

    assert nothing.selected == [] and nothing.total == len(LEARNINGS)
    assert len(weak.selected) == len(LEARNINGS) and not any(weak.is_good(r) for r in weak.selected)
    assert [r.entry.id for r in found.selected] == [CSV_ID] and found.is_good(found.selected[0])
