"""The embedding space is pinned in `_metadata` and never mixed (ADR 0005), with the real local model.

A 100-entry bank is imported and embedded once with the bundled model. Switching to
`memory_embedding_model: <dir>` (a copy of the bundled model.onnx, so a different space name) starts a
re-embed into `staged_vectors`; sessions keep using the old space until every entry has a staged vector,
then one transaction swaps the new space in. A re-embed run that is cut short (`--max`, or SIGKILL) is
resumed, not redone.

The bank has 100 entries, not 30: `embed` stores vectors in batches of 50, so a real `embed` process can
only be killed with some (not all) vectors staged when more than one batch is left.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from memory_adapters.embedders.local_embedder import bundled_model_path
from tests._helpers import PYTHON, TIMEOUT_S, app_env, db_rows, diagnostic_line, run_in_process

pytestmark = pytest.mark.slow

BUNDLED = "all-MiniLM-L6-v2-int8"
EMBEDDING_BYTES = 384 * 4
HEADER_PREFIX = {"anti-patterns": "Anti-Pattern: ", "patterns": "Pattern: ", "heuristics": ""}
ACTIVE = re.compile(r"semantic: active \(vector=(\d+), fts5=(\d+)")
EMBEDDED = re.compile(r"^Embedded (\d+) entries into (.+); (\d+) remaining", re.MULTILINE)

COMPONENTS = ["billing service", "search indexer", "mobile sync API", "report generator", "notification worker",
              "auth gateway", "image resizer", "audit log pipeline", "feature store", "checkout page"]
PRACTICES = [
    ("anti-patterns", "Unbounded retries in the {c}",
     "The {c} retried failed calls forever, which turned a short outage of a dependency into a "
     "self-inflicted flood of requests."),
    ("anti-patterns", "Hidden global state in the {c}",
     "A module-level cache in the {c} made two tests pass alone and fail together; state belongs in objects "
     "that the tests create."),
    ("anti-patterns", "Calls without a timeout in the {c}",
     "Outgoing calls from the {c} had no timeout, so one slow downstream host pinned every worker thread "
     "until the pool was exhausted."),
    ("patterns", "Idempotency keys for the {c}",
     "Every request the {c} accepts carries an idempotency key, so a client retry never performs the same "
     "side effect twice."),
    ("patterns", "Structured logs in the {c}",
     "The {c} writes one JSON object per log line with a request id, which lets support follow a single "
     "request across hosts."),
    ("patterns", "A readiness endpoint for the {c}",
     "The {c} exposes a cheap readiness endpoint that checks its own dependencies, so the orchestrator stops "
     "routing traffic to a broken instance."),
    ("patterns", "Backpressure in the {c}",
     "The {c} rejects work with a clear status when its queue is full instead of buffering without limit."),
    ("heuristics", "Profile the {c} before optimising",
     "Measure where the {c} spends its time before rewriting anything; the slow part is rarely the one "
     "people guess."),
    ("heuristics", "Small pull requests for the {c}",
     "Changes to the {c} under two hundred lines get reviewed the same day; larger ones wait and collect "
     "conflicts."),
    ("heuristics", "A runbook next to the {c}",
     "Keep a short runbook for the {c} beside its code: how to restart it, where its dashboards live and who "
     "owns it."),
]
ENTRIES = [(cat, name.format(c=c), text.format(c=c)) for c in COMPONENTS for cat, name, text in PRACTICES]
N = len(ENTRIES)
EXTRA = [
    ("heuristics", "Name queues after their consumer",
     "A queue called after the service that drains it tells an on-call engineer at once whom to page."),
    ("patterns", "Dead-letter queue with an owner",
     "Messages that fail five times move to a dead-letter queue that one team reviews every morning."),
    ("anti-patterns", "Cron jobs nobody monitors",
     "A nightly job that fails quietly for weeks is worse than no job; alert when it did not finish."),
]


def env_for(home: Path, ceiling: Path) -> dict:
    env = app_env(home)
    env["GIT_CEILING_DIRECTORIES"] = str(ceiling)
    env.pop("OLLAMA_HOST", None)
    return env


def write_bank(project: Path, entries) -> None:
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True, exist_ok=True)
    for category in HEADER_PREFIX:
        blocks = [f"# {category}\n"]
        blocks += [f"### {HEADER_PREFIX[cat]}{name}\n{text}\n- Observation count: 1\n- Confidence: medium\n"
                   for cat, name, text in entries if cat == category]
        (bank / f"{category}.md").write_text("\n".join(blocks), encoding="utf-8")


def write_feature(project: Path) -> None:
    """An active feature, so sessions have a context query to rank against."""
    feature = project / "docs" / "features" / "003-billing-retries"
    feature.mkdir(parents=True, exist_ok=True)
    (feature / ".meta.json").write_text(
        '{"status": "active", "slug": "billing-retries", "lastCompletedPhase": "spec"}\n', encoding="utf-8")
    (feature / "spec.md").write_text(
        "# Spec: billing retries\n\nRetry failed payment calls of the billing service with backoff and a "
        "timeout, without charging a customer twice.\n\n## Scope\n\nOutgoing calls only.\n", encoding="utf-8")


def write_config(project: Path, provider: str, model: str = "") -> None:
    lines = ["# local settings", "", f"memory_embedding_provider: {provider}"]
    if model:
        lines.append(f"memory_embedding_model: {model}")
    path = project / ".claude" / "iflow-dev.local.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


class Setup:
    """One project and its global store, with helpers to run the apps against them: the CLI in-process, a
    session start (and the `embed` that is killed) as processes of their own."""

    def __init__(self, project: Path, store: Path, home: Path, ceiling: Path) -> None:
        self.project, self.store, self.home, self.ceiling = project, store, home, ceiling
        self.db = store / "memory.db"

    @property
    def env(self) -> dict:
        return env_for(self.home, self.ceiling)

    def arguments(self, *args: str) -> list[str]:
        return [*args, "--project-root", str(self.project), "--global-store", str(self.store)]

    def command(self, *args: str) -> list[str]:
        return [PYTHON, "-m", "memory_apps.cli", *self.arguments(*args)]

    def cli(self, *args: str) -> subprocess.CompletedProcess:
        return run_in_process("memory_apps.cli", self.arguments(*args), self.home,
                              env={"GIT_CEILING_DIRECTORIES": str(self.ceiling), "OLLAMA_HOST": None})

    def inject(self) -> str:
        result = subprocess.run(
            [PYTHON, "-m", "memory_apps.injector", "--project-root", str(self.project), "--global-store",
             str(self.store), "--limit", "10"], env=self.env, capture_output=True, text=True, timeout=TIMEOUT_S)
        assert result.returncode == 0 and result.stdout, result.stderr
        return diagnostic_line(result.stdout)

    def metadata(self) -> dict:
        return dict(db_rows(self.db, "SELECT key, value FROM _metadata WHERE key LIKE '%embedding_%'"))

    def pinned(self) -> tuple:
        meta = self.metadata()
        return meta.get("embedding_provider"), meta.get("embedding_model"), meta.get("embedding_dimensions")

    def staged(self) -> int:
        return db_rows(self.db, "SELECT COUNT(*) FROM staged_vectors")[0][0]

    def count(self) -> int:
        return db_rows(self.db, "SELECT COUNT(*) FROM entries")[0][0]

    def sizes(self) -> list:
        return [size for (size,) in db_rows(self.db, "SELECT LENGTH(embedding) FROM entries")]


def embedded_counts(stdout: str) -> tuple[int, str, int]:
    match = EMBEDDED.search(stdout)
    assert match, stdout
    return int(match.group(1)), match.group(2), int(match.group(3))


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """(a) The bank imported and embedded with `memory_embedding_provider: local` (bundled model)."""
    root = tmp_path_factory.mktemp("provider-switch")
    home = root / "home"
    home.mkdir()
    model_dir = root / "my-minilm"
    model_dir.mkdir()
    shutil.copyfile(bundled_model_path(), model_dir / "model.onnx")
    setup = Setup(root / "base" / "switch-app", root / "base" / "store", home, root)
    write_bank(setup.project, ENTRIES)
    write_feature(setup.project)
    write_config(setup.project, "local")
    imported = setup.cli("import")
    assert imported.returncode == 0, imported.stderr
    assert setup.count() == N
    embedded = setup.cli("embed")
    assert embedded.returncode == 0, embedded.stderr
    assert embedded_counts(embedded.stdout)[2] == 0
    return setup, model_dir


def fresh(base, tmp_path: Path) -> Setup:
    """A private copy of the embedded project and store."""
    setup, _ = base
    project = tmp_path / setup.project.name
    store = tmp_path / "store"
    shutil.copytree(setup.project, project)
    shutil.copytree(setup.store, store)
    return Setup(project, store, setup.home, tmp_path)


def test_a_bundled_model_pins_its_space(base):
    setup, _ = base
    assert setup.pinned() == ("local", BUNDLED, "384")
    assert setup.sizes() == [EMBEDDING_BYTES] * N
    assert setup.staged() == 0
    assert not any(key.startswith("staged_") for key in setup.metadata())


def test_b_c_reembed_is_staged_survives_a_kill_and_is_promoted(base, tmp_path):
    setup = fresh(base, tmp_path)
    model_dir = str(base[1].resolve())
    write_config(setup.project, "local", model_dir)

    # (b) a partial re-embed, as if stopped halfway
    partial = setup.cli("embed", "--max", "10")
    assert partial.returncode == 0, partial.stderr
    assert embedded_counts(partial.stdout) == (10, f"local/{model_dir} (384d)", N - 10), partial.stdout
    assert "run `iflow-memory embed` again to resume" in partial.stdout
    assert setup.staged() == 10
    assert setup.pinned() == ("local", BUNDLED, "384"), "the old space keeps serving until the swap"
    assert setup.metadata().get("staged_embedding_model") == model_dir

    diagnostic = setup.inject()
    assert ACTIVE.search(diagnostic) and int(ACTIVE.search(diagnostic).group(1)) > 0, diagnostic
    assert diagnostic.endswith(f"| model: {BUNDLED}*"), diagnostic

    # a real `embed` process, SIGKILLed once it has staged more vectors than the --max run left
    process = subprocess.Popen(setup.command("embed", "--quiet"), env=setup.env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    reader = sqlite3.connect(f"file:{setup.db}?mode=ro", uri=True)
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline and process.poll() is None:
            if reader.execute("SELECT COUNT(*) FROM staged_vectors").fetchone()[0] > 10:
                break
            time.sleep(0.002)
        assert process.poll() is None, f"embed ended before it could be killed: {process.stderr.read()}"
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=TIMEOUT_S)
    finally:
        reader.close()
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    staged_before = setup.staged()
    assert 10 < staged_before < N, staged_before
    assert setup.pinned() == ("local", BUNDLED, "384")
    assert setup.sizes() == [EMBEDDING_BYTES] * N, "the old vectors stay in place during the re-embed"

    diagnostic = setup.inject()
    assert ACTIVE.search(diagnostic), diagnostic
    assert diagnostic.endswith(f"| model: {BUNDLED}*"), diagnostic
    assert "pending_embedding" not in diagnostic
    assert setup.staged() == staged_before, "a session never touches the staged set"

    # (c) resume: only the rest is embedded, then the new space is swapped in
    resumed = setup.cli("embed")
    assert resumed.returncode == 0, resumed.stderr
    assert embedded_counts(resumed.stdout) == (N - staged_before, f"local/{model_dir} (384d)", 0), resumed.stdout
    assert "re-embed complete, the new space now serves queries" in resumed.stdout
    assert setup.pinned() == ("local", model_dir, "384")
    assert setup.staged() == 0
    assert not any(key.startswith("staged_") for key in setup.metadata())
    assert setup.sizes() == [EMBEDDING_BYTES] * N

    diagnostic = setup.inject()
    assert ACTIVE.search(diagnostic) and int(ACTIVE.search(diagnostic).group(1)) > 0, diagnostic
    assert diagnostic.endswith(f"| model: {model_dir}*"), diagnostic

    again = setup.cli("embed")
    assert again.returncode == 0, again.stderr
    assert embedded_counts(again.stdout) == (0, f"local/{model_dir} (384d)", 0), again.stdout


def test_d_auto_never_starts_or_finishes_a_reembed(base, tmp_path):
    setup = fresh(base, tmp_path)
    model_dir = str(base[1].resolve())
    write_config(setup.project, "local", model_dir)
    assert setup.cli("embed", "--max", "10").returncode == 0
    assert setup.staged() == 10

    write_config(setup.project, "auto")
    write_bank(setup.project, ENTRIES + EXTRA)
    imported = setup.cli("import")
    assert imported.returncode == 0, imported.stderr
    assert setup.count() == N + len(EXTRA)
    result = setup.cli("embed")

    assert result.returncode == 0, result.stderr
    embedded, space, remaining = embedded_counts(result.stdout)
    assert space == f"local/{BUNDLED} (384d)" and remaining == 0, result.stdout
    assert "re-embed" not in result.stdout
    assert setup.pinned() == ("local", BUNDLED, "384")
    assert setup.staged() == 10, "auto neither continues nor promotes the staged set"
    assert setup.sizes() == [EMBEDDING_BYTES] * (N + len(EXTRA)), "new entries join the pinned space"
    diagnostic = setup.inject()
    assert ACTIVE.search(diagnostic) and diagnostic.endswith(f"| model: {BUNDLED}*"), diagnostic


def test_d_auto_on_a_database_pinned_to_an_unavailable_provider_embeds_nothing(base, tmp_path):
    """A database pinned to Gemini (no key here) is not re-embedded with the local model under auto."""
    setup = fresh(base, tmp_path)
    write_config(setup.project, "auto")
    with sqlite3.connect(setup.db) as conn:  # as if every vector had come from Gemini
        conn.execute("UPDATE entries SET embedding = NULL")
        conn.executemany("UPDATE _metadata SET value = ? WHERE key = ?",
                         [("gemini", "embedding_provider"), ("gemini-embedding-001", "embedding_model"),
                          ("768", "embedding_dimensions")])
    conn.close()

    result = setup.cli("embed")

    assert result.returncode == 1
    assert "nothing embedded" in result.stderr and "gemini" in result.stderr, result.stderr
    assert setup.pinned() == ("gemini", "gemini-embedding-001", "768")
    assert setup.staged() == 0
    assert setup.sizes() == [None] * N
    diagnostic = setup.inject()
    assert "semantic: off" in diagnostic and "GEMINI_API_KEY" in diagnostic, diagnostic
    assert setup.sizes() == [None] * N, "the session does not embed into another space either"


def test_e_provider_none_embeds_nothing(base, tmp_path):
    setup, _ = base
    project = tmp_path / "no-vectors-app"
    store = tmp_path / "store"
    write_bank(project, ENTRIES[:30])
    write_feature(project)
    write_config(project, "none")
    fresh_setup = Setup(project, store, setup.home, tmp_path)
    assert fresh_setup.cli("import").returncode == 0
    assert fresh_setup.count() == 30

    diagnostic = fresh_setup.inject()
    embed = fresh_setup.cli("embed")

    assert "semantic: off (vector=0" in diagnostic, diagnostic
    assert "vector: memory_embedding_provider is none" in diagnostic
    assert diagnostic.endswith("| model: none*"), diagnostic
    assert embed.returncode == 1 and "memory_embedding_provider is none" in embed.stderr, embed.stderr
    assert fresh_setup.sizes() == [None] * 30
    assert fresh_setup.pinned() == (None, None, None)
    assert fresh_setup.staged() == 0


def test_a_pinned_model_directory_that_disappeared_is_not_replaced_by_the_bundled_model(base, tmp_path):
    """ADR 0005: queries use the pinned space's own model; if it is unavailable, say so and use keywords.

    After a promotion to `local/<dir>`, removing <dir> must not let the bundled model stand in under the
    directory's name (its vectors would be compared with the user model's as if they were one space).
    """
    setup = fresh(base, tmp_path)
    model_dir = tmp_path / "user-model"
    model_dir.mkdir()
    shutil.copyfile(bundled_model_path(), model_dir / "model.onnx")
    write_config(setup.project, "local", str(model_dir))
    promoted = setup.cli("embed")
    assert "re-embed complete" in promoted.stdout, promoted.stdout + promoted.stderr
    assert setup.pinned() == ("local", str(model_dir.resolve()), "384")

    shutil.rmtree(model_dir)
    write_bank(setup.project, ENTRIES + EXTRA)
    diagnostic = setup.inject()  # imports the 3 new entries (pending) and ranks
    embed = setup.cli("embed")

    assert "semantic: active" not in diagnostic, f"the model directory is gone, yet: {diagnostic}"
    assert "semantic: off" in diagnostic and str(model_dir) in diagnostic, "the reason names the directory"
    assert embed.returncode == 1, f"embedded with a model that is not {model_dir}: {embed.stdout}"
    assert str(model_dir) in embed.stderr, embed.stderr
    assert sorted(setup.sizes(), key=lambda s: s or 0)[:len(EXTRA)] == [None] * len(EXTRA)
