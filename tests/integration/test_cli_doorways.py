"""What a new user meets first (issue 13): --version, help that says each thing once, --json on every command
that reports something, and tables drawn for a terminal but plain when piped. In-process: `cli.main([...])`.
The --json reports of import, delete, promote and export run on both stores (`store_on`, with `backend`'s URL in
this process's environment); help and table drawing are the same whatever the store."""

from __future__ import annotations

import importlib.metadata
import io
import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from memory_apps import cli, injector, writer
from memory_apps.commands.progress import ProgressBar
from memory_core.entries.hashing import content_hash
from tests._shared_prefix import sharing_a_prefix
from tests._backend import Backend
from tests._helpers import write_settings

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEMO_PROJECT = PROJECT_ROOT / "examples" / "demo-project"
DEMO_ENTRIES = 12
ANSI = re.compile(r"\x1b\[[0-9;]*m")
LONG_NAME = "Keep one name per entry on one line even when it runs on far beyond any column " * 2
ENTRY = {"name": LONG_NAME.strip(), "description": "Cut long names with an ellipsis in tables, never wrap rows.",
         "category": "patterns", "source_project": "shop"}


class Terminal(io.StringIO):
    """A stand-in for a terminal: rich sees `isatty()` and draws for it."""

    def isatty(self) -> bool:
        return True


def _demo_store(tmp_path: Path, run) -> tuple[Path, Path]:
    project = tmp_path / "demo-project"
    shutil.copytree(DEMO_PROJECT, project)
    write_settings(project, embedding_provider="none")
    status, _, err = run("import", "--project-root", project, "--global-store", tmp_path / "G")
    assert status == 0, err
    return project, tmp_path / "G"


@pytest.fixture
def store(tmp_path, isolated_home, run) -> tuple[Path, Path]:
    """(project, global store) holding the demo bank, keyword ranking only (no model to load)."""
    return _demo_store(tmp_path, run)


@pytest.fixture
def store_on(tmp_path, isolated_home, backend, monkeypatch, run) -> tuple[Path, Path, Backend]:
    """`store` on each backend (its database URL in this process's environment), and the backend."""
    for key, value in backend.env.items():
        monkeypatch.setenv(key, value)
    return (*_demo_store(tmp_path, run), backend)


def _stored(run, project: Path, store: Path) -> str:
    status, out, err = run("write", "--project-root", project, "--global-store", store, "--entry-json",
                           json.dumps(ENTRY))
    assert status == 0, err
    return content_hash(ENTRY["description"])


def test_version_is_the_installed_package_version(run):
    status, out, _ = run("--version")

    assert status == 0
    assert out == f"iflow-memory {importlib.metadata.version('iflow-memory')}\n"


def test_version_of_a_source_tree_that_is_not_installed(run, monkeypatch, tmp_path):
    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    pyproject = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))

    _, from_source, _ = run("--version")
    monkeypatch.setattr(cli, "SOURCE_PYPROJECT", str(tmp_path / "missing.toml"))
    _, nowhere, _ = run("--version")

    assert from_source == f"iflow-memory {pyproject['project']['version']} (source tree, not installed)\n"
    assert nowhere == "iflow-memory unknown (not installed)\n"


def test_top_level_help_lists_each_command_once(run):
    status, out, _ = run("--help")

    assert status == 0
    commands = ["inject", "write", "import", "embed", "search", "list", "show", "delete", "promote", "stats",
                "export", "doctor", "maintain", "serve", "hook", "install-claude"]
    listed = [m[1] for m in re.finditer(r"^ +([\w-]+)(?: {2,}|$)", out, re.M)]  # `  name  what it does`
    for command in commands:
        assert listed.count(command) == 1, (command, out)
    assert "141" in out and "exit status" in out


