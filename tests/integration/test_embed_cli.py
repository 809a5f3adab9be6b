"""`iflow-memory embed`, `iflow-memory doctor` and the writer's own embedding, in-process (`run_in_process`).

The bank is imported with `memory_embedding_provider: none` (so every entry is pending), then the
provider is switched to `local` (the bundled all-MiniLM-L6-v2 int8 model) for the commands under test.
One test calls `doctor`'s handler directly, to take the mcp extra away.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from memory_apps.commands.embedding import add_commands
from tests._helpers import db_rows, run_in_process

pytestmark = pytest.mark.slow

BUNDLED_SPACE = "local/all-MiniLM-L6-v2-int8 (384d)"
EMBEDDING_BYTES = 384 * 4
HEADER_PREFIX = {"anti-patterns": "Anti-Pattern: ", "patterns": "Pattern: ", "heuristics": ""}
BANK = [
    ("anti-patterns", "Caching without an eviction policy",
     "An in-process cache that only grows eventually takes the worker down with it; give every cache a size "
     "bound and an eviction rule."),
    ("anti-patterns", "Alerting on every warning",
     "Paging on each warning line trains the on-call rotation to mute the pager; alert on symptoms users "
     "feel, not on causes."),
    ("anti-patterns", "Dashboards nobody owns",
     "A wall of graphs without an owner rots: half the panels show metrics that were renamed months ago."),
    ("anti-patterns", "Caching values that encode permissions",
     "Keeping authorisation results in a shared cache served a revoked user for an hour after the revocation."),
    ("patterns", "Cache keys carry a schema version",
     "Prefix every cache key with the version of the value's shape, so a deploy that changes the shape never "
     "reads stale objects."),
    ("patterns", "Trace ids across queues",
     "Put the trace id into every message header, so a request can be followed through the asynchronous "
     "consumers as well."),
    ("patterns", "Golden signals per service",
     "Every service exports latency, traffic, saturation and failures with the same names, so one dashboard "
     "template fits them all."),
    ("patterns", "Warm the cache before switching traffic",
     "Replay a sample of recent reads against a new cache cluster before routing users to it."),
    ("heuristics", "Log less, but structured",
     "Ten structured fields beat a hundred free-text lines; search works and storage bills stay small."),
    ("heuristics", "Measure the hit ratio first",
     "A cache with a hit ratio under a third mostly adds latency and a consistency problem."),
    ("heuristics", "Delete alerts that never fired",
     "Review alert rules every quarter and remove the ones that stayed silent; they usually watch nothing."),
    ("heuristics", "Sample traces, keep errors",
     "Keep one trace in a hundred for healthy requests but every trace of a failed one."),
]
N = len(BANK)


def env_for(ceiling: Path) -> dict[str, Optional[str]]:
    """What the apps' test environment changes here: git may not look above `ceiling`; no Ollama host."""
    return {"GIT_CEILING_DIRECTORIES": str(ceiling), "OLLAMA_HOST": None}


def write_config(project: Path, provider: str) -> None:
    path = project / ".claude" / "iflow-dev.local.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"memory_embedding_provider: {provider}\n", encoding="utf-8")


class App:
    def __init__(self, tmp_path: Path, home: Path) -> None:
        self.project = tmp_path / "observability-app"
        self.store = tmp_path / "store"
        self.db = self.store / "memory.db"
        self.home = home
        self.env = env_for(tmp_path)

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return run_in_process("memory_apps.cli", [*args, "--project-root", self.project, "--global-store",
                                                  self.store], self.home, env=self.env)

    def vectors(self) -> list:
        return [size for (size,) in db_rows(self.db, "SELECT LENGTH(embedding) FROM entries ORDER BY rowid")]


@pytest.fixture
def app(tmp_path, isolated_home) -> App:
    """The bank imported without vectors; the config then switched to the local model."""
    app = App(tmp_path, isolated_home)
    bank = app.project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    for category, prefix in HEADER_PREFIX.items():
        text = "\n".join(f"### {prefix}{name}\n{body}\n- Observation count: 2\n"
                         for cat, name, body in BANK if cat == category)
        (bank / f"{category}.md").write_text(text, encoding="utf-8")
    write_config(app.project, "none")
    imported = app.run("import")
    assert imported.returncode == 0, imported.stderr
    assert app.vectors() == [None] * N
    write_config(app.project, "local")
    return app


