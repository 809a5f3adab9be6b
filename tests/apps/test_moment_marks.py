"""The file hook's check of citations in a long-running host (the warm process's MomentHost): each call is
judged against the tree of the project it names, never the host's own, and a learning anchored in another
project is not judged by this one's files (issue 24)."""

from __future__ import annotations

import json
import shutil

from memory_apps.service import MemoryService
from memory_apps.session.moment import FILE_HOOK, HookCall, MomentHost
from memory_core.session.deadline import Deadline, MonotonicTicker
from tests._helpers import git, write_settings

CITED = "src/csv_reader.py"


def project(path, text: str):
    (path / "src").mkdir(parents=True)
    (path / CITED).write_text(text)
    write_settings(path, embedding_provider="none")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "commit", "-qm", f"start {path.name}")
    return path


def file_hook(host: MomentHost, root, store, session: str) -> str:
    event = {"session_id": session, "cwd": str(root), "tool_name": "Read",
             "tool_input": {"file_path": str(root / CITED)}}
    answer = host.answer(HookCall(FILE_HOOK, event, str(root), str(store)), Deadline.after(MonotonicTicker(), 30))
    return json.loads(answer.output)["hookSpecificOutput"]["additionalContext"] if answer.output else ""


def test_each_call_is_checked_in_its_own_project(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    a = project(tmp_path / "a", "def rows():\n    return 1\n")
    b = project(tmp_path / "b", "something else entirely\n")
    store = tmp_path / "store"
    with MemoryService(str(store), str(a), create=True) as service:
        service.remember("Read rows with the csv module", "Quoted commas break a hand-written split.",
                         category="anti-patterns", references=[CITED])
    (a / CITED).write_text("def rows(dialect):\n    return 2\n")
    host = MomentHost(keep_models=True)
    in_a = file_hook(host, a, store, "s-a")
    assert "- Code check: src/csv_reader.py changed since this was learned" in in_a
    in_b = file_hook(host, b, store, "s-b")  # b's own csv_reader.py differs too, but the anchor is a's
    assert "Read rows with the csv module" in in_b and "Code check" not in in_b
    shutil.rmtree(a / "src")
    in_a_again = file_hook(host, a, store, "s-a2")
    assert "- Code check: cites src/csv_reader.py, which no longer exists" in in_a_again
