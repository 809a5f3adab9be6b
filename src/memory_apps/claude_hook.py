"""`iflow-memory hook session-start`: Claude Code's SessionStart hook, always valid JSON, always exit 0."""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Optional

SKIPPED_SOURCES = {"clear", "compact"}
BUDGET_S = 2.5  # Claude Code's hook runs under a 3-second budget; leave room for interpreter exit


def read_event(stream) -> dict:
    """The hook's JSON input; anything unreadable counts as an empty event."""
    try:
        data = json.loads(stream.read() or "{}")
    except (ValueError, OSError):
        return {}
    return data if isinstance(data, dict) else {}


def hook_output(context: str) -> str:
    """The SessionStart hook answer Claude Code expects."""
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}})


def _project_root(event: dict, explicit: Optional[str]) -> str:
    candidates = [explicit, os.environ.get("CLAUDE_PROJECT_DIR"), event.get("cwd"), os.getcwd()]
    return next(c for c in candidates if isinstance(c, str) and c)


def _memory_block(project_root: str, global_store: Optional[str], limit: Optional[int]) -> str:
    from memory_apps.config import load_config
    from memory_apps.container_config import default_global_store
    from memory_apps.hook_wiring import HookWiring
    from memory_apps.injection import InjectRequest, run_injection

    settings = load_config(project_root)
    store = os.path.expanduser(global_store) if global_store else default_global_store()
    request = InjectRequest(project_root, store, settings.injection_limit if limit is None else limit)
    return run_injection(request, settings, lambda: HookWiring(settings, store))


def session_start(project_root: Optional[str] = None, global_store: Optional[str] = None,
                  limit: Optional[int] = None, stdin=None, fast_exit: bool = False) -> int:
    """Print the hook JSON for the event on stdin; injection is skipped for clear/compact and on timeout."""
    event = read_event(stdin or sys.stdin)
    context = ""
    if str(event.get("source", "startup")) not in SKIPPED_SOURCES:
        result: dict[str, str] = {}

        def work() -> None:
            try:
                result["block"] = _memory_block(_project_root(event, project_root), global_store, limit)
            except BaseException as exc:  # noqa: BLE001 - the hook must answer whatever happens
                print(f"iflow-memory: hook failed: {type(exc).__name__}: {exc}", file=sys.stderr)

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        worker.join(BUDGET_S)
        if worker.is_alive():
            print("iflow-memory: memory injection exceeded the hook budget; skipped", file=sys.stderr)
        context = result.get("block", "")
    sys.stdout.write(hook_output(context) + "\n")
    sys.stdout.flush()
    if threading.active_count() > 1 or fast_exit:
        sys.stderr.flush()
        os._exit(0)  # no teardown cost; an abandoned worker must neither keep the hook alive nor crash it
    return 0
