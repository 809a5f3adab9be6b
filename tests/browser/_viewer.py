"""The viewer as a user starts it: `iflow-memory ui --no-browser --port 0 ...` in a process of its own, its URL read
from the first line it prints, stopped at the end of the test."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from queue import Empty, Queue
from typing import Optional
from urllib.parse import urlsplit

from tests._helpers import PYTHON, TIMEOUT_S, app_env
from tests.browser._store import ViewerStore

STOP_S = 30


class ViewerFailed(RuntimeError):
    """The viewer exited or printed no URL."""


class Viewer:
    """One running `iflow-memory ui`: `url` as printed (with its token), `base` (scheme, host and port)."""

    def __init__(self, store: ViewerStore, log: Path, *extra: str) -> None:
        self.store = store
        self._log = log.open("w", encoding="utf-8")
        args = ["ui", "--no-browser", "--port", "0", "--global-store", str(store.store),
                "--project-root", str(store.project), *extra]
        self.process = subprocess.Popen(
            [PYTHON, "-m", "memory_apps.cli", *args], env=app_env(store.home, {"CLAUDE_PROJECT_DIR": None}),
            cwd=str(store.home), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._log, text=True)
        self.lines: Queue = Queue()
        # Drained all along: a server whose stdout pipe fills up would stop answering.
        threading.Thread(target=self._drain, daemon=True).start()
        self.url = self._first_line(log)
        parts = urlsplit(self.url)
        if parts.scheme != "http" or parts.hostname != "127.0.0.1" or not parts.port:
            self.stop()
            raise ViewerFailed(f"the first line is not the viewer's local URL: {self.url!r}")
        self.base = f"{parts.scheme}://{parts.netloc}"

    def _drain(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _first_line(self, log: Path) -> str:
        try:
            line = self.lines.get(timeout=TIMEOUT_S)  # a slow machine's first import, never a measured time
        except Empty:
            line = None
        if line is None:
            self.stop()
            raise ViewerFailed(f"`iflow-memory ui` printed no URL; its stderr:\n{log.read_text(encoding='utf-8')}")
        return line.strip()

    def at(self, path: str) -> str:
        """The URL of a page (no token: the cookie carries the session after the first visit)."""
        return self.base + path

    def stop(self) -> Optional[int]:
        """Stop the server (terminate, then kill if it hangs); its exit status."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=STOP_S)
        self._log.close()
        return self.process.returncode
