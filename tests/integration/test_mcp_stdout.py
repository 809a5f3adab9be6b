"""`iflow-memory serve` speaks JSON-RPC on stdout and nothing else, even on its noisiest path (spec 001 D6)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time

import pytest

pytest.importorskip("mcp", reason="the MCP server tests need the mcp package (iflow-memory[mcp])")

from tests._helpers import PYTHON, app_env  # noqa: E402
from tests._learnings import PROFILE  # noqa: E402
from tests.integration._mcp_client import CALL_TIMEOUT_S  # noqa: E402

pytestmark = pytest.mark.slow


def _reader(stream, lines: "queue.Queue[str | None]") -> None:
    for line in iter(stream.readline, ""):
        lines.put(line)
    lines.put(None)


def test_nothing_but_json_rpc_reaches_stdout(tmp_path):
    import mcp.types

    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "raw-project"
    project.mkdir()
    stderr_path = tmp_path / "stderr.log"
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": mcp.types.LATEST_PROTOCOL_VERSION, "capabilities": {},
                    "clientInfo": {"name": "raw-test", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        # A store loads the embedding model and writes the database: the noisiest path there is.
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "store_memory", "arguments": PROFILE}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "store_memory", "arguments": dict(PROFILE, category="tips")}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
         "params": {"name": "search_memory", "arguments": {"query": "profiling slow code"}}},
    ]
    with open(stderr_path, "w", encoding="utf-8") as errlog:
        process = subprocess.Popen(
            [PYTHON, "-m", "memory_apps.cli", "serve", "--global-store", str(tmp_path / "store"),
             "--project-root", str(project)],
            env=app_env(home), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog, text=True,
        )
        lines: "queue.Queue[str | None]" = queue.Queue()
        threading.Thread(target=_reader, args=(process.stdout, lines), daemon=True).start()
        received: list[str] = []
        try:
            process.stdin.write(json.dumps(messages[0]) + "\n")
            process.stdin.flush()
            received.append(lines.get(timeout=CALL_TIMEOUT_S))
            for message in messages[1:]:
                process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            deadline = time.monotonic() + CALL_TIMEOUT_S
            while len([r for r in received if r and '"id"' in r]) < 5 and time.monotonic() < deadline:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
                if line is None:
                    break
                received.append(line)
            process.stdin.close()
            assert process.wait(timeout=CALL_TIMEOUT_S) == 0, "the server exits 0 when the client disconnects"
            while (line := lines.get(timeout=CALL_TIMEOUT_S)) is not None:
                received.append(line)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()

    assert received and all(r is not None for r in received)
    ids = set()
    for line in received:
        assert line.strip(), "no blank lines on stdout"
        message = json.loads(line)  # every line is one JSON-RPC message
        assert message.get("jsonrpc") == "2.0", line
        assert "result" in message or "error" in message or "method" in message, line
        if "id" in message:
            ids.add(message["id"])
    assert ids == {1, 2, 3, 4, 5}
    by_id = {json.loads(line).get("id"): json.loads(line) for line in received}
    assert by_id[3]["result"].get("isError") in (None, False)
    assert by_id[4]["result"]["isError"] is True
    assert "Traceback" not in stderr_path.read_text(encoding="utf-8", errors="replace")
