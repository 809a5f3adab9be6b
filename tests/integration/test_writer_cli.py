"""The retro writer: exit codes 0/1/2, the confirmation line, reinforcement, then injection.

`python -m memory_apps.writer` and `iflow-memory write` run in this process (`run_in_process`), except where the
README's command line itself is the test (`process=True`); the injector runs as the process it is. What is stored
and read back runs on both stores (`backend`); where the entry comes from (file, stdin), input checks that refuse
before any store opens, and the SQLite file itself (a store that cannot be created, a corrupt file) are SQLite's
only."""

from __future__ import annotations

import json
import re

import pytest

from memory_core.entries.hashing import content_hash
from tests._helpers import (
    db_rows, diagnostic_line, entry_headers, run_in_process, run_injector, run_module,
)
from tests._learnings import learning

pytestmark = pytest.mark.slow

ENTRY = learning("Read before parsing", "Read real files before writing a parser for their format.",
                 "Assumed formats cost 5 review iterations.", "patterns",
                 keywords=["parser", "file-format", "review-iterations"],  # grounded in the text
                 references=["src/parser.py"], confidence="high")
STORED = re.compile(r"^Stored: (?P<name>.+) \(id: (?P<id>[0-9a-f]{16})\)$")


def write(store, home, entry=None, *extra, raw=None, via_cli=False, process=False):
    args = ["--action", "upsert", "--global-store", store, *extra]
    if raw is not None or entry is not None:
        args += ["--entry-json", raw if raw is not None else json.dumps(entry)]
    run = run_module if process else run_in_process
    if via_cli:
        return run("memory_apps.cli", ["write", *args], home)
    return run("memory_apps.writer", args, home)


@pytest.mark.parametrize("via_cli, process", [(False, True), (True, False)], ids=["writer-process", "cli-write"])
def test_valid_entry_is_stored_under_its_content_hash(tmp_path, isolated_home, via_cli, process, backend):
    """The README's writer command line as a process of its own; `iflow-memory write` in-process."""
    store = tmp_path / "global-store"

    result = write(store, isolated_home, ENTRY, via_cli=via_cli, process=process)

    assert result.returncode == 0, result.stderr
    match = STORED.match(result.stdout.strip())
    assert match, result.stdout
    assert match["name"] == ENTRY["name"]
    assert match["id"] == content_hash(ENTRY["description"])
    assert backend.holds_store(store)
    rows = backend.rows(store, "SELECT id, name, category, source, observation_count, confidence, "
                        'keywords, "references", reasoning FROM entries')
    assert rows == [(match["id"], ENTRY["name"], "patterns", "retro", 1, "high",
                     json.dumps(ENTRY["keywords"]), json.dumps(ENTRY["references"]), ENTRY["reasoning"])]


def test_same_description_reinforces_the_entry(tmp_path, isolated_home, backend):
    store = tmp_path / "global-store"
    first = write(store, isolated_home, ENTRY)
    # Same description up to case and whitespace: the same content hash.
    again = dict(ENTRY, name="Read before parsing (again)",
                 description="  read REAL files before writing a parser\nfor their format.  ")

    second = write(store, isolated_home, again)

    assert first.returncode == 0 and second.returncode == 0, (first.stderr, second.stderr)
    entry_id = content_hash(ENTRY["description"])
    assert STORED.match(second.stdout.strip())["id"] == entry_id
    rows = backend.rows(store, "SELECT id, observation_count FROM entries")
    assert rows == [(entry_id, 2)]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"category": "tips"}, "category"),
        ({"name": None}, "name"),
        ({"name": "   "}, "name"),
        ({"description": ""}, "description"),
        ({"confidence": "certain"}, "confidence"),
        ({"keywords": [1, 2]}, "keywords"),
        ({"colour": "blue"}, "colour"),
    ],
    ids=["bad-category", "missing-name", "blank-name", "empty-description", "bad-confidence",
         "non-string-keywords", "unknown-field"],
)
def test_invalid_entry_exits_1_naming_the_field(tmp_path, isolated_home, change, field):
    store = tmp_path / "global-store"
    entry = {k: v for k, v in {**ENTRY, **change}.items() if v is not None}

    result = write(store, isolated_home, entry)

    assert result.returncode == 1, (result.stdout, result.stderr)
    assert field in result.stderr
    assert result.stdout == ""
    assert not (store / "memory.db").exists() or db_rows(store / "memory.db", "SELECT COUNT(*) FROM entries") == [(0,)]


