"""Every `iflow-memory` command: output formats, filters, exit codes, help texts.

The commands run in this process (`run_in_process`: the environment, working directory and end of a process
they would have as a child); `inject` runs as the process it is, and one test runs the installed console
script itself. A representative command of each kind runs on both stores (`fresh_on` and `populated`: the SQLite
file, a PostgreSQL database): inject, embed and doctor, search, list, show, delete, stats, export then import.
Import and write are on both in test_import_cli, test_cli_doorways and test_writer_cli; the markdown format of an
export, usage errors and the global store's own directory are SQLite's only; help texts are in test_cli_help."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from memory_core.entries.hashing import content_hash
from tests._backend import URL_ENV, Backend
from tests._helpers import entry_headers, run_in_process, run_module, write_settings

pytestmark = pytest.mark.slow

DEMO_PROJECT = Path(__file__).resolve().parents[2] / "examples" / "demo-project"
DEMO_ENTRIES = 12
PINNED = {
    "name": "Pin dependency versions",
    "description": "Pin dependency versions in a lockfile; floating version ranges broke the CI build twice.",
    "reasoning": "Two red builds in one week came from a minor release of a transitive dependency.",
    "category": "anti-patterns",
    "keywords": ["dependency", "lockfile", "versions", "ci-build"],
    "references": ["requirements.lock", ".github/workflows/ci.yml"],
    "confidence": "high",
    "source_project": "other-app",
}
CAPTURED = {
    "name": "Profile before optimising",
    "description": "Run a sampling profiler on the slow endpoint before optimising; guessing the hotspot "
                   "wasted two days.",
    "reasoning": "The real cost was JSON serialisation, not the SQL query we rewrote.",
    "category": "heuristics",
    "references": ["src/api/orders.py"],
    "source": "session-capture",
    "source_project": "shop",
}
# No source project: a universal learning (the writer's markdown audit trail keeps it in the global store too).
UNIVERSAL = {
    "name": "Freeze clocks in tests",
    "description": "Inject a clock and freeze it in tests that depend on the current date or time zone.",
    "reasoning": "Tests failed every year on the 29th of February and after DST switches.",
    "category": "patterns",
}
STORED = re.compile(r"^Stored: (?P<name>.+) \(id: (?P<id>[0-9a-f]{16})\)$")


class Cli:
    """Runs `iflow-memory` (in-process) with a temp HOME, in a directory without any knowledge bank, on the
    entries of `backend`."""

    def __init__(self, root: Path, home: Path, store: Path, backend: Backend) -> None:
        self.root, self.home, self.store, self.backend = root, home, store, backend
        self.workdir = root / "work"
        self.workdir.mkdir(exist_ok=True)

    def __call__(self, *args, store: bool = True) -> subprocess.CompletedProcess:
        extra = ["--global-store", str(self.store)] if store else []
        return run_in_process("memory_apps.cli", [*map(str, args), *extra], self.home, cwd=self.workdir,
                              env=self.backend.env)

    def rows(self, sql: str, params=()) -> list[tuple]:
        """Rows of a query on the store's entries (SQL as for SQLite)."""
        return self.backend.rows(self.store, sql, params)

    def json(self, *args) -> object:
        result = self(*args, "--json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def write(self, entry: dict) -> str:
        result = self("write", "--project-root", self.workdir, "--entry-json", json.dumps(entry))
        assert result.returncode == 0, result.stderr
        match = STORED.match(result.stdout.strip())
        assert match, result.stdout
        return match["id"]


def populate(cli: Cli, demo: Path) -> None:
    imported = cli("import", "--project-root", demo)
    assert imported.returncode == 0, imported.stderr
    assert f"{DEMO_ENTRIES} new" in imported.stdout, imported.stdout
    cli.write(PINNED)
    cli.write(PINNED)  # reinforced: observation count 2
    cli.write(CAPTURED)


@pytest.fixture(scope="module")
def populated(tmp_path_factory, module_backend) -> Cli:
    """A global store holding the demo bank (import), a reinforced retro entry and a session capture."""
    root = tmp_path_factory.mktemp("cli")
    home = root / "home"
    home.mkdir()
    demo = root / "demo-project"
    shutil.copytree(DEMO_PROJECT, demo)
    cli = Cli(root, home, root / "global-store", module_backend)
    populate(cli, demo)
    return cli


def _fresh(tmp_path: Path, home: Path, backend: Backend) -> Cli:
    demo = tmp_path / "demo-project"
    shutil.copytree(DEMO_PROJECT, demo)
    return Cli(tmp_path, home, tmp_path / "global-store", backend)


@pytest.fixture
def fresh(tmp_path, isolated_home) -> Cli:
    """An empty global store beside a copy of the demo project (SQLite)."""
    return _fresh(tmp_path, isolated_home, Backend("sqlite"))


@pytest.fixture
def fresh_on(tmp_path, isolated_home, backend) -> Cli:
    """`fresh` on each store."""
    return _fresh(tmp_path, isolated_home, backend)


def test_import_is_idempotent(fresh):
    demo = fresh.root / "demo-project"
    first = fresh("import", "--project-root", demo)
    second = fresh("import", "--project-root", demo)

    assert first.returncode == 0 and second.returncode == 0, (first.stderr, second.stderr)
    assert f"{DEMO_ENTRIES} new, 0 updated" in first.stdout, first.stdout
    assert f"0 new, 0 updated, {DEMO_ENTRIES} unchanged" in second.stdout, second.stdout
    assert fresh.backend.location(fresh.store) in first.stdout and fresh.backend.holds_store(fresh.store)
    rows = fresh.rows("SELECT COUNT(*), COUNT(DISTINCT id), MIN(source) FROM entries")
    assert rows == [(DEMO_ENTRIES, DEMO_ENTRIES, "import")]


def test_inject_prints_the_block(fresh_on):
    result = run_module("memory_apps.cli", ["inject", "--project-root", fresh_on.root / "demo-project", "--limit", "5",
                                            "--global-store", fresh_on.store], fresh_on.home, cwd=fresh_on.workdir)

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("## Engineering Memory (from knowledge bank)\n\n")
    assert len(entry_headers(result.stdout)) == 5
    assert (fresh_on.store / ".last-injection.json").is_file()
    assert fresh_on.rows("SELECT SUM(recall_count) FROM entries") == [(5,)]


def test_write_stores_and_reinforces(fresh):
    first = fresh("write", "--project-root", fresh.workdir, "--entry-json", json.dumps(PINNED))
    second = fresh("write", "--project-root", fresh.workdir, "--entry-json", json.dumps(PINNED))
    bad = fresh("write", "--project-root", fresh.workdir, "--entry-json", json.dumps(dict(PINNED, category="tips")))

    assert first.returncode == 0 and second.returncode == 0, (first.stderr, second.stderr)
    assert STORED.match(first.stdout.strip())["id"] == content_hash(PINNED["description"])
    assert bad.returncode == 1 and "category" in bad.stderr and "Traceback" not in bad.stderr
    rows = fresh.rows('SELECT observation_count, confidence, source_project, "references" FROM entries')
    assert rows == [(2, "high", "other-app", json.dumps(PINNED["references"]))]


def test_embed_then_doctor(fresh_on):
    no_vectors = fresh_on.root / "no-vectors"
    no_vectors.mkdir()
    write_settings(no_vectors, embedding_provider="none")
    for number, topic in enumerate(["caching HTTP responses", "structured logging", "feature flags"], start=1):
        entry = {"name": f"Lesson {number}", "description": f"A lesson about {topic} learned the hard way.",
                 "category": "patterns"}
        stored = fresh_on("write", "--project-root", no_vectors, "--entry-json", json.dumps(entry))
        assert stored.returncode == 0, stored.stderr
    assert fresh_on.rows("SELECT COUNT(*) FROM entries WHERE embedding IS NULL") == [(3,)]

    before = fresh_on("doctor", "--project-root", fresh_on.workdir)
    embedded = fresh_on("embed", "--project-root", fresh_on.workdir)
    after = fresh_on("doctor", "--project-root", fresh_on.workdir)
    again = fresh_on("embed", "--project-root", fresh_on.workdir)

    assert before.returncode == 1, before.stdout
    assert "3 entries without a vector" in before.stdout and "iflow-memory embed" in before.stdout
    assert embedded.returncode == 0, embedded.stderr
    assert re.search(r"Embedded 3 entries into \S+.*; 0 remaining", embedded.stdout), embedded.stdout
    assert fresh_on.rows("SELECT COUNT(*) FROM entries WHERE embedding IS NULL") == [(0,)]
    assert after.returncode == 0, after.stdout
    assert "FIX" not in after.stdout and "0 entries without a vector" in after.stdout
    assert again.returncode == 0 and "Embedded 0 entries" in again.stdout, again.stdout


def test_doctor_is_ok_on_an_embedded_store(populated):
    result = populated("doctor", "--project-root", populated.workdir)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "FIX" not in result.stdout
    assert f"({DEMO_ENTRIES + 2} entries)" in result.stdout


def test_search_table_json_and_category(populated):
    query = ["sampling", "profiler", "hotspot", "of", "a", "slow", "endpoint"]
    captured_id = content_hash(CAPTURED["description"])

    table = populated("search", *query)
    as_json = populated.json("search", *query, "--limit", "3")
    only_anti = populated.json("search", *query, "--category", "anti-patterns", "--all")  # none matches well
    bad = populated("search", *query, "--category", "tips")

    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["relevance", "score", "id", "category", "name"]
    assert captured_id in lines[2], table.stdout
    assert isinstance(as_json, list) and 1 <= len(as_json) <= 3
    assert as_json[0]["id"] == captured_id
    assert {"id", "name", "category", "description", "score", "relevance"} <= set(as_json[0])
    assert only_anti and {e["category"] for e in only_anti} == {"anti-patterns"}
    assert bad.returncode != 0 and "category" in bad.stderr


def test_list_filters_and_json(populated):
    everything = populated.json("list")
    patterns = populated.json("list", "--category", "patterns")
    other = populated.json("list", "--project", "other-app")
    captures = populated.json("list", "--source", "session-capture")
    imported = populated.json("list", "--source", "import")
    table = populated("list")

    assert len(everything) == DEMO_ENTRIES + 2
    assert patterns and all(e["category"] == "patterns" for e in patterns)
    assert len(patterns) == sum(1 for e in everything if e["category"] == "patterns")
    assert [e["id"] for e in other] == [content_hash(PINNED["description"])]
    assert [e["id"] for e in captures] == [content_hash(CAPTURED["description"])]
    assert len(imported) == DEMO_ENTRIES
    assert table.returncode == 0
    assert table.stdout.splitlines()[0].split() == ["id", "category", "obs", "recalls", "source", "project", "name"]
    assert table.stdout.rstrip().endswith(f"{DEMO_ENTRIES + 2} entries")


def test_show_table_json_and_unknown_id(populated):
    entry_id = content_hash(PINNED["description"])

    table = populated("show", entry_id)
    data = populated.json("show", entry_id)
    unknown = populated("show", "0123456789abcdef")

    assert table.returncode == 0, table.stderr
    assert re.search(r"^name\s+Pin dependency versions$", table.stdout, re.M), table.stdout
    assert re.search(r"^observation_count\s+2$", table.stdout, re.M), table.stdout
    assert data["id"] == entry_id
    assert data["name"] == PINNED["name"] and data["observation_count"] == 2 and data["confidence"] == "high"
    assert data["references"] == PINNED["references"] and data["keywords"] == PINNED["keywords"]
    assert unknown.returncode == 1 and "0123456789abcdef" in unknown.stderr and not unknown.stdout.strip()


@pytest.mark.parametrize("other_entries", [0, 1], ids=["last-entry", "one-of-two"])
def test_delete_then_show_fails(fresh_on, other_entries):
    if other_entries:
        fresh_on.write(CAPTURED)
    entry_id = fresh_on.write(UNIVERSAL)

    deleted = fresh_on("delete", entry_id)
    shown = fresh_on("show", entry_id)
    again = fresh_on("delete", entry_id)

    assert deleted.returncode == 0 and entry_id in deleted.stdout, deleted.stderr
    assert shown.returncode == 1, f"the deleted entry came back: {shown.stderr}"
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert entry_id not in {e["id"] for e in fresh_on.json("list")}
    assert fresh_on.rows("SELECT COUNT(*) FROM entries") == [(other_entries,)]


def test_deleted_entry_stays_deleted_for_another_project(fresh_on):
    """A delete is for good: running a command from another project must not bring the entry back."""
    fresh_on.write(CAPTURED)
    entry_id = fresh_on.write(UNIVERSAL)
    assert fresh_on("delete", entry_id).returncode == 0
    other_project = fresh_on.root / "another-project"
    other_project.mkdir()

    shown = fresh_on("show", entry_id, "--project-root", other_project)

    assert shown.returncode == 1, f"the deleted entry came back: {shown.stdout}{shown.stderr}"
    assert fresh_on.rows("SELECT COUNT(*) FROM entries WHERE id = ?", (entry_id,)) == [(0,)]


def test_stats(populated):
    stats = populated.json("stats")
    table = populated("stats")

    assert stats["entries"] == DEMO_ENTRIES + 2
    assert sum(stats["by_category"].values()) == stats["entries"]
    assert set(stats["by_category"]) <= {"anti-patterns", "heuristics", "patterns"}
    assert stats["by_source"]["import"] == DEMO_ENTRIES and stats["by_source"]["session-capture"] == 1
    assert stats["with_vector"] == stats["entries"]
    assert table.returncode == 0 and f"entries: {DEMO_ENTRIES + 2}" in table.stdout


ROUND_TRIP_COLUMNS = ('id, name, category, observation_count, confidence, keywords, "references", description, '
                      'source, source_project, scope')


def _round_trip(cli: Cli, tmp_path: Path, spare_store) -> tuple[list[tuple], list[tuple],
                                                                subprocess.CompletedProcess]:
    export_dir = tmp_path / "exported"
    exported = cli("export", "--output", export_dir)
    assert exported.returncode == 0, exported.stderr
    restored = tmp_path / "restored"
    shutil.copytree(export_dir, restored / "docs" / "knowledge-bank")
    fresh_store = tmp_path / "fresh-store"
    clean = tmp_path / "clean-cwd"  # no knowledge bank (and no audit trail) but the exported one is in reach
    clean.mkdir()
    empty = spare_store(cli.backend)  # on PostgreSQL the fresh store is another database
    imported = run_in_process("memory_apps.cli", ["import", "--project-root", restored, "--global-store",
                                                  fresh_store], cli.home, cwd=clean, env={**cli.backend.env, **empty})
    assert imported.returncode == 0, imported.stderr
    before = sorted(cli.rows(f"SELECT {ROUND_TRIP_COLUMNS} FROM entries"))
    after = sorted(Backend(cli.backend.name, empty.get(URL_ENV)).rows(fresh_store, f"SELECT {ROUND_TRIP_COLUMNS} "
                                                                                   "FROM entries"))
    return before, after, exported


def test_export_then_import_round_trips(populated, tmp_path, spare_store):
    before, after, exported = _round_trip(populated, tmp_path, spare_store)

    for category in ("anti-patterns", "heuristics", "patterns"):
        assert (tmp_path / "exported" / f"{category}.md").is_file()
    assert exported.stdout.count("wrote ") == 4 and "events of history" in exported.stdout  # entry-history.md
    assert (tmp_path / "exported" / "entry-history.md").is_file()
    assert len(after) == len(before) == DEMO_ENTRIES + 2
    assert after == before


def test_export_round_trips_a_description_with_a_bullet_list(fresh, tmp_path, spare_store):
    """A learning whose description is a short list (as a model often writes one) must survive export/import."""
    entry = {"name": "Release checklist",
             "description": "Before tagging a release:\n- run the full test suite\n- update the changelog",
             "reasoning": "A release went out without its changelog.", "category": "patterns"}
    fresh.write(entry)

    before, after, _ = _round_trip(fresh, tmp_path, spare_store)

    assert [row[0] for row in after] == [content_hash(entry["description"])], after
    assert after == before


def test_list_on_a_missing_store_exits_1_and_creates_nothing(tmp_path, isolated_home):
    """Only writes create a store (ADR 14); every read-only command is covered in test_symlinks_and_missing_paths."""
    store = tmp_path / "not" / "yet" / "there"
    workdir = tmp_path / "work"
    workdir.mkdir()

    result = run_in_process("memory_apps.cli", ["list", "--global-store", store], isolated_home, cwd=workdir)

    assert result.returncode == 1
    assert f"no memory store at {store}" in result.stderr, result.stderr
    assert not (tmp_path / "not").exists()


@pytest.mark.parametrize("command", ["write", "import"])
def test_store_under_a_regular_file_is_a_database_error(tmp_path, isolated_home, command):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n", encoding="utf-8")
    workdir = tmp_path / "work"
    workdir.mkdir()
    args = [command, "--global-store", blocker / "store"]
    if command == "write":
        args += ["--project-root", workdir, "--entry-json", json.dumps(PINNED)]

    result = run_in_process("memory_apps.cli", args, isolated_home, cwd=workdir)

    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "database error" in result.stderr
    assert "Traceback" not in result.stderr
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"


def test_export_round_trips_prefixed_names_and_references_with_commas(fresh, tmp_path, spare_store):
    """export claims `import` reads its markdown back to the same entries: names and references included."""
    fresh.write({"name": "Anti-Pattern: retries hide design problems",
                 "description": "Three failing retries in a row usually mean the design is wrong, not the network.",
                 "category": "heuristics"})
    fresh.write({"name": "Quote exported fields",
                 "description": "Quote exported spreadsheet fields that contain delimiters.",
                 "category": "patterns", "references": ["docs/exports, and imports.md", "src/export.py"]})

    before, after, _ = _round_trip(fresh, tmp_path, spare_store)

    assert after == before
