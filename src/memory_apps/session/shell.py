"""One shell for every session start: settings, store, limit and the deadline, then `run_injection`."""

from __future__ import annotations

import os
import sys
import threading
from typing import Callable, Optional

from memory_core.session.deadline import Deadline

DEADLINE_ENV = "IFLOW_MEMORY_SESSION_DEADLINE_S"


def session_deadline(process_start: bool, seconds: Optional[float] = None) -> Deadline:
    """The session's deadline (`seconds`, default the session start's): counted from the start of the process
    for the hook processes (the interpreter's start-up and imports count too), from now for in-process callers."""
    from memory_apps.wiring.adapter_functions import process_started_at
    from memory_core.session.deadline import MonotonicTicker

    if seconds is None:
        from memory_apps.session.injection import SESSION_DEADLINE_S

        seconds = deadline_seconds(SESSION_DEADLINE_S)
    ticker = MonotonicTicker()
    start = process_started_at() if process_start else ticker.monotonic()
    return Deadline(ticker, start + seconds)


def current_directory() -> str:
    """The working directory, or "" when it was deleted under the process (the session then injects nothing
    and says why, instead of failing)."""
    try:
        return os.getcwd()
    except OSError:
        return ""


def deadline_seconds(default: float, variable: str = DEADLINE_ENV) -> float:
    """The session deadline in seconds: `IFLOW_MEMORY_SESSION_DEADLINE_S` (or `variable`) when it is a number
    (kept within 0.5-60 s; for a hook configured with a longer timeout, or a test whose point is not speed),
    else `default`."""
    raw = os.environ.get(variable, "")
    try:
        value = float(raw)
    except ValueError:
        return default
    return min(max(value, 0.5), 60.0) if value == value else default  # NaN: the default


def answer_session(project_root: str, global_store: Optional[str], limit: Optional[int], deadline: Deadline,
                   emit: Callable[[str], Optional[bool]], watchdog: bool = False,
                   shown_ids: Optional[list] = None, hook: str = "inject", session_id: str = "") -> str:
    """Load the project's settings, run the session start and hand the block to `emit` (once); never raises.
    With `watchdog` (a hook process of its own), the process ends a little after the deadline whatever it waits
    for (see `session_watchdog`), having printed the markdown pipeline's block if the semantic one was not out.
    `shown_ids` receives the ids of the entries the printed block showed."""
    from memory_core.session.progress import SessionProgress

    emitted: list[str] = []
    lock = threading.Lock()
    progress = SessionProgress()
    guard = None
    built: list = []  # the request, once the settings are read (the watchdog's fallback block needs it)

    def emit_once(block: str) -> Optional[bool]:
        with lock:
            if emitted:
                return False
            emitted.append(block)
            shown = emit(block)
        if guard is not None:
            guard.answered.set()
        return shown

    if watchdog:  # first of all: loading settings and modules on a busy machine is watched too
        guard = _start_watchdog(project_root, global_store, limit, built, deadline, progress, emit_once)
    try:
        from memory_apps.config import load_config
        from memory_apps.database_url import configured_url
        from memory_apps.wiring.resolver import hook_wiring
        from memory_apps.session.injection import InjectRequest, run_injection
        from memory_apps.store_paths import global_store_dir

        settings = load_config(project_root)
        store = global_store_dir(global_store)
        request = InjectRequest(project_root, store, settings.injection_limit if limit is None else limit)
        built.append(request)
        if guard is not None:
            guard.server = configured_url(settings.database_url) is not None
        return run_injection(request, settings, lambda: hook_wiring(settings, store, seconds_left=deadline.remaining()),
                             deadline, emit_once, progress=progress, shown_ids=shown_ids, hook=hook,
                             session_id=session_id)
    except BaseException as exc:  # noqa: BLE001 - a session start must never crash its hook
        if not isinstance(exc, KeyboardInterrupt):
            print(f"iflow-memory: injection failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        emit_once("")
        return emitted[0] if emitted else ""
    finally:
        if guard is not None:
            guard.done.set()


def _start_watchdog(project_root: str, global_store: Optional[str], limit: Optional[int], built: list,
                    deadline: Deadline, progress, emit_once: Callable[[str], Optional[bool]]):
    """A daemon thread that ends a hook process stuck past its deadline (a database that stopped answering: no
    client-side read timeout covers that; a machine too busy), answering from markdown first when nothing was
    printed, and letting an import batch being committed finish."""
    from memory_apps.session.watchdog import SessionWatchdog

    def fallback(reason: str) -> Optional[bool]:
        from datetime import datetime, timezone

        from memory_apps.session.injection import InjectRequest, legacy_injection

        request = built[0] if built else None
        if request is None:  # the settings were not even read in time
            from memory_apps.config import load_config
            from memory_apps.store_paths import global_store_dir

            settings = load_config(project_root)
            request = InjectRequest(project_root, global_store_dir(global_store),
                                    settings.injection_limit if limit is None else limit)
        return emit_once(legacy_injection(request, datetime.now(timezone.utc), reason, progress.sources))

    guard = SessionWatchdog(deadline, progress, fallback, silence=lambda: emit_once(""))
    guard.start()
    return guard