def test_hook_help_prints_only_the_help(run):
    status, out, _ = run("hook", "--help")
    bad_status, bad_out, bad_err = run("hook", "session-start", "--no-such-flag")

    assert status == 0 and out.startswith("usage: iflow-memory hook")
    assert "hookSpecificOutput" not in out
    assert bad_status == 0 and json.loads(bad_out)["hookSpecificOutput"]["additionalContext"] == ""
    assert "--no-such-flag" in bad_err


def test_module_help_names_a_command_one_can_run(capsys):
    with pytest.raises(SystemExit) as exited:
        writer.main(["--help"])
    writer_help = capsys.readouterr().out
    injector_status = injector.main(["--help"])
    injector_help = capsys.readouterr().out

    assert exited.value.code == 0 and writer_help.startswith("usage: python -m memory_apps.writer ")
    assert injector_status == 0 and injector_help.startswith("usage: python -m memory_apps.injector ")


def test_import_help_states_its_exit_status(run):
    status, out, _ = run("import", "--help")

    assert status == 0
    assert re.search(r"^exit status: 0 ok, 1 .*, 2 database error$", out, re.M), out
    assert "--json" in out


def test_import_json_counts_then_a_missing_project_exits_1(store_on, run, tmp_path):
    project, global_store, backend = store_on

    status, out, _ = run("import", "--project-root", project, "--global-store", global_store, "--json")
    missing = run("import", "--project-root", tmp_path / "typo", "--global-store", global_store, "--json")

    report = json.loads(out)
    assert status == 0
    assert (report["new"], report["updated"], report["unchanged"], report["skipped"]) == (0, 0, DEMO_ENTRIES, 0)
    assert report["database"] == backend.location(global_store) and report["problems"] == []
    assert missing[0] == 1 and missing[1] == "" and "typo" in missing[2]
    assert not (tmp_path / "typo").exists()


def test_delete_json_then_a_second_delete_exits_1(store_on, run):
    project, global_store, _ = store_on
    entry_id = _stored(run, project, global_store)
    flags = ("--project-root", project, "--global-store", global_store)

    status, out, _ = run("delete", entry_id, *flags, "--json")
    again = run("delete", entry_id, *flags, "--json")
    _, listed, _ = run("list", *flags, "--json")

    assert status == 0 and json.loads(out) == {"deleted": entry_id}
    assert again[0] == 1 and again[1] == "" and entry_id in again[2]
    assert entry_id not in {e["id"] for e in json.loads(listed)}


def test_promote_json_makes_the_entry_universal(store_on, run, tmp_path):
    import subprocess

    _, global_store, _ = store_on
    project = tmp_path / "cloned"  # a bank somebody else committed: its entries stay in its repository (ADR 23)
    (project / "docs" / "knowledge-bank").mkdir(parents=True)
    (project / "docs" / "knowledge-bank" / "patterns.md").write_text(
        f"# Patterns\n\n### {ENTRY['name']}\n{ENTRY['description']}\n", encoding="utf-8")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=s", "-c", "user.email=stranger@example.invalid",
                                                 "commit", "-q", "-m", "bank"]):
        subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)
    assert run("import", "--project-root", project, "--global-store", global_store)[0] == 0
    entry_id = content_hash(ENTRY["description"])
    flags = ("--project-root", project, "--global-store", global_store)
    _, before, _ = run("show", entry_id, *flags, "--json")

    status, out, _ = run("promote", entry_id, *flags, "--json")
    _, after, _ = run("show", entry_id, *flags, "--json")

    assert status == 0 and json.loads(out) == {"promoted": entry_id}
    assert json.loads(before)["scope"] is not None and json.loads(after)["scope"] is None


def test_export_json_names_the_files_it_wrote(store_on, run, tmp_path):
    project, global_store, _ = store_on
    output = tmp_path / "exported"

    status, out, _ = run("export", "--output", output, "--project-root", project, "--global-store", global_store,
                         "--json")

    report = json.loads(out)
    assert status == 0 and report["entries"] == DEMO_ENTRIES
    assert sorted(Path(f["path"]).name for f in report["files"]) == ["anti-patterns.md", "heuristics.md",
                                                                      "patterns.md"]
    assert sum(f["entries"] for f in report["files"]) == DEMO_ENTRIES
    for written in report["files"]:
        text = Path(written["path"]).read_text(encoding="utf-8")
        assert text.count("\n### ") == written["entries"], written


