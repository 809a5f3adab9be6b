"""One shell for every session start: settings, store, limit and the deadline, then `run_injection`."""

from __future__ import annotations

import os
import sys
import threading
from typing import Callable, Optional

from memory_core.deadline import Deadline

DEADLINE_ENV = "IFLOW_MEMORY_SESSION_DEADLINE_S"


def session_deadline(process_start: bool) -> Deadline:
    """The session's deadline: counted from the start of the process for the hook processes (the interpreter's
    start-up and imports count too), from now for in-process callers."""
    from memory_adapters.system_clock import process_started_at
    from memory_apps.injection import SESSION_DEADLINE_S
    from memory_core.deadline import MonotonicTicker

    ticker = MonotonicTicker()
    start = process_started_at() if process_start else ticker.monotonic()
    return Deadline(ticker, start + deadline_seconds(SESSION_DEADLINE_S))


def deadline_seconds(default: float) -> float:
    """The session deadline in seconds: `IFLOW_MEMORY_SESSION_DEADLINE_S` when it is a number (kept within
    0.5-60 s; for a hook configured with a longer timeout, or a test whose point is not speed), else `default`."""
    raw = os.environ.get(DEADLINE_ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return default
    return min(max(value, 0.5), 60.0) if value == value else default  # NaN: the default


WATCHDOG_GRACE_S = 0.6
"""How long after its deadline a hook process may still be busy (a server that stopped answering, a write after
the block) before the watchdog answers from markdown, if nothing is out yet, and ends the process."""


def answer_session(project_root: str, global_store: Optional[str], limit: Optional[int], deadline: Deadline,
                   emit: Callable[[str], Optional[bool]], watchdog: bool = False) -> str:
    """Load the project's settings, run the session start and hand the block to `emit` (once); never raises.
    With `watchdog` (a hook process of its own), the process ends WATCHDOG_GRACE_S after the deadline whatever
    it waits for, having printed the markdown pipeline's block if the semantic one was not out yet."""
    emitted: list[str] = []
    lock = threading.Lock()

    def emit_once(block: str) -> Optional[bool]:
        with lock:
            if emitted:
                return False
            emitted.append(block)
            return emit(block)

    try:
        from memory_apps.config import load_config
        from memory_apps.hook_wiring import HookWiring
        from memory_apps.injection import InjectRequest, run_injection
        from memory_apps.store_paths import global_store_dir

        settings = load_config(project_root)
        store = global_store_dir(global_store)
        request = InjectRequest(project_root, store, settings.injection_limit if limit is None else limit)
        if watchdog:
            _start_watchdog(request, deadline, emit_once)
        return run_injection(request, settings, lambda: HookWiring(settings, store, seconds_left=deadline.remaining()),
                             deadline, emit_once)
    except BaseException as exc:  # noqa: BLE001 - a session start must never crash its hook
        if not isinstance(exc, KeyboardInterrupt):
            print(f"iflow-memory: injection failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        emit_once("")
        return emitted[0] if emitted else ""


def _start_watchdog(request, deadline: Deadline, emit_once: Callable[[str], Optional[bool]]) -> None:
    """A daemon timer that ends a hook process stuck past its deadline (a database that stopped answering:
    no client-side read timeout covers that), answering from markdown first when nothing was printed."""
    def fire() -> None:
        try:
            from datetime import datetime, timezone

            from memory_apps.injection import legacy_injection

            print("iflow-memory: the session start did not finish by its deadline (a database that stopped "
                  "answering?); ending it", file=sys.stderr)
            emit_once(legacy_injection(request, datetime.now(timezone.utc), "session start did not finish in time"))
        finally:
            sys.stderr.flush()
            os._exit(0)

    timer = threading.Timer(max(deadline.remaining(), 0.0) + WATCHDOG_GRACE_S, fire)
    timer.daemon = True
    timer.start()
