"""`iflow-memory hook user-prompt-submit` and `hook pre-tool-use`: ask the warm process, else answer cold.

The hook prints Claude Code's hook JSON or nothing, always exits 0, and is out by its deadline (1 s from the
start of the process by default): the warm process answers in milliseconds; without one, this process starts
one for the next call and answers itself, by the keyword path when the model is not loaded in time. A watchdog
ends the process, silent, if anything hangs past the deadline.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Optional

WARM_ENV = "IFLOW_MEMORY_WARM"
"""`off`: neither ask nor start the warm process (every hook answers cold)."""
WARM_SHARE = 0.6
"""Of the time left, what the warm process may take before this process answers cold instead."""
SENT_PROMPT_CHARS = 8_000
"""More than the search reads (`recall.MAX_PROMPT_CHARS`), far less than the warm process's request limit."""
OVERRUN_S = 0.5
"""How long past its deadline a stuck hook process may live before the watchdog ends it."""


def warm_enabled() -> bool:
    """Whether hooks use the warm process (`IFLOW_MEMORY_WARM=off` says no)."""
    return os.environ.get(WARM_ENV, "").strip().lower() not in ("off", "0", "false", "no")


def _watchdog(seconds: float) -> None:
    """End this process, printing nothing more, `seconds` from now (a database or a model that stopped
    answering must not hold up the prompt)."""
    timer = threading.Timer(max(seconds, 0.0), lambda: os._exit(0))
    timer.daemon = True
    timer.start()


def run_moment_hook(hook: str, project_root: Optional[str], global_store: Optional[str],
                    defer_to_project: bool = False, stdin=None) -> int:
    """Answer one prompt or file hook event from stdin on stdout; always exits 0, leaving without teardown."""
    try:
        output = _answer(hook, project_root, global_store, defer_to_project, stdin)
        if output:
            sys.stdout.write(output + "\n")
            sys.stdout.flush()
    except BaseException as exc:  # noqa: BLE001 - a hook must never fail the prompt or the tool call
        if not isinstance(exc, KeyboardInterrupt):
            print(f"iflow-memory: {hook} hook failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    try:
        sys.stderr.flush()
    finally:
        os._exit(0)  # no teardown: a model still loading on its thread must neither delay nor crash the hook


def _answer(hook: str, project_root: Optional[str], global_store: Optional[str], defer_to_project: bool,
            stdin) -> str:
    from memory_apps.session.claude_hook import project_root_of, read_event
    from memory_apps.session.moment import DEADLINE_ENV, HOOK_DEADLINE_S
    from memory_apps.session.shell import deadline_seconds, session_deadline
    from memory_apps.store_paths import global_store_dir

    seconds = deadline_seconds(HOOK_DEADLINE_S, DEADLINE_ENV)
    deadline = session_deadline(process_start=True, seconds=seconds)
    _watchdog(deadline.remaining() + OVERRUN_S)
    event = read_event(stdin or sys.stdin)
    store = global_store_dir(global_store)
    root = project_root_of(event, project_root)
    if isinstance(event.get("prompt"), str) and len(event["prompt"]) > SENT_PROMPT_CHARS:
        event["prompt"] = event["prompt"][:SENT_PROMPT_CHARS]  # a pasted log: only its start is searched anyway
    if warm_enabled():
        from memory_apps.warm.client import ask_warm

        request = {"hook": hook, "event": event, "project_root": root, "defer_to_project": defer_to_project,
                   "deadline_s": round(deadline.remaining(), 3)}
        reply = ask_warm(store, request, timeout=deadline.remaining() * WARM_SHARE)
        if isinstance(reply, dict) and isinstance(reply.get("output"), str):
            return reply["output"]
        if os.path.isdir(store):
            from memory_apps.warm.launcher import start_warm

            start_warm(store)  # for the next call; this one is answered here
    from memory_apps.session.moment import HookCall, MomentHost

    answer = MomentHost().answer(HookCall(hook, event, root, store, defer_to_project), deadline)
    if answer.output:
        sys.stdout.write(answer.output + "\n")
        sys.stdout.flush()
    answer.commit()
    return ""