def test_piped_tables_are_plain_and_never_wrapped(store, run, monkeypatch):
    project, global_store = store
    entry_id = _stored(run, project, global_store)
    monkeypatch.setenv("COLUMNS", "40")  # a narrow terminal elsewhere must not shape piped output
    monkeypatch.setenv("FORCE_COLOR", "1")

    status, out, _ = run("list", "--project-root", project, "--global-store", global_store)

    lines = out.splitlines()
    assert status == 0 and not ANSI.search(out) and "\x1b" not in out
    assert lines[0].split() == ["id", "category", "obs", "recalls", "source", "project", "name"]
    rows = [line for line in lines[2:] if re.match(r"[0-9a-f]{16} ", line)]
    assert len(rows) == DEMO_ENTRIES + 1, out
    long_row = next(line for line in rows if line.startswith(entry_id))
    assert long_row.endswith("…") and LONG_NAME[:40] in long_row  # cut at the name column's 60, not wrapped
    assert all(line == line.rstrip() for line in lines)


def test_terminal_tables_are_styled_and_fit_the_width(store, run, monkeypatch):
    project, global_store = store
    _stored(run, project, global_store)
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    monkeypatch.setenv("COLUMNS", "70")
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)

    status = cli.main(["list", "--project-root", str(project), "--global-store", str(global_store)])
    drawn = terminal.getvalue()
    terminal.seek(0)
    terminal.truncate()
    json_status = cli.main(["list", "--json", "--project-root", str(project), "--global-store", str(global_store)])
    as_json = terminal.getvalue()

    assert status == 0 and ANSI.search(drawn), "a terminal gets a styled header"
    assert all(len(ANSI.sub("", line)) <= 70 for line in drawn.splitlines()), drawn
    assert json_status == 0 and "\x1b" not in as_json
    assert len(json.loads(as_json)) == DEMO_ENTRIES + 1


def test_progress_bar_is_drawn_on_a_terminal_and_silent_when_piped(monkeypatch):
    monkeypatch.setenv("TERM", "xterm-256color")
    terminal, piped, quiet = Terminal(), io.StringIO(), Terminal()

    for stream, enabled in ((terminal, True), (piped, True), (quiet, False)):
        monkeypatch.setattr("sys.stderr", stream)
        bar = ProgressBar("embedding", enabled=enabled)
        for done in (0, 3, 8):
            bar(done, 8)
        bar.close()

    drawn = ANSI.sub("", terminal.getvalue())
    assert "embedding" in drawn and "8/8" in drawn and "3/8" in drawn
    assert piped.getvalue() == "" and quiet.getvalue() == ""


def test_an_80_column_terminal_shows_every_id_whole(store, run, monkeypatch):
    project, global_store = store
    _stored(run, project, global_store)
    _, listed, _ = run("list", "--json", "--project-root", project, "--global-store", global_store)
    ids = [e["id"] for e in json.loads(listed)]
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("TERM", "xterm-256color")

    status = cli.main(["list", "--project-root", str(project), "--global-store", str(global_store)])
    drawn = [ANSI.sub("", line) for line in terminal.getvalue().splitlines()]

    assert status == 0
    assert all(len(line) <= 80 for line in drawn), drawn
    assert sorted(line.split()[0] for line in drawn if re.match(r"[0-9a-f]{16} ", line)) == sorted(ids), drawn


def test_show_promote_delete_accept_a_unique_id_prefix(store_on, run):
    project, global_store, _ = store_on
    entry_id = _stored(run, project, global_store)
    flags = ("--project-root", project, "--global-store", global_store, "--json")

    shown = run("show", entry_id[:6].upper(), *flags)
    promoted = run("promote", entry_id[:5], *flags)
    deleted = run("delete", entry_id[:4], *flags)

    assert shown[0] == 0 and json.loads(shown[1])["id"] == entry_id, shown
    assert promoted[0] == 0 and json.loads(promoted[1]) == {"promoted": entry_id}, promoted
    assert deleted[0] == 0 and json.loads(deleted[1]) == {"deleted": entry_id}, deleted


