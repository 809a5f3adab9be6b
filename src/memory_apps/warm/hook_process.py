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
import time
from typing import Optional

HOOK_DEADLINE_S = 1.0
"""From the start of the hook process: the answer is out by then (the warm process gets its share of it)."""
DEADLINE_ENV = "IFLOW_MEMORY_HOOK_DEADLINE_S"
WARM_ENV = "IFLOW_MEMORY_WARM"
"""`off`: neither ask nor start the warm process (every hook answers cold)."""
WARM_SHARE = 0.6
"""Of the time left, what the warm process may take before this process answers cold instead."""
SENT_PROMPT_CHARS = 8_000
"""More than the search reads (`recall.MAX_PROMPT_CHARS`), far less than the warm process's request limit."""
REPLY_GRACE_S = 0.05
"""How much longer than the warm process's own deadline the hook waits for its reply (the reply's trip)."""
CONFIRM_S = 0.1


def warm_enabled() -> bool:
    """Whether hooks use the warm process (`IFLOW_MEMORY_WARM=off` says no)."""
    return os.environ.get(WARM_ENV, "").strip().lower() not in ("off", "0", "false", "no")


_printing = threading.Lock()


def _watchdog(seconds: float) -> None:
    """End this process, printing nothing more, `seconds` from now (a database or a model that stopped
    answering must not hold up the prompt); an answer being written is finished first, never cut."""
    def end() -> None:
        _printing.acquire()
        os._exit(0)

    timer = threading.Timer(max(seconds, 0.0), end)
    timer.daemon = True
    timer.start()


def _print(output: str) -> bool:
    """Write the hook's one line of JSON; False when stdout is gone."""
    with _printing:
        try:
            sys.stdout.write(output + "\n")
            sys.stdout.flush()
        except (OSError, ValueError):
            return False
    return True


def run_moment_hook(hook: str, project_root: Optional[str], global_store: Optional[str],
                    defer_to_project: bool = False, stdin=None) -> int:
    """Answer one prompt or file hook event from stdin on stdout; always exits 0, leaving without teardown."""
    try:
        _answer(hook, project_root, global_store, defer_to_project, stdin)
    except BaseException as exc:  # noqa: BLE001 - a hook must never fail the prompt or the tool call
        if not isinstance(exc, KeyboardInterrupt):
            print(f"iflow-memory: {hook} hook failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    try:
        sys.stderr.flush()
    finally:
        os._exit(0)  # no teardown: a model still loading on its thread must neither delay nor crash the hook


def sent_event(event: dict, cwd: str) -> dict:
    """The fields of a hook event the answer reads (never a Write's content), with `cwd` made absolute."""
    kept = {k: event[k] for k in ("session_id", "prompt", "tool_name", "source") if k in event}
    if isinstance(kept.get("prompt"), str) and len(kept["prompt"]) > SENT_PROMPT_CHARS:
        kept["prompt"] = kept["prompt"][:SENT_PROMPT_CHARS]  # a pasted log: only its start is searched anyway
    tool_input = event.get("tool_input")
    if isinstance(tool_input, dict) and isinstance(tool_input.get("file_path"), str):
        kept["tool_input"] = {"file_path": tool_input["file_path"]}
    if isinstance(event.get("cwd"), str) and event["cwd"]:
        kept["cwd"] = os.path.join(cwd, event["cwd"])  # the warm process runs in /: nothing relative goes there
    return kept


def _answer(hook: str, project_root: Optional[str], global_store: Optional[str], defer_to_project: bool,
            stdin) -> None:
    from memory_apps.session.claude_hook import project_root_of, read_event
    from memory_apps.session.shell import current_directory, deadline_seconds, session_deadline
    from memory_apps.store_paths import global_store_dir

    seconds = deadline_seconds(HOOK_DEADLINE_S, DEADLINE_ENV)
    deadline = session_deadline(process_start=True, seconds=seconds)
    _watchdog(deadline.remaining())
    here = current_directory()
    event = sent_event(read_event(stdin or sys.stdin), here)
    store = os.path.abspath(global_store_dir(global_store))
    root = project_root_of(event, project_root)
    root = os.path.abspath(os.path.join(here, root)) if root and (here or os.path.isabs(root)) else ""
    if warm_enabled() and root:
        from memory_apps.warm.client import ask_warm

        request = {"hook": hook, "event": event, "project_root": root, "defer_to_project": defer_to_project,
                   "deadline_at": time.time() + deadline.remaining() * WARM_SHARE}
        reply = ask_warm(store, request, timeout=deadline.remaining() * WARM_SHARE + REPLY_GRACE_S)
        if isinstance(reply, dict) and isinstance(reply.get("output"), str):
            if reply["output"] and _print(reply["output"]) and isinstance(reply.get("token"), str):
                ask_warm(store, {"confirm": reply["token"]}, timeout=CONFIRM_S)  # the shown count as recalled
            return
        if os.path.isdir(store):
            from memory_apps.warm.launcher import start_warm

            start_warm(store)  # for the next call; this one is answered here
    from memory_apps.session.moment import HookCall, MomentHost

    answer = MomentHost().answer(HookCall(hook, event, root, store, defer_to_project), deadline)
    if answer.output and _print(answer.output):
        answer.commit()
