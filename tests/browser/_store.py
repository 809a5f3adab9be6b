"""The store the browser tests look at: the real knowledge bank imported (both snapshots, as two projects' banks,
read in place through links, never copied: the learnings edited between them are near-duplicates), a small git
project with learnings written for it (one superseded; three whose cited file was since rewritten, renamed or
deleted: stale), and the injections of a session started in that project."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from tests._helpers import git, run_app, run_in_process
from tests.conftest import FIXTURES

PROJECT = "csv-app"
BANK_PROJECT = "iflow"
BANKS = {BANK_PROJECT: FIXTURES / "knowledge-bank" / "head", "iflow-v024": FIXTURES / "knowledge-bank" / "v024"}
"""The directories whose docs/knowledge-bank link to the real bank's snapshots (their names are the entries'
source projects)."""
SESSION_ID = "browser-session-1"
FILES = {
    "src/csv_reader.py": "import csv\n\n\ndef rows(path):\n    return list(csv.reader(open(path)))\n",
    "src/sniff.py": "def dialect(sample):\n    return 'excel'\n",
    "src/legacy.py": "def legacy_split(line):\n    return line.split(',')\n",
    "src/export.py": "def export(rows, out):\n    out.write('\\n'.join(rows))\n",
}
WRITTEN = {  # key: (name, description, the file it cites); what happens to that file is in `build`
    "edit": ("Write exports through one function",
             "Write every export through export() so line endings stay the same.", "src/export.py"),
    "changed": ("Let the csv module split rows",
                "Never split CSV rows by hand; the csv module handles quoted commas.", "src/csv_reader.py"),
    "moved": ("Sniff the dialect first", "Sniff the CSV dialect before reading a file.", "src/sniff.py"),
    "missing": ("Keep the legacy splitter for old exports",
                "Old exports still need legacy_split; keep it until they are gone.", "src/legacy.py"),
}
SUPERSEDED = ("Write exports with print()", "Print each row to the export file; it is the simplest way.")
"""A learning the `edit` one replaced (`write --supersedes`): retired, on the review's superseded queue."""
STALE = ("changed", "moved", "missing")
"""The learnings whose cited file changed after they were written: rewritten, renamed, deleted."""
PROMPT = "how should I read the CSV rows of an export?"


