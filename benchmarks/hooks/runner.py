"""The real prompt hook process, one prompt at a time, each against a fresh copy of the built store: what it
printed, which learnings that was, and how long the process took."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common.processes import base_env, run_proc

PATH_CONFIG = {"full": "", "keyword": "memory_embedding_provider: none\n"}
"""The hook's two paths: the local model's (meaning + keywords), and keywords only (what a hook whose model is not
loaded in time answers: the same RelevanceModel, `KEYWORDS_ONLY`), chosen by the project's config."""
DEADLINE_S = "30"
"""Long enough that a cold process always gets the model's answer: relevance is measured here, not speed."""
ID_LINE = re.compile(r"^- id: ([0-9a-f]+) ·", re.MULTILINE)
SEMANTIC = re.compile(r"\| semantic: ([^|*]+?) \|")
HUNG_S = 300


class HookFailed(RuntimeError):
    """The hook printed something that is not its JSON answer, or did not end."""


@dataclass
class HookRun:
    """One prompt's answer: the ids shown (in order), the diagnostic's semantic state, the process's wall ms."""

    ids: list[str]
    semantic: str
    ms: float
    stderr: str


def injected(stdout: str) -> tuple[list[str], str]:
    """The entry ids and the semantic state in a prompt hook's output ("" when it printed nothing)."""
    if not stdout.strip():
        return [], ""
    try:
        context = json.loads(stdout)["hookSpecificOutput"]["additionalContext"]
    except (ValueError, KeyError, TypeError) as exc:
        raise HookFailed(f"not hook JSON ({exc}): {stdout[:300]!r}") from exc
    found = SEMANTIC.search(context)
    return ID_LINE.findall(context), found.group(1).strip() if found else ""


class HookBench:
    """Runs `iflow-memory hook user-prompt-submit` for one path against copies of one built store."""

    def __init__(self, built_store: str, workdir: Path, path: str) -> None:
        self.built = Path(built_store)
        self.store = workdir / f"store-{path}"
        self.project = workdir / f"project-{path}"
        (self.project / ".claude").mkdir(parents=True, exist_ok=True)
        (self.project / ".claude" / "iflow-dev.local.md").write_text(PATH_CONFIG[path], encoding="utf-8")
        home = workdir / f"home-{path}"
        home.mkdir(exist_ok=True)
        self.env = base_env(home, workdir)
        self.env.update(IFLOW_MEMORY_WARM="off", IFLOW_MEMORY_HOOK_DEADLINE_S=DEADLINE_S)
        self.path = path

    def command(self) -> list[str]:
        """The hook as install-claude writes it, with the store and project named."""
        return [sys.executable, "-m", "memory_apps.cli", "hook", "user-prompt-submit",
                "--global-store", str(self.store), "--project-root", str(self.project)]

    def ask(self, prompt: str) -> HookRun:
        """The hook's answer to `prompt` in a new session, on a store no earlier prompt touched (an injection
        counts as a recall, which would change the next prompt's ranking)."""
        shutil.rmtree(self.store, ignore_errors=True)
        shutil.copytree(self.built, self.store)
        event = {"session_id": f"hookbench-{uuid.uuid4().hex[:12]}", "transcript_path": "", "cwd": str(self.project),
                 "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        try:
            ms, done = run_proc(self.command(), self.env, self.project, timeout=HUNG_S, stdin=json.dumps(event))
        except subprocess.TimeoutExpired as exc:
            raise HookFailed(f"the hook did not end within {HUNG_S} s") from exc
        if done.returncode != 0:
            raise HookFailed(f"exit {done.returncode}: {done.stderr[-500:]}")
        ids, semantic = injected(done.stdout)
        return HookRun(ids, semantic, round(ms, 1), done.stderr.strip())
