"""`write` against the lifecycle as a user runs it (issue 24 review): a retired learning's text or id is refused
with how to restore it, `--json --supersedes` names what it retired, references a repeat or a merge adds are
anchored, and `confirm` keeps the mark of a cited file that moved; on SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest

from memory_core.entries.hashing import content_hash
from tests._helpers import git
from tests.integration.test_review_cli import STORED, Project

pytestmark = pytest.mark.slow

SPLIT = {"name": "Split rows on commas", "description": "Split CSV rows on every comma with str.split.",
         "category": "patterns"}


@pytest.fixture
def project(tmp_path, isolated_home, backend, monkeypatch) -> Project:
    """On each store (`backend`): the apps started through _helpers use it, and so does code run here."""
    for key, value in backend.env.items():
        monkeypatch.setenv(key, value)
    return Project(tmp_path, isolated_home)


def write(project: Project, entry: dict, *extra: object):
    return project("write", "--no-references-from-git", "--entry-json", json.dumps(entry), *extra)


def test_writing_a_retired_learning_again_is_refused_until_it_is_restored(project):
    old = project.write(SPLIT["name"], SPLIT["description"])
    assert project("retire", old, "--reason", "quoted commas").returncode == 0

    again = write(project, {**SPLIT, "name": "Split rows"})
    merged = write(project, {**SPLIT, "description": "Split rows with str.split."}, "--merge-into", old[:6])

    day = project.json("show", old)["retired"]["at"][:10]
    assert again.returncode == 1 and again.stdout == ""
    assert again.stderr.strip() == (f"iflow-memory: {old} — Split rows on commas was retired on {day} (quoted "
                                    f"commas); `iflow-memory restore {old}` brings it back")
    assert merged.returncode == 1 and "no entry with id" not in merged.stderr
    assert f"cannot merge into {old} — Split rows on commas was retired on" in merged.stderr
    assert f"`iflow-memory restore {old}` brings it back" in merged.stderr
    assert project.json("show", old)["retired"] is not None and project.json("list") == []
    assert [r["id"] for r in project.json("list", "--retired")] == [old]

    assert project("restore", old).returncode == 0
    assert json.loads(write(project, SPLIT, "--json").stdout)["observation_count"] == 2


def test_write_with_the_text_an_edit_replaced_reinforces_the_learning_it_became(project):
    bank = project.root / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    block = "# Patterns\n\n### Pattern: Split rows on commas\n{}\n"
    (bank / "patterns.md").write_text(block.format(SPLIT["description"]), encoding="utf-8")
    assert project("import").returncode == 0
    old = content_hash(SPLIT["description"])
    (bank / "patterns.md").write_text(block.format("Split CSV rows with the csv module."), encoding="utf-8")
    assert project("import").returncode == 0  # the block kept its heading: an edit, the old id leads to the new
    current = content_hash("Split CSV rows with the csv module.")
    assert project.json("show", old)["id"] == current

    result = write(project, SPLIT, "--json")

    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["id"], data["created"], data["name"]) == (current, False, "Split rows on commas")
    assert [e["id"] for e in project.json("list")] == [current], "the old text is not stored beside it"


def test_write_json_supersedes_names_the_retired_learning(project):
    old = project.write(SPLIT["name"], SPLIT["description"])
    result = write(project, {"name": "Use the csv module", "description": "Let the csv module split CSV rows.",
                             "category": "patterns"}, "--supersedes", old[:6], "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["superseded"] == old and data["created"] is True
    assert f"Superseded: {old}" in result.stderr
    plain = json.loads(write(project, {**SPLIT, "description": "Something else."}, "--json").stdout)
    assert plain["superseded"] is None


def test_references_a_repeat_or_a_merge_adds_are_anchored(project):
    entry = {**SPLIT, "references": ["src/csv_reader.py"]}
    entry_id = STORED.search(write(project, entry).stdout)["id"]
    [learned] = project.json("show", entry_id)["anchors"]

    assert write(project, {**entry, "references": ["src/csv_reader.py", "src/sniff.py"]}).returncode == 0
    assert write(project, {"name": "Use csv", "description": "Use the csv module for rows.", "category": "patterns",
                           "references": ["src/stable.py"]}, "--merge-into", entry_id[:6]).returncode == 0

    anchors = project.json("show", entry_id)["anchors"]
    assert [a["reference"] for a in anchors] == ["src/csv_reader.py", "src/sniff.py", "src/stable.py"]
    assert anchors[0]["blob"] == learned["blob"] and all(a["state"] == "current" for a in anchors)


def test_confirm_keeps_the_mark_of_a_moved_file_and_says_what_to_do(project):
    entry = {"name": "Sniff then read", "description": "Sniff the dialect, then let csv read the rows.",
             "category": "patterns", "references": ["src/sniff.py", "src/csv_reader.py"]}
    entry_id = STORED.search(write(project, entry).stdout)["id"]
    git(project.root, "mv", "src/sniff.py", "src/sniffing.py")
    git(project.root, "commit", "-qm", "rename")

    confirmed = project("confirm", entry_id)

    assert confirmed.returncode == 0, confirmed.stderr
    assert confirmed.stdout.strip() == (
        f"Confirmed {entry_id} — Sniff then read: confirmed 1 of 2 citations; src/sniff.py is still gone (moved "
        "to src/sniffing.py): supersede the learning with the new path, or retire it")
    data = project.json("confirm", entry_id)
    assert (data["anchored"], data["cited"]) == (1, 2)
    assert data["still_gone"] == [{"reference": "src/sniff.py", "moved_to": "src/sniffing.py"}]
    [stale] = project.json("review")["stale"]
    assert stale["id"] == entry_id and [r["state"] for r in stale["references"]] == ["moved"]