@dataclass(frozen=True)
class ViewerStore:
    """A temp HOME, the git project (the viewer's --project-root), the global store, the written learnings' ids
    (by WRITTEN's keys), and what the session's hooks gave the agent (the additionalContext by hook)."""

    home: Path
    project: Path
    store: Path
    ids: dict
    injected: dict

    def copy(self, target: Path) -> "ViewerStore":
        """The same store and project under `target`, for a test that changes them (no process holds them)."""
        target.mkdir(parents=True, exist_ok=True)
        copied = replace(self, home=target / "home", project=target / PROJECT, store=target / "store")
        for source, destination in ((self.home, copied.home), (self.project, copied.project),
                                    (self.store, copied.store)):
            shutil.copytree(source, destination, symlinks=True)
        return copied

    def cli(self, *args: object):
        """The CLI run in this process on this store and project (`show`, `review`: what the database says)."""
        return run_in_process("memory_apps.cli", [*map(str, args), "--global-store", self.store,
                                                  "--project-root", self.project], self.home, cwd=self.project)

    def json(self, *args: object):
        """A CLI command's --json answer (it must succeed)."""
        result = self.cli(*args, "--json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def shown(self, entry_id: str) -> dict:
        """`show ID --json`: the entry as the database holds it now."""
        return self.json("show", entry_id)

    def global_markdown(self, category: str = "patterns") -> str:
        """The global store's markdown of one category (the audit trail an edit rewrites)."""
        return (self.store / f"{category}.md").read_text(encoding="utf-8")


def build(root: Path) -> ViewerStore:
    """Build the store under `root` (one process after another; nothing left running)."""
    home, project, store = root / "home", root / PROJECT, root / "store"
    home.mkdir(parents=True)
    for name, bank in BANKS.items():
        _import_bank(root / name, bank, store, home)
    _git_project(project)
    _embed(project, store, home)  # before the writes, which would each embed what is pending
    old = _write(project, store, home, *SUPERSEDED, "src/export.py")
    ids = {key: _write(project, store, home, name, text, cited, *(["--supersedes", old] if key == "edit" else []))
           for key, (name, text, cited) in WRITTEN.items()}
    ids["superseded"] = old
    (project / "src/csv_reader.py").write_text("def rows(path):\n    return open(path).read().split(',')\n")
    git(project, "mv", "src/sniff.py", "src/sniffing.py")
    git(project, "rm", "-q", "src/legacy.py")
    git(project, "commit", "-qam", "rewrite the reader, rename the sniffer, drop the legacy splitter")
    injected = _start_session(project, store, home)
    return ViewerStore(home, project, store, ids, injected)


def _import_bank(banks: Path, bank: Path, store: Path, home: Path) -> None:
    """`import` of a project whose bank is a link to the fixture: read in place, and the viewer's project (another
    directory) is never the one it came from, so nothing is ever written beside the fixture."""
    if not bank.is_dir():
        reason = f"the real knowledge bank is not at {bank} (the tests read ../shared beside the checkout)"
        if os.environ.get("IFLOW_MEMORY_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)  # CI: a browser test skipped for any reason is a failure
        pytest.skip(reason)
    (banks / "docs").mkdir(parents=True)
    (banks / "docs" / "knowledge-bank").symlink_to(bank, target_is_directory=True)
    result = run_in_process("memory_apps.cli", ["import", "--project-root", banks, "--global-store", store], home,
                            cwd=banks)
    assert result.returncode == 0, result.stderr
    assert "new" in result.stdout and " 0 new" not in result.stdout, result.stdout


def _git_project(project: Path) -> None:
    for path, text in FILES.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text, encoding="utf-8")
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-qm", "the reader")


def _write(project: Path, store: Path, home: Path, name: str, description: str, cited: str, *extra: str) -> str:
    """A learning written as an agent's `write` does (anchored to the commit of the file it cites); its id."""
    entry = {"name": name, "description": description, "category": "patterns", "references": [cited]}
    result = run_in_process("memory_apps.cli", ["write", "--no-references-from-git", "--json", "--entry-json",
                                                json.dumps(entry), "--global-store", store, "--project-root", project,
                                                *extra], home, cwd=project)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["id"]


def _embed(project: Path, store: Path, home: Path) -> None:
    """Every entry embedded by the bundled local model, so searches and the Sessions page show meaning too."""
    result = run_in_process("memory_apps.cli", ["embed", "--quiet", "--global-store", store, "--project-root",
                                                project], home, cwd=project)
    assert result.returncode == 0, result.stderr


def _start_session(project: Path, store: Path, home: Path) -> dict:
    """A session started in the project, then one prompt: the real hooks, as Claude Code runs them (their journal
    is what the Sessions page shows); what each gave the agent."""
    event = {"session_id": SESSION_ID, "transcript_path": "/dev/null", "cwd": str(project)}
    injected = {}
    for hook, extra in (("session-start", {"hook_event_name": "SessionStart", "source": "startup"}),
                        ("user-prompt-submit", {"hook_event_name": "UserPromptSubmit", "prompt": PROMPT})):
        done = run_app("memory_apps.cli", ["hook", hook, "--global-store", store], home,
                       stdin=json.dumps({**event, **extra}))
        assert done.returncode == 0, done.stderr
        answer = json.loads(done.stdout) if done.stdout.strip() else {}
        injected[hook] = answer.get("hookSpecificOutput", {}).get("additionalContext", "")
    assert injected["session-start"], "the session start injected the memory block"
    return injected
