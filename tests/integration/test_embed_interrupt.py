"""Ctrl-C during `iflow-memory embed` (issue 21, doorway 7): a real `embed` process, embedding through a fake
Ollama server on the loopback interface that answers the first batch (of 50) and holds the second until the test
lets it go, gets SIGINT while it waits. It says how many entries it embedded, with no traceback, exits 130, and keeps
them: the next run embeds only the rest."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests._helpers import PYTHON, app_env, db_rows, run_app, write_settings

pytestmark = pytest.mark.slow

ENTRIES = 60  # one batch of 50, then 10
HELD = 3  # the embedder sends a batch of 50 as requests of 32 and 18: the third request is the second batch's
DIMENSIONS = 768  # the Ollama adapter's default model's
WAIT_S = 120  # generous bounds on waits that end as soon as the awaited thing happens


class FakeOllama(ThreadingHTTPServer):
    """POST /api/embed: unit vectors; the request of the second batch waits for `release`, `second` is set when it
    came."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Embed)
        self.batches = 0
        self.sizes: list[int] = []
        self.second = threading.Event()
        self.release = threading.Event()


class _Embed(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        texts = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["input"]
        texts = [texts] if isinstance(texts, str) else texts
        server: FakeOllama = self.server  # type: ignore[assignment]
        server.sizes.append(len(texts))
        if len(texts) > 1:
            server.batches += 1
            if server.batches == HELD:
                server.second.set()
                server.release.wait(WAIT_S)
        body = json.dumps({"embeddings": [[1.0] + [0.0] * (DIMENSIONS - 1) for _ in texts]}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the interrupted client is gone
            pass

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def ollama():
    server = FakeOllama()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()


def _project(tmp_path: Path, home: Path) -> tuple[Path, Path]:
    project, store = tmp_path / "app", tmp_path / "G"
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text("".join(
        f"### Pattern: Rule {n}\nKeep rule number {n} in mind whenever the build number is {n * 7}.\n\n"
        for n in range(ENTRIES)), encoding="utf-8")
    write_settings(project, embedding_provider="none")
    imported = run_app("memory_apps.cli", ["import", "--project-root", project, "--global-store", store], home)
    assert imported.returncode == 0, imported.stderr
    write_settings(project, embedding_provider="ollama")
    return project, store


def test_ctrl_c_during_embed_says_what_was_kept_and_the_next_run_resumes(tmp_path, isolated_home, ollama):
    project, store = _project(tmp_path, isolated_home)
    host = f"http://127.0.0.1:{ollama.server_address[1]}"
    env = app_env(isolated_home, {"OLLAMA_HOST": host, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"})
    flags = ["--project-root", str(project), "--global-store", str(store)]
    child = subprocess.Popen([PYTHON, "-m", "memory_apps.cli", "embed", *flags], env=env, cwd=str(tmp_path),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert ollama.second.wait(WAIT_S), "the second batch never came"  # the first one is stored by then
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=WAIT_S)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()

    assert child.returncode == 130, (child.returncode, err, ollama.sizes)
    assert err.strip() == "iflow-memory: interrupted: 50 embedded; run again to resume", (err, ollama.sizes)
    assert out == "" and "Traceback" not in err
    stored = db_rows(store / "memory.db", "SELECT COUNT(*) FROM entries WHERE embedding IS NOT NULL")[0][0]
    assert stored == 50

    ollama.release.set()
    again = run_app("memory_apps.cli", ["embed", *flags, "--json"], isolated_home,
                    env={"OLLAMA_HOST": host, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"})
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["embedded"] == ENTRIES - 50 and json.loads(again.stdout)["remaining"] == 0
