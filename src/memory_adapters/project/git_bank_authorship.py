"""GitBankAuthorship: whose commits wrote a project's knowledge-bank files, in two git calls per import (one
`git log` over the bank directory naming each commit's author and files, then the user's `user.email`), which
share one time budget."""

from __future__ import annotations

import os
import subprocess
from time import monotonic
from typing import Optional

from memory_adapters.markdown.knowledge_bank import CATEGORY_FILES, project_bank
from memory_core.ports.bank_authorship import LOCAL, OTHERS, OWN, UNKNOWN, BankAuthors

_MARK = "\x01"  # starts each commit's author line in the log output; never part of an email or path
_NO_REPOSITORY = 128  # git's status for "not a git repository" (also for other fatal errors: told apart below)


def _git(directory: str, timeout_s: float, *args: str) -> Optional[subprocess.CompletedProcess]:
    """Run git in `directory` with untranslated messages; None when git is missing or too slow."""
    env = {**os.environ, "LC_ALL": "C", "LANGUAGE": "C", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        return subprocess.run(["git", "-C", directory, "-c", "core.quotepath=off", *args], capture_output=True,
                              text=True, errors="replace", timeout=timeout_s, stdin=subprocess.DEVNULL, env=env)
    except (OSError, subprocess.SubprocessError):
        return None


def _no_history(result: subprocess.CompletedProcess) -> bool:
    """Whether git failed only because there is no history: outside a repository, or before its first commit."""
    message = result.stderr.lower()
    return result.returncode == _NO_REPOSITORY and (
        "not a git repository" in message or "does not have any commits yet" in message)


def commit_authors(bank: str, timeout_s: float) -> Optional[dict[str, set[str]]]:
    """{file name: emails of the commits that touched it} for the files directly in `bank`; {} outside a
    repository or in one without commits yet; None when git could not tell."""
    result = _git(bank, timeout_s, "log", "--no-merges", "--relative", "--name-only", f"--format={_MARK}%ae", "--",
                  ".")
    if result is None:
        return None
    if result.returncode != 0:
        return {} if _no_history(result) else None
    authors: dict[str, set[str]] = {}
    email = ""
    for line in result.stdout.splitlines():
        if line.startswith(_MARK):
            email = line[1:].strip().lower()
        elif line.strip() and "/" not in line:  # a file directly in the bank (not one in a subdirectory)
            authors.setdefault(line.strip(), set()).add(email)
    return authors


def user_email(directory: str, timeout_s: float) -> Optional[str]:
    """The email the user's commits in this repository carry (`git config user.email`): "" when unset, None
    when git could not tell (missing, too slow)."""
    result = _git(directory, timeout_s, "config", "--get", "user.email") if timeout_s > 0 else None
    if result is None:
        return None
    return result.stdout.strip().lower() if result.returncode == 0 else ""


class GitBankAuthorship:
    """Implements BankAuthorship from git history: OWN when the user authored every commit touching a file,
    LOCAL when none did (or there is no repository, or no commit yet), OTHERS when anyone else did, UNKNOWN
    when git failed or took longer than the budget."""

    def authors(self, project_root: str, categories: list[str], timeout_s: float) -> BankAuthors:
        """The verdict of each existing category file of the project's bank, both git calls within `timeout_s`."""
        bank = project_bank(project_root)
        present = [c for c in categories if os.path.lexists(os.path.join(bank, CATEGORY_FILES[c]))]
        if not present:
            return BankAuthors()
        started = monotonic()
        history = commit_authors(bank, timeout_s)
        me = user_email(bank, timeout_s - (monotonic() - started)) if history else ""  # what the log left
        if history is None or me is None:
            return BankAuthors({c: UNKNOWN for c in present})
        verdicts: dict[str, str] = {}
        strangers: set[str] = set()
        for category in present:
            emails = history.get(CATEGORY_FILES[category], set())
            others = {e for e in emails if not me or e != me}  # no email of the user's: nothing is theirs
            strangers |= others
            verdicts[category] = OTHERS if others else OWN if emails else LOCAL
        return BankAuthors(verdicts, tuple(sorted(strangers)))
