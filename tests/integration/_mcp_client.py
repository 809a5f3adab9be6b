"""A synchronous client of a real `iflow-memory serve` stdio server, for plain pytest tests (the official mcp
client in a blocking portal); import it after `pytest.importorskip("mcp")`."""

from __future__ import annotations

import sys
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator

from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client

CALL_TIMEOUT_S = 60


class McpClient:
    """A synchronous facade over one ClientSession on a stdio server, usable from plain pytest tests."""

    def __init__(self, params: StdioServerParameters, errlog) -> None:
        self._stack = ExitStack()
        try:
            self.portal = self._stack.enter_context(start_blocking_portal())
            read, write = self._stack.enter_context(
                self.portal.wrap_async_context_manager(stdio_client(params, errlog=errlog)))
            self.session = self._stack.enter_context(self.portal.wrap_async_context_manager(
                ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT_S)))
            self.initialized = self.portal.call(self.session.initialize)
        except BaseException:
            self._stack.close()
            raise

    def list_tools(self):
        return self.portal.call(self.session.list_tools)

    def call(self, tool: str, arguments: dict):
        return self.portal.call(self.session.call_tool, tool, arguments)

    def close(self) -> None:
        self._stack.close()


class Server:
    """Paths of the module's server and its client."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.store = root / "global-store"
        self.project = root / "checkout-service"
        self.stderr_path = root / "server-stderr.log"
        self.client: McpClient | None = None

    @property
    def db(self) -> Path:
        return self.store / "memory.db"

    def call(self, tool: str, arguments: dict):
        assert self.client is not None
        return self.client.call(tool, arguments)

    def store_memory(self, entry: dict) -> dict:
        result = self.call("store_memory", entry)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    def search(self, query: str, **extra) -> dict:
        result = self.call("search_memory", {"query": query, **extra})
        assert not result.is_error, result.content[0].text
        return result.structured_content

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    @contextmanager
    def serving(self, env: dict, cwd: Path) -> Iterator["Server"]:
        """`iflow-memory serve` for this store and project, with a client, until the block ends; a traceback on
        its stderr fails the test afterwards."""
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "memory_apps.cli", "serve", "--global-store", str(self.store), "--project-root",
                  str(self.project)],
            env=env, cwd=str(cwd))
        with open(self.stderr_path, "w", encoding="utf-8") as errlog:
            self.client = McpClient(params, errlog)
            try:
                yield self
            finally:
                self.client.close()
        assert "Traceback" not in self.stderr(), self.stderr()
