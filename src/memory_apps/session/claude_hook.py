"""`iflow-memory hook session-start`: Claude Code's SessionStart hook, always valid JSON, always exit 0."""

from __future__ import annotations

import json
import os
import sys
from typing import Callable, Optional

SKIPPED_SOURCES = {"clear", "compact"}


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


def project_root_of(event: dict, explicit: Optional[str]) -> str:
    """The project a hook answers for: `--project-root`, else $CLAUDE_PROJECT_DIR, else the event's cwd."""
    from memory_apps.session.shell import current_directory

    candidates = [explicit, os.environ.get("CLAUDE_PROJECT_DIR"), event.get("cwd")]
    return next((c for c in candidates if isinstance(c, str) and c), None) or current_directory()


def _project_runs_hook(project: str) -> bool:
    """Whether the project's own Claude Code settings run the hook too (then a user-scope one stays quiet)."""
    from memory_apps.claude.settings import project_hook_file

    try:
        return project_hook_file(project) is not None
    except Exception:  # noqa: BLE001 - settings we cannot make sense of must not cost the session its memory
        return False


def _event_session(event: dict) -> str:
    """The event's session id when it is a usable one, else ''."""
    from memory_core.ports.session_ledger import InvalidSessionId, checked_session_id

    try:
        return checked_session_id(event.get("session_id"))
    except InvalidSessionId:
        return ""


def session_start(project_root: Optional[str] = None, global_store: Optional[str] = None,
                  limit: Optional[int] = None, stdin=None, fast_exit: bool = False,
                  defer_to_project: bool = False, after: Optional[Callable[[str], None]] = None) -> int:
    """Print the hook JSON for the event on stdin; clear/compact inject nothing, nor does a user-scope hook
    (`defer_to_project`) in a project whose own settings run the hook; `after(store)` runs once the answer is
    out. Always exits 0."""
    from memory_apps.session.shell import answer_session, session_deadline

    event = read_event(stdin or sys.stdin)

    def emit(block: str) -> bool:
        try:
            sys.stdout.write(hook_output(block) + "\n")
            sys.stdout.flush()
        except OSError:
            return False
        return True

    root = project_root_of(event, project_root)
    deferred = defer_to_project and _project_runs_hook(root)
    shown: list[str] = []
    if str(event.get("source", "startup")) in SKIPPED_SOURCES or deferred:
        emit("")
    else:
        answer_session(root, global_store, limit, session_deadline(process_start=fast_exit), emit,
                       watchdog=fast_exit, shown_ids=shown, hook="session-start",
                       session_id=_event_session(event))
    if not deferred:  # the project's own hook keeps this session's ledger
        from memory_apps.session.moment import record_session_start
        from memory_apps.store_paths import global_store_dir

        record_session_start(global_store_dir(global_store), event, shown)
        if after is not None:  # e.g. start the prompt hooks' warm process, now that the block is out
            after(global_store_dir(global_store))
    if fast_exit:
        sys.stderr.flush()
        os._exit(0)  # no teardown cost; the embedding worker must neither keep the hook alive nor crash it
    return 0