@pytest.mark.parametrize("raw", ['{"name": "x", ', "[1, 2]", "not json at all", ""],
                         ids=["truncated", "array", "text", "empty"])
def test_malformed_json_exits_1(tmp_path, isolated_home, raw):
    result = write(tmp_path / "global-store", isolated_home, raw=raw)

    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "invalid entry" in result.stderr
    assert result.stdout == ""


def test_entry_file_and_stdin(tmp_path, isolated_home):
    store = tmp_path / "global-store"
    entry_file = tmp_path / "learning.json"
    entry_file.write_text(json.dumps(ENTRY), encoding="utf-8")
    other = dict(ENTRY, name="From stdin", description="Entries can come from standard input too.")

    from_file = write(store, isolated_home, None, "--entry-file", entry_file, process=True)  # the README's line
    from_stdin = run_in_process("memory_apps.writer", ["--global-store", store, "--entry-file", "-"], isolated_home,
                                stdin=json.dumps(other))
    missing = write(store, isolated_home, None, "--entry-file", tmp_path / "missing.json")

    assert from_file.returncode == 0, from_file.stderr
    assert STORED.match(from_file.stdout.strip())["id"] == content_hash(ENTRY["description"])
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout.strip() == f"Stored: From stdin (id: {content_hash(other['description'])})"
    assert missing.returncode == 1 and "missing.json" in missing.stderr
    assert db_rows(store / "memory.db", "SELECT COUNT(*) FROM entries") == [(2,)]


def test_store_that_cannot_be_created_exits_2(tmp_path, isolated_home):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n", encoding="utf-8")

    result = write(blocker / "store", isolated_home, ENTRY)

    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "database error" in result.stderr
    assert result.stdout == ""


def test_corrupt_database_is_moved_aside_and_rebuilt(tmp_path, isolated_home):
    """Issue 5: the next writer call keeps the corrupt file (renamed) and rebuilds a working database."""
    store = tmp_path / "global-store"
    store.mkdir()
    garbage = b"\x00garbage, not SQLite\xff" * 512
    (store / "memory.db").write_bytes(garbage)

    result = write(store, isolated_home, ENTRY)

    assert result.returncode == 0, (result.stdout, result.stderr)
    moved = sorted(store.glob("memory.db.corrupt-*"))
    assert len(moved) == 1 and moved[0].read_bytes() == garbage
    assert "Traceback" not in result.stderr
    assert db_rows(store / "memory.db", "SELECT id FROM entries") == [(content_hash(ENTRY["description"]),)]


@pytest.mark.parametrize("argv", [[], ["--entry-json", "{}", "--entry-file", "x.json"], ["--action", "delete"]],
                         ids=["no-entry", "both-sources", "bad-action"])
@pytest.mark.parametrize("via_cli", [False, True], ids=["writer", "cli-write"])
def test_usage_errors_exit_1(tmp_path, isolated_home, argv, via_cli):
    """Usage errors are invalid input (1); exit 2 is reserved for database errors (cli epilog and writer doc)."""
    args = ["--global-store", tmp_path / "global-store", *argv]
    module_args = ["write", *args] if via_cli else args

    result = run_in_process("memory_apps.cli" if via_cli else "memory_apps.writer", module_args, isolated_home)

    assert "usage:" in result.stderr
    assert result.returncode == 1, result.stderr


def test_injector_picks_up_a_written_entry(tmp_path, isolated_home, backend):
    store = tmp_path / "global-store"
    project = tmp_path / "other-project"
    project.mkdir()
    stored = write(store, isolated_home, ENTRY)
    assert stored.returncode == 0, stored.stderr

    result = run_injector(project, store, isolated_home, limit=20)

    assert result.returncode == 0, result.stderr
    assert entry_headers(result.stdout) == ["### Pattern: Read before parsing"]
    assert ENTRY["description"] in result.stdout
    assert "*Memory: 1 entries from 1" in diagnostic_line(result.stdout)
    rows = backend.rows(store, "SELECT recall_count FROM entries")
    assert rows == [(1,)]
