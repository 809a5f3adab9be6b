"""`iflow-memory edit` as a user runs it (issue 25): the database and the global store's markdown change, `show OLD`
finds the edited memory with its `edited` event and its counts, a secret is redacted; an edit that changes nothing
says so; a retired memory, an unknown id and a hand-written bank's memory are refused (exit 1); on SQLite and
PostgreSQL."""

from __future__ import annotations

import getpass
import json
import re
from pathlib import Path

import pytest

from tests._helpers import run_in_process, write_settings

pytestmark = pytest.mark.slow

STORED = re.compile(r"^Stored: .+ \(id: (?P<id>[0-9a-f]{16})\)$", re.M)
OLD = "Never split CSV rows by hand; the csv module quotes."
NEW = "Never split CSV rows by hand: quoted fields hold commas, and the csv module reads them."
SECRET = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"


class Cli:
    """A project, a global store and the CLI run in this process on them."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root, self.home, self.store = root / "csv-app", home, root / "global-store"
        self.root.mkdir()
        write_settings(self.root, embedding_provider="none")

    def __call__(self, *args: object):
        return run_in_process("memory_apps.cli", [*map(str, args), "--global-store", self.store,
                                                  "--project-root", self.root], self.home, cwd=self.root)

    def json(self, *args: object):
        result = self(*args, "--json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def write(self, name: str, description: str) -> str:
        entry = {"name": name, "description": description, "category": "patterns"}
        result = self("write", "--no-references-from-git", "--entry-json", json.dumps(entry))
        assert result.returncode == 0, result.stderr
        return STORED.search(result.stdout)["id"]

    def markdown(self, category: str) -> str:
        return (self.store / f"{category}.md").read_text(encoding="utf-8")


@pytest.fixture
def cli(tmp_path, isolated_home, backend, monkeypatch) -> Cli:
    for key, value in backend.env.items():
        monkeypatch.setenv(key, value)
    return Cli(tmp_path, isolated_home)


def test_edit_changes_the_store_and_its_markdown_and_the_old_id_still_finds_it(cli):
    old = cli.write("Let the csv module split rows", OLD)
    cli.write("Let the csv module split rows", OLD)  # observed twice

    edited = cli.json("edit", old[:6], "--description", f"{NEW} Key {SECRET}", "--name", "Let csv split rows")

    assert edited["old_id"] == old and edited["id"] != old and edited["edited"] is True
    assert edited["changed"] == ["name", "description"]
    shown = cli.json("show", old)
    assert shown["id"] == edited["id"] and shown["edited_from"] == old
    assert shown["name"] == "Let csv split rows" and SECRET not in shown["description"]
    assert "[REDACTED]" in shown["description"] and shown["observation_count"] == 2
    [event] = shown["history"]
    assert (event["action"], event["actor"]) == ("edited", f"{getpass.getuser()} via cli")
    assert event["detail"]["old_description"] == OLD
    text = cli.markdown("patterns")
    assert "### Pattern: Let csv split rows\n" in text and OLD not in text and SECRET not in text
    plain = cli("show", old)
    assert plain.returncode == 0 and edited["id"] in plain.stdout


def test_edit_says_what_changed_and_when_nothing_did(cli):
    entry_id = cli.write("Let the csv module split rows", OLD)

    moved = cli("edit", entry_id, "--category", "anti-patterns", "--keyword", "csv", "--keyword", "quoting")
    again = cli("edit", entry_id, "--category", "anti-patterns")
    bare = cli("edit", entry_id)

    assert moved.returncode == 0, moved.stderr
    assert moved.stdout.strip() == f"Edited {entry_id} — Let the csv module split rows: category, keywords."
    assert entry_id not in cli.markdown("patterns") and OLD in cli.markdown("anti-patterns")
    assert (again.returncode, again.stdout.strip()) == (
        0, f"Nothing to change: {entry_id} — Let the csv module split rows already says that.")
    assert bare.returncode == 1 and "nothing to edit: give at least one of --name" in bare.stderr
    assert [e["action"] for e in cli.json("show", entry_id)["history"]] == ["edited"]


def test_edit_refuses_a_retired_memory_an_unknown_id_and_bad_input(cli):
    entry_id = cli.write("Let the csv module split rows", OLD)
    other = cli.write("Sniff the dialect first", "Sniff the CSV dialect before reading a file.")
    assert cli("retire", other).returncode == 0

    retired = cli("edit", other, "--name", "Again")
    unknown = cli("edit", "0123456789abcdef", "--name", "Again")
    blank = cli("edit", entry_id, "--description", " ")
    taken = cli("edit", entry_id, "--description", "Sniff the CSV dialect before reading a file.")

    assert retired.returncode == 1 and f"is retired: restore it first (`iflow-memory restore {other}`)" in \
        retired.stderr
    assert unknown.returncode == 1 and "no entry with id 0123456789abcdef" in unknown.stderr
    assert blank.returncode == 1 and "invalid description" in blank.stderr
    assert taken.returncode == 1 and f"invalid description: this is the text of a retired memory: {other}" in \
        taken.stderr
    assert cli.json("show", entry_id)["history"] == []


def test_a_hand_written_banks_memory_is_refused_with_the_file_to_edit(cli):
    bank = cli.root / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "heuristics.md").write_text(f"# Heuristics\n\n### Heuristic: Split CSV with csv\n{OLD}\n",
                                        encoding="utf-8")
    assert cli("import").returncode == 0
    [entry] = cli.json("list")

    refused = cli("edit", entry["id"], "--description", NEW)

    assert refused.returncode == 1
    assert str(bank / "heuristics.md") in refused.stderr and "the next import" in refused.stderr
    assert cli.json("show", entry["id"])["description"] == OLD


def test_edit_help_shows_examples(cli):
    shown = cli("edit", "--help")
    assert shown.returncode == 0
    assert "iflow-memory edit 1c12 --reference src/csv_out.py" in shown.stdout
    assert "exit status: 0 ok, 1 not found or invalid input, 2 database error" in shown.stdout
