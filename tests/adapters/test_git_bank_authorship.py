"""GitBankAuthorship (ADR 23): whose commits wrote each file of a project's knowledge bank, in real repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from memory_adapters.project.git_bank_authorship import GitBankAuthorship
from memory_core.ports.bank_authorship import LOCAL, OTHERS, OWN, UNKNOWN, BankAuthorship

ALL = ["anti-patterns", "heuristics", "patterns"]


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A HOME whose git identity is the user's, for git and for the adapter."""
    path = tmp_path / "home"
    path.mkdir()
    (path / ".gitconfig").write_text("[user]\n\tname = Me\n\temail = Me@Example.invalid\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return path


def _write(root: Path, name: str, text: str = "### Pattern: x\nSomething.\n") -> None:
    bank = root / "docs" / "knowledge-bank"
    bank.mkdir(parents=True, exist_ok=True)
    (bank / name).write_text(text, encoding="utf-8")


def _git(root: Path, *args: str, author: str = "") -> None:
    who = ["-c", f"user.email={author}", "-c", "user.name=Someone"] if author else []
    subprocess.run(["git", "-C", str(root), *who, *args], check=True, capture_output=True)


def test_it_is_a_bank_authorship():
    assert isinstance(GitBankAuthorship(), BankAuthorship)


def test_each_file_by_who_committed_it(tmp_path, home):
    root = tmp_path / "repo"
    _write(root, "patterns.md")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "mine")  # the user's identity (case does not matter)
    _write(root, "heuristics.md")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "theirs", author="stranger@example.invalid")
    _write(root, "anti-patterns.md")  # never committed
    _write(root, "patterns.md", "### Pattern: y\nChanged by the user, not committed yet.\n")

    found = GitBankAuthorship().authors(str(root), ALL, 10.0)

    assert found.verdicts == {"patterns": OWN, "heuristics": OTHERS, "anti-patterns": LOCAL}
    assert found.strangers == ("stranger@example.invalid",)


def test_one_foreign_commit_makes_a_file_somebody_elses(tmp_path, home):
    root = tmp_path / "repo"
    _write(root, "patterns.md")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "theirs", author="stranger@example.invalid")
    _write(root, "patterns.md", "### Pattern: y\nThe user's edit on top.\n")
    _git(root, "commit", "-qam", "mine")

    assert GitBankAuthorship().authors(str(root), ALL, 10.0).verdicts == {"patterns": OTHERS}


def test_outside_a_repository_every_file_is_local(tmp_path, home):
    _write(tmp_path / "notes", "heuristics.md")
    assert GitBankAuthorship().authors(str(tmp_path / "notes"), ALL, 10.0).verdicts == {"heuristics": LOCAL}


def test_without_git_nothing_is_known(tmp_path, home, monkeypatch):
    root = tmp_path / "repo"
    _write(root, "patterns.md")
    _git(root, "init", "-q")
    monkeypatch.setenv("PATH", str(tmp_path / "no-binaries"))  # git cannot be found: not the user's word

    assert GitBankAuthorship().authors(str(root), ALL, 10.0).verdicts == {"patterns": UNKNOWN}


def test_a_bank_without_files_asks_git_nothing(tmp_path, home, monkeypatch):
    monkeypatch.setenv("PATH", os.devnull)
    assert GitBankAuthorship().authors(str(tmp_path), ALL, 10.0).verdicts == {}


def test_a_repository_without_commits_yet_is_local(tmp_path, home):
    root = tmp_path / "repo"
    _write(root, "patterns.md")
    _git(root, "init", "-q")  # `git log` fails here ("does not have any commits yet"): no history, not a failure

    assert GitBankAuthorship().authors(str(root), ALL, 10.0).verdicts == {"patterns": LOCAL}


def test_both_git_calls_share_one_budget_and_a_late_email_is_unknown(tmp_path, home, monkeypatch):
    """A log that used the whole budget leaves the email lookup no time: the user's own file is then unknown
    (judged again later), never somebody else's."""
    import memory_adapters.project.git_bank_authorship as adapter

    root = tmp_path / "repo"
    _write(root, "patterns.md")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "mine")
    clock = [100.0]
    given: list[float] = []
    real_git = adapter._git

    def slow_git(directory, timeout_s, *args):
        given.append(timeout_s)
        result = real_git(directory, 10.0, *args)
        clock[0] += 0.8  # this call took 0.8 s of the 1 s budget
        return result if timeout_s >= 0.8 else None

    monkeypatch.setattr(adapter, "_git", slow_git)
    monkeypatch.setattr(adapter, "monotonic", lambda: clock[0], raising=False)

    assert GitBankAuthorship().authors(str(root), ALL, 1.0).verdicts == {"patterns": UNKNOWN}
    assert given[0] == 1.0 and given[1:] in ([], [pytest.approx(0.2)])