def test_embed_reports_what_it_did_and_max_limits_it(app):
    first = app.run("embed", "--max", "5")
    assert first.returncode == 0, first.stderr
    assert first.stdout == (f"Embedded 5 entries into {BUNDLED_SPACE}; {N - 5} remaining "
                            "(run `iflow-memory embed` again to resume)\n")
    assert sorted(app.vectors(), key=lambda s: s or 0) == [None] * (N - 5) + [EMBEDDING_BYTES] * 5

    rest = app.run("embed")
    assert rest.returncode == 0, rest.stderr
    assert rest.stdout == f"Embedded {N - 5} entries into {BUNDLED_SPACE}; 0 remaining\n"
    assert app.vectors() == [EMBEDDING_BYTES] * N
    meta = dict(db_rows(app.db, "SELECT key, value FROM _metadata WHERE key LIKE 'embedding_%'"))
    assert meta == {"embedding_provider": "local", "embedding_model": "all-MiniLM-L6-v2-int8",
                    "embedding_dimensions": "384"}

    quiet = app.run("embed", "--quiet")
    assert quiet.returncode == 0 and quiet.stdout == "", quiet.stdout


def test_embed_json_is_one_document_with_the_same_exit_status(app):
    first = app.run("embed", "--max", "5", "--json")

    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {"ok": True, "embedded": 5, "remaining": N - 5, "space": BUNDLED_SPACE,
                                        "re_embed_complete": False, "rate_limited": False, "error": None}
    assert app.vectors().count(EMBEDDING_BYTES) == 5

    write_config(app.project, "none")
    without = app.run("embed", "--json")

    assert without.returncode == 1
    assert without.stdout == "", "errors stay on stderr"
    assert "nothing embedded: memory_embedding_provider is none" in without.stderr, without.stderr


def test_embed_without_a_provider_exits_1_and_says_why(app):
    write_config(app.project, "none")

    result = app.run("embed")

    assert result.returncode == 1
    assert result.stdout == ""
    assert "nothing embedded: memory_embedding_provider is none" in result.stderr, result.stderr
    assert app.vectors() == [None] * N


def test_embed_with_an_unknown_local_model_name_exits_1(app):
    """A model name that is neither the bundled model nor a directory is not served by the bundled model."""
    (app.project / ".claude" / "iflow-dev.local.md").write_text(
        "memory_embedding_provider: local\nmemory_embedding_model: all-MiniLM-L12-v2\n", encoding="utf-8")

    result = app.run("embed")

    assert result.returncode == 1, result.stdout
    assert "nothing embedded" in result.stderr and "all-MiniLM-L12-v2" in result.stderr, result.stderr
    assert app.vectors() == [None] * N
    assert db_rows(app.db, "SELECT COUNT(*) FROM _metadata WHERE key LIKE '%embedding_model'") == [(0,)]


def test_doctor_asks_for_embed_while_vectors_are_missing(app):
    assert app.run("embed", "--max", "4").returncode == 0

    pending = app.run("doctor")

    assert pending.returncode == 1, pending.stdout
    lines = pending.stdout.splitlines()
    for label in ("config", "numpy", "mcp", "database", "FTS5", "embedding provider", "pinned space"):
        assert any(re.match(rf"ok\s+{label}: ", line) for line in lines), (label, pending.stdout)
    assert f"({N} entries)" in pending.stdout
    assert re.search(r"^ok\s+embedding provider: " + re.escape(BUNDLED_SPACE) + "$", pending.stdout, re.M)
    assert re.search(r"^ok\s+pinned space: " + re.escape(BUNDLED_SPACE) + "$", pending.stdout, re.M)
    fix = lines.index(next(line for line in lines if re.match(r"FIX\s+vectors: ", line)))
    assert lines[fix].endswith(f"{N - 4} entries without a vector"), lines[fix]
    assert lines[fix + 1].strip() == "-> iflow-memory embed"
    as_json = app.run("doctor", "--json")
    assert as_json.returncode == 1, as_json.stdout
    document = json.loads(as_json.stdout)
    assert document["ok"] is False
    assert [c["check"] for c in document["checks"] if c["status"] == "fix"] == ["vectors"]
    [vectors] = [c for c in document["checks"] if c["check"] == "vectors"]
    assert vectors == {"check": "vectors", "status": "fix", "detail": f"{N - 4} entries without a vector",
                       "fix": "iflow-memory embed"}

    assert app.run("embed").returncode == 0
    healthy = app.run("doctor")

    assert healthy.returncode == 0, healthy.stdout
    assert "FIX" not in healthy.stdout and "->" not in healthy.stdout
    for label in ("config", "numpy", "mcp", "database", "FTS5", "embedding provider", "pinned space", "vectors"):
        assert re.search(rf"^ok\s+{label}: ", healthy.stdout, re.M), (label, healthy.stdout)
    assert re.search(r"^ok\s+vectors: 0 entries without a vector$", healthy.stdout, re.M), healthy.stdout
    assert re.search(r"^ok\s+background: nothing running$", healthy.stdout, re.M), healthy.stdout
    assert re.search(r"^ok\s+bank: ", healthy.stdout, re.M), healthy.stdout  # whose the project's bank is
    # the suite switches the warm process off: doctor says so, as information, not as a fault
    assert re.search(r"^--\s+warm process: off ", healthy.stdout, re.M), healthy.stdout
    assert len(healthy.stdout.splitlines()) == 11
    healthy_json = app.run("doctor", "--json")
    assert healthy_json.returncode == 0 and json.loads(healthy_json.stdout)["ok"] is True, healthy_json.stdout


