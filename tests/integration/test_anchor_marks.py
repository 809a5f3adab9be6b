"""Memories checked against the code they cite (issue 24, done-when): four learnings written through the writer in
a git repository, then one cited file renamed, one deleted, one rewritten and one left alone. The session block
marks the three (the move with the new path) and leaves the fourth unmarked; the prompt hook marks too."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests._helpers import PYTHON, TIMEOUT_S, app_env, git, run_hook, run_module, upsert_args, write_settings

pytestmark = pytest.mark.slow

FILES = {
    "src/sniffer.py": "def sniff(sample):\n    return ','\n",
    "src/old_name.py": "def detect_dialect(sample):\n    return 'excel'\n",
    "src/gone.py": "def legacy_split(line):\n    return line.split(',')\n",
    "src/csv_reader.py": "import csv\n\n\ndef rows(stream):\n    return list(csv.reader(stream))\n",
}
LEARNINGS = [  # (name, the file it cites)
    ("Sniff The Delimiter Before Parsing", "src/sniffer.py"),
    ("Detect The Dialect From A Sample", "src/old_name.py"),
    ("Legacy Splitting Drops Quoted Commas", "src/gone.py"),
    ("Never Split CSV Rows By Hand", "src/csv_reader.py"),
]


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """(home, project, store): the repository after the rename, the delete and the rewrite."""
    root = tmp_path_factory.mktemp("anchors")
    home, project, store = root / "home", root / "project", root / "store"
    home.mkdir()
    for path, text in FILES.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    write_settings(project, embedding_provider="none")
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-qm", "the parser")
    for name, cited in LEARNINGS:
        entry = {"name": name, "description": f"{name}: learned while reading {cited}, which holds the reason.",
                 "category": "patterns", "references": [cited]}
        wrote = run_module("memory_apps.writer", upsert_args(store, project, entry), home, cwd=project)
        assert wrote.returncode == 0, wrote.stderr
    git(project, "mv", "src/old_name.py", "src/sniffing.py")
    git(project, "commit", "-qm", "rename")
    git(project, "rm", "-q", "src/gone.py")
    git(project, "commit", "-qm", "delete")
    (project / "src/csv_reader.py").write_text("import csv\n\n\ndef rows(stream, dialect):\n"
                                               "    return list(csv.reader(stream, dialect))\n")
    return home, project, store


def entry_section(block: str, name: str) -> str:
    """The lines of one entry in a block, from its heading to the next heading."""
    start = block.index(name)
    end = block.find("\n### ", start)
    return block[start:end if end != -1 else len(block)]


def test_the_session_block_marks_the_three_and_leaves_the_fourth(shop):
    home, project, store = shop
    done = run_hook(project, store, home)
    assert done.returncode == 0, done.stderr
    block = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    marks = {name: entry_section(block, name) for name, _ in LEARNINGS}
    assert "- Code check: cites src/old_name.py, now src/sniffing.py" in marks["Detect The Dialect From A Sample"]
    assert "- Code check: cites src/gone.py, which no longer exists" in marks["Legacy Splitting Drops Quoted Commas"]
    assert "- Code check: src/csv_reader.py changed since this was learned" in marks["Never Split CSV Rows By Hand"]
    assert "Code check" not in marks["Sniff The Delimiter Before Parsing"]
    assert block.count("- Code check:") == 3


def test_the_prompt_hook_marks_a_learning_whose_file_changed(shop):
    home, project, store = shop
    payload = {"session_id": "prompt-session", "transcript_path": "/dev/null", "cwd": str(project),
               "hook_event_name": "UserPromptSubmit", "prompt": "why does src/csv_reader.py lose quoted fields?"}
    done = subprocess.run([PYTHON, "-m", "memory_apps.cli", "hook", "user-prompt-submit", "--global-store",
                           str(store)], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=TIMEOUT_S, env={**app_env(home), "CLAUDE_PROJECT_DIR": str(project)},
                          cwd=str(project))
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Never Split CSV Rows By Hand" in context
    assert "- Code check: src/csv_reader.py changed since this was learned" in context
