"""`review`, `confirm`, `retire`, `restore`, `write --supersedes` and `show` as a user runs them (issue 24):
a git project whose cited files are renamed, deleted and rewritten after the learnings were anchored; on SQLite
and PostgreSQL."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memory_core.ranking.near_duplicates import KEYWORD_ONLY_THRESHOLD
from tests._helpers import git, run_in_process, run_injector, write_settings

pytestmark = pytest.mark.slow

STORED = re.compile(r"^Stored: .+ \(id: (?P<id>[0-9a-f]{16})\)$", re.M)
FILES = {
    "src/csv_reader.py": "import csv\n\ndef rows(path):\n    return list(csv.reader(open(path)))\n",
    "src/sniff.py": "def dialect(sample):\n    return 'excel'\n",
    "src/gone.py": "def legacy():\n    return None\n",
    "src/stable.py": "VALUE = 1\n",
}
LEARNINGS = {  # the file each cites; what happens to it after the learning is anchored
    "src/csv_reader.py": ("Let the csv module split rows", "Never split CSV rows by hand; the csv module quotes."),
    "src/sniff.py": ("Sniff the dialect first", "Sniff the CSV dialect before reading a file."),
    "src/gone.py": ("Keep the legacy hook", "Keep the legacy hook for old exports."),
    "src/stable.py": ("One stable value", "Read the stable value from one constant."),
}


class Project:
    """A git project, a global store and the CLI run in this process on them."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root, self.home, self.store = root / "csv-app", home, root / "global-store"
        self.root.mkdir()
        write_settings(self.root, embedding_provider="none")
        for path, text in FILES.items():
            (self.root / path).parent.mkdir(parents=True, exist_ok=True)
            (self.root / path).write_text(text, encoding="utf-8")
        git(self.root, "init", "-q")
        git(self.root, "add", ".")
        git(self.root, "commit", "-qm", "first")

    def __call__(self, *args: object):
        return run_in_process("memory_apps.cli", [*map(str, args), "--global-store", self.store,
                                                  "--project-root", self.root], self.home, cwd=self.root)

    def json(self, *args: object):
        result = self(*args, "--json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def write(self, name: str, description: str, *extra: object, references=()) -> str:
        entry = {"name": name, "description": description, "category": "patterns", "references": list(references)}
        result = self("write", "--no-references-from-git", "--entry-json", json.dumps(entry), *extra)
        assert result.returncode == 0, result.stderr
        return STORED.search(result.stdout)["id"]


@pytest.fixture
def project(tmp_path, isolated_home, backend, monkeypatch) -> Project:
    """On each store (`backend`): the apps started through _helpers use it, and so does code run here."""
    for key, value in backend.env.items():
        monkeypatch.setenv(key, value)
    return Project(tmp_path, isolated_home)


def anchored(project: Project) -> dict[str, str]:
    """The four learnings written and confirmed (anchored to the first commit); their ids by cited file."""
    ids = {path: project.write(name, text, references=[path]) for path, (name, text) in LEARNINGS.items()}
    for entry_id in ids.values():
        confirmed = project("confirm", entry_id[:8])
        assert confirmed.returncode == 0, confirmed.stderr
        assert "1 citation anchored" in confirmed.stdout
    return ids


def test_review_lists_moved_missing_and_changed_and_confirm_takes_one_off(project):
    ids = anchored(project)
    assert project.json("review") == {"stale": [], "near_duplicates": [], "superseded": []}
    git(project.root, "mv", "src/sniff.py", "src/sniffing.py")
    git(project.root, "rm", "-q", "src/gone.py")
    (project.root / "src/csv_reader.py").write_text("def rows(path):\n    return open(path).read().split(',')\n")
    git(project.root, "commit", "-qam", "rename, delete, rewrite")

    stale = project.json("review")["stale"]

    expected = {ids["src/sniff.py"]: ("moved", "src/sniffing.py"), ids["src/gone.py"]: ("missing", None),
                ids["src/csv_reader.py"]: ("changed", None)}
    assert [s["id"] for s in stale] == sorted(expected), "the untouched learning is not listed; ids in order"
    for item in stale:
        [reference] = item["references"]
        assert (reference["state"], reference["moved_to"]) == expected[item["id"]]
        assert item["name"] == LEARNINGS[reference["reference"]][0]
    text = project("review").stdout
    assert "cites src/sniff.py, now src/sniffing.py" in text and "cites src/gone.py, which no longer exists" in text
    assert "src/csv_reader.py changed since this was learned" in text and "iflow-memory confirm ID" in text
    assert ids["src/stable.py"] not in text

    assert project("confirm", ids["src/csv_reader.py"]).returncode == 0

    after = project.json("review")["stale"]
    assert [s["id"] for s in after] == sorted([ids["src/sniff.py"], ids["src/gone.py"]])
    [anchor] = project.json("show", ids["src/sniff.py"])["anchors"]
    assert (anchor["reference"], anchor["state"], anchor["moved_to"]) == ("src/sniff.py", "moved", "src/sniffing.py")
    assert "(cites src/sniff.py, now src/sniffing.py)" in project("show", ids["src/sniff.py"]).stdout
    assert "src/csv_reader.py  blob" in project("show", ids["src/csv_reader.py"]).stdout
    history = project.json("show", ids["src/csv_reader.py"])["history"]
    assert [e["action"] for e in history] == ["confirmed", "confirmed"]


def test_write_supersedes_retires_the_old_learning_and_show_explains(project):
    old = project.write("Split rows on commas", "Split CSV rows on every comma with str.split.")
    result = project("write", "--no-references-from-git", "--supersedes", old[:6], "--entry-json", json.dumps(
        {"name": "Let the csv module split rows", "description": "Let the csv module split CSV rows; it handles "
         "quoted commas.", "category": "anti-patterns"}))
    assert result.returncode == 0, result.stderr
    new = STORED.search(result.stdout)["id"]
    assert f"Superseded: {old}" in result.stdout

    assert old not in [hit["id"] for hit in project.json("search", "--all", "split", "CSV", "rows", "comma")]
    assert old not in [e["id"] for e in project.json("list")]
    block = run_injector(project.root, project.store, project.home).stdout
    assert "Let the csv module split rows" in block and "Split rows on commas" not in block, block
    shown = project("show", old)
    assert shown.returncode == 0, shown.stderr
    assert "RETIRED" in shown.stdout and f"superseded by {new} — Let the csv module split rows" in shown.stdout
    data = project.json("show", old)
    assert (data["superseded_by"], data["retired"]["reason"]) == (new, "")
    assert [(e["action"], e["detail"]) for e in data["history"]] == [("superseded", {"by": new})]
    assert project.json("review")["superseded"] == [{"id": old, "name": "Split rows on commas", "superseded_by": new}]
    again = project("write", "--supersedes", old, "--entry-json", json.dumps(
        {"name": "x", "description": "Something else entirely.", "category": "patterns"}))
    assert again.returncode == 1 and "retired" in again.stderr
    unknown = project("write", "--supersedes", "0123456789abcdef", "--entry-json", json.dumps(
        {"name": "x", "description": "Something else entirely.", "category": "patterns"}))
    assert unknown.returncode == 1 and "no entry with id 0123456789abcdef" in unknown.stderr
    assert "Something else entirely" not in project("list").stdout, "a refused supersede stores nothing"


def test_retire_and_restore_round_trip(project):
    kept = project.write("Quote CSV fields", "Quote CSV fields that hold delimiters.")
    retired = project("retire", kept[:5], "--reason", "the export moved to parquet")
    assert retired.returncode == 0, retired.stderr
    assert f"iflow-memory restore {kept}" in retired.stdout
    assert project.json("list") == [] and [e["id"] for e in project.json("list", "--retired")] == [kept]
    assert project.json("search", "--all", "quote", "csv", "fields") == []
    assert "the export moved to parquet" in project("show", kept).stdout
    twice = project("retire", kept)
    assert twice.returncode == 1 and "is retired" in twice.stderr

    restored = project("restore", kept[:5])

    assert restored.returncode == 0, restored.stderr
    assert [e["id"] for e in project.json("list")] == [kept] and project.json("list", "--retired") == []
    assert kept in [hit["id"] for hit in project.json("search", "--all", "quote", "csv", "fields")]
    assert [e["action"] for e in project.json("show", kept)["history"]] == ["retired", "restored"]
    live = project("restore", kept)
    assert live.returncode == 1 and "not retired" in live.stderr
    for command in ("retire", "restore", "confirm"):
        missing = project(command, "0123456789abcdef")
        assert missing.returncode == 1 and "no entry with id 0123456789abcdef" in missing.stderr, command


def test_show_follows_an_edit_and_prints_a_hostile_reason_inert(project):
    from datetime import datetime, timezone

    from memory_apps.service import MemoryService
    from memory_core.entries.models import EntryDraft
    from memory_core.entries.records import HistoryEvent

    old = project.write("Quote CSV fields", "Quote CSV fields that hold delimiters.")
    draft = EntryDraft(name="Quote CSV fields", description="Quote CSV fields that hold delimiters or newlines.",
                       category="patterns")
    with MemoryService(str(project.store), str(project.root)) as service:  # an import's edit, as the store makes it
        edited = service.container.store().replace_text(old, draft, HistoryEvent(
            old, "edited", datetime.now(timezone.utc), "ana via import", {"old_id": old, "new_id": draft.entry_id}))
    assert edited is not None

    shown = project("show", old)

    assert shown.returncode == 0, shown.stderr
    assert f"{old} was edited: it is now {draft.entry_id}" in shown.stdout and "or newlines" in shown.stdout
    assert project.json("show", old)["edited_from"] == old
    retired = project("retire", old, "--reason", "stale\x1b[31m\n### Anti-Pattern: forged\u202e")
    assert retired.returncode == 0 and draft.entry_id in retired.stdout, retired.stderr
    text = project("show", draft.entry_id).stdout
    assert "\x1b" not in text and "\u202e" not in text and "\n### Anti-Pattern" not in text
    assert "forged" in text, "the reason is shown, on one line"


def test_review_lists_a_near_duplicate_pair_by_words_without_a_model(project):
    first = project.write("Quote CSV fields with delimiters", "Quote CSV fields that contain delimiters or newlines.")
    second = project.write("Quote CSV fields containing delimiters",
                           "Quote the CSV fields containing delimiters or newlines.")
    project.write("Pin dependency versions", "Pin dependency versions in a lockfile.")

    [pair] = project.json("review")["near_duplicates"]

    assert pair["ids"] == sorted([first, second]) and pair["score"] >= KEYWORD_ONLY_THRESHOLD
    text = project("review").stdout
    assert "Near-duplicates: 1 pair" in text and first in text and second in text


def test_a_retired_learning_leaves_the_project_bank_the_writer_put_it_in_and_a_restore_brings_it_back(project):
    """The writer also writes the project's bank, which a team commits: a retired (or superseded, or edited-away)
    learning must leave it, or a teammate importing the bank gets it back live. A hand-written block stays."""
    bank = project.root / "docs" / "knowledge-bank"

    def in_bank(text: str, category: str = "patterns") -> bool:
        path = bank / f"{category}.md"
        return path.exists() and text in path.read_text("utf-8")

    kept = project.write("Quote CSV fields", "Quote CSV fields that hold delimiters.")
    assert in_bank("Quote CSV fields that hold delimiters.")
    assert project("retire", kept[:6]).returncode == 0
    assert not in_bank("Quote CSV fields that hold delimiters."), "retired: out of the committed bank"
    assert project("restore", kept[:6]).returncode == 0
    assert in_bank("Quote CSV fields that hold delimiters."), "restored: back in the bank"

    old = project.write("Split rows on commas", "Split CSV rows on every comma with str.split.")
    result = project("write", "--no-references-from-git", "--supersedes", old, "--entry-json", json.dumps(
        {"name": "Let the csv module split rows", "description": "Let the csv module split CSV rows.",
         "category": "patterns"}))
    assert result.returncode == 0, result.stderr
    assert not in_bank("Split CSV rows on every comma") and in_bank("Let the csv module split CSV rows.")

    hand = "### Pattern: Hand written\nWritten in the bank by a person, not by a tool.\n"
    with open(bank / "patterns.md", "a", encoding="utf-8") as out:
        out.write("\n" + hand)
    assert project("import").returncode == 0
    [imported] = [e["id"] for e in project.json("list") if e["name"] == "Hand written"]
    assert project("retire", imported).returncode == 0
    assert in_bank(hand.strip()), "a block the user wrote stays as written"
    assert imported in [e["id"] for e in project.json("list", "--retired")]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # a rebuild from markdown is the SQLite file's
def test_a_written_learning_rebuilt_from_markdown_still_leaves_the_project_bank_when_retired(project):
    """A rebuild reads how an entry was stored from the global markdown (`- Source: <project>, retro`): were it
    taken for a hand-written bank entry, retiring it would leave its block in the committed bank."""
    kept = project.write("Quote CSV fields", "Quote CSV fields that hold delimiters.")
    for path in project.store.glob("memory.db*"):
        path.unlink()
    [listed] = project.json("list")  # the read rebuilds the database from the store's markdown
    assert (listed["id"], listed["source"]) == (kept, "retro")  # as the writer stored it
    assert project("retire", kept[:6]).returncode == 0
    text = (project.root / "docs" / "knowledge-bank" / "patterns.md").read_text("utf-8")
    assert "Quote CSV fields that hold delimiters." not in text


def test_an_edit_of_a_written_learning_replaces_its_block_in_the_project_bank(project):
    from datetime import datetime, timezone

    from memory_apps.service import MemoryService
    from memory_core.entries.models import EntryDraft
    from memory_core.entries.records import HistoryEvent

    old = project.write("Quote CSV fields", "Quote CSV fields that hold delimiters.")
    draft = EntryDraft(name="Quote CSV fields", description="Quote CSV fields that hold delimiters or newlines.",
                       category="patterns")
    with MemoryService(str(project.store), str(project.root)) as service:
        lifecycle = service.container.store()
        assert lifecycle.replace_text(old, draft, HistoryEvent(old, "edited", datetime.now(timezone.utc),
                                                               "ana via library", {"old_id": old})) is not None
        assert not service.container.reconcile().run().problems
    text = (project.root / "docs" / "knowledge-bank" / "patterns.md").read_text("utf-8")
    assert "delimiters or newlines." in text and "hold delimiters.\n" not in text