def test_doctor_without_the_mcp_extra_fails_only_when_a_server_is_registered(app, monkeypatch, capsys):
    assert app.run("embed").returncode == 0
    parser = argparse.ArgumentParser(prog="iflow-memory")
    add_commands(parser.add_subparsers(), argparse.RawDescriptionHelpFormatter)
    args = parser.parse_args(["doctor", "--project-root", str(app.project), "--global-store", str(app.store)])
    monkeypatch.setitem(sys.modules, "mcp", None)  # `import mcp` fails as when the extra is not installed

    unused = args.handler(args)
    out = capsys.readouterr().out

    assert unused == 0, out
    lines = out.splitlines()
    mcp = lines.index(next(line for line in lines if re.match(r"--\s+mcp: ", line)))
    assert "the mcp extra is not installed" in lines[mcp], out
    assert lines[mcp + 1].strip() == "-> pip install 'iflow-memory[mcp]'"

    (app.project / ".mcp.json").write_text(json.dumps({"mcpServers": {"iflow-memory": {
        "command": "iflow-memory", "args": ["serve"]}}}), encoding="utf-8")
    registered = args.handler(args)
    out = capsys.readouterr().out

    assert registered == 1, out
    assert re.search(r"^FIX\s+mcp: the mcp extra is not installed, but " + re.escape(str(app.project / ".mcp.json"))
                     + r" \(project scope\) registers `iflow-memory serve`: it exits at start$", out, re.M), out


def test_writer_embeds_and_labels_the_entry_it_writes(tmp_path, isolated_home):
    """The retro writer: the new row has a 384-float vector and 3-10 keywords from its own text (AC5)."""
    project = tmp_path / "retro-app"
    project.mkdir()
    store = tmp_path / "store"
    entry = {
        "name": "Throttle the invoice exporter",
        "description": "The nightly invoice exporter opened a connection per invoice and exhausted the "
                       "database pool; batching invoices per customer and reusing one connection fixed it.",
        "reasoning": "Three incidents in one month traced back to connection exhaustion during exports.",
        "category": "anti-patterns",
    }
    result = run_in_process("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root",
                                                   project, "--entry-json", json.dumps(entry)], isolated_home,
                            env=env_for(tmp_path))

    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"Stored: Throttle the invoice exporter \(id: [0-9a-f]{16}\)\n", result.stdout)
    (size, keywords_json), = db_rows(store / "memory.db", "SELECT LENGTH(embedding), keywords FROM entries")
    assert size == EMBEDDING_BYTES
    keywords = json.loads(keywords_json)
    assert 3 <= len(keywords) <= 10, keywords
    text_words = set(re.findall(r"[a-z0-9]+", " ".join([entry["name"], entry["description"],
                                                         entry["reasoning"]]).lower()))
    for keyword in keywords:
        assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", keyword), keyword
        assert all(part in text_words for part in keyword.split("-")), (keyword, "not in the entry's text")
    assert len(set(keywords)) == len(keywords)
    meta = dict(db_rows(store / "memory.db", "SELECT key, value FROM _metadata WHERE key LIKE 'embedding_%'"))
    assert meta["embedding_model"] == "all-MiniLM-L6-v2-int8"