def test_an_ambiguous_id_prefix_names_the_candidates_and_changes_nothing(store, run):
    project, global_store = store
    first, second = sharing_a_prefix(4)
    ids = []
    for text in (first, second):
        entry = {**ENTRY, "name": f"Shared prefix {len(ids)}", "description": text}
        assert run("write", "--project-root", project, "--global-store", global_store, "--entry-json",
                   json.dumps(entry))[0] == 0
        ids.append(content_hash(text))
    flags = ("--project-root", project, "--global-store", global_store)

    status, out, err = run("delete", ids[0][:4], *flags)

    assert status == 1 and out == ""
    assert f"id prefix {ids[0][:4]} is ambiguous" in err and ids[0] in err and ids[1] in err, err
    assert "Shared prefix 0" in err and "Shared prefix 1" in err
    assert run("show", ids[0], *flags)[0] == 0 and run("show", ids[1], *flags)[0] == 0, "nothing was deleted"


@pytest.mark.parametrize("command", ["show", "delete", "promote"])
@pytest.mark.parametrize("given, says", [("not-an-id", "invalid id: must be 4 to 16 hex characters"),
                                         ("1c123aa2533f3d04ff", "invalid id: must be 4 to 16 hex characters"),
                                         ("1c1", "invalid id: a prefix needs at least 4 characters")])
def test_a_malformed_id_is_invalid_not_missing(store, run, command, given, says):
    project, global_store = store

    status, out, err = run(command, given, "--project-root", project, "--global-store", global_store)

    assert status == 1 and out == ""
    assert says in err and "no entry" not in err, err


def test_one_entry_is_counted_in_the_singular(tmp_path, isolated_home, run):
    store, project = tmp_path / "G", tmp_path / "app"
    project.mkdir()
    write_settings(project, embedding_provider="none")
    flags = ("--project-root", project, "--global-store", store)
    assert run("write", *flags, "--entry-json", json.dumps(ENTRY))[0] == 0

    _, listed, _ = run("list", *flags)
    _, exported, _ = run("export", "--output", tmp_path / "out", *flags)

    assert listed.rstrip().endswith("\n1 entry"), listed
    assert f"wrote 1 entry to {tmp_path / 'out' / 'patterns.md'}" in exported.splitlines(), exported


def test_export_onto_a_file_says_so_in_words(store, run, tmp_path):
    project, global_store = store
    (tmp_path / "taken").write_text("mine\n", encoding="utf-8")

    status, out, err = run("export", "--output", tmp_path / "taken", "--project-root", project, "--global-store",
                           global_store)

    assert status == 1 and out == ""
    assert f"{tmp_path / 'taken'} is a file, not a directory" in err and "Errno" not in err, err
    assert (tmp_path / "taken").read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("given", ["-5", "0", "many"])
def test_embed_max_must_be_a_positive_whole_number(store, run, given):
    project, global_store = store

    status, out, err = run("embed", "--max", given, "--project-root", project, "--global-store", global_store)

    assert status == 1 and out == ""
    assert "argument --max: must be" in err and "at least 1" in err, err


@pytest.mark.parametrize("typed, meant", [("serch", "search"), ("instal-claude", "install-claude"),
                                          ("lsit", "list")])
def test_a_mistyped_command_gets_a_suggestion(run, typed, meant):
    status, out, err = run(typed, "x")

    assert status == 1 and out == ""
    assert err.rstrip().endswith(f"did you mean '{meant}'?"), err


def test_an_unknown_command_far_from_any_gets_no_suggestion(run):
    status, _, err = run("xyzzy")

    assert status == 1 and "invalid choice: 'xyzzy'" in err and "did you mean" not in err
