"""One shell for every session start: settings, store, limit and the deadline, then `run_injection`."""

from __future__ import annotations

import os
import sys
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


def answer_session(project_root: str, global_store: Optional[str], limit: Optional[int], deadline: Deadline,
                   emit: Callable[[str], Optional[bool]]) -> str:
    """Load the project's settings, run the session start and hand the block to `emit` (once); never raises."""
    emitted: list[str] = []

    def emit_once(block: str) -> Optional[bool]:
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
        return run_injection(request, settings, lambda: HookWiring(settings, store), deadline, emit_once)
    except BaseException as exc:  # noqa: BLE001 - a session start must never crash its hook
        if not isinstance(exc, KeyboardInterrupt):
            print(f"iflow-memory: injection failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        emit_once("")
        return emitted[0] if emitted else ""
