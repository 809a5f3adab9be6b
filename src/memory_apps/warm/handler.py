"""What the warm process answers: the same prompt and file hook answers as a hook process, with the model,
the vectors and the wiring kept between calls (`MomentHost(keep_models=True)`)."""

from __future__ import annotations

import threading
from typing import Callable

from memory_apps.session.moment import HOOK_DEADLINE_S, EVENT_NAMES, HookCall, MomentHost
from memory_core.session.deadline import Deadline, MonotonicTicker

MAX_DEADLINE_S = 60.0


def make_handler(store_dir: str) -> Callable[[dict], dict]:
    """The warm server's handler for one store: {hook, event, project_root, defer_to_project, deadline_s} in,
    {"output": hook JSON or ""} out. Records what was shown before it replies: the hook prints the reply."""
    host = MomentHost(keep_models=True)
    ticker = MonotonicTicker()

    def handle(request: dict) -> dict:
        hook, event, root = request.get("hook"), request.get("event"), request.get("project_root")
        if hook not in EVENT_NAMES or not isinstance(event, dict) or not isinstance(root, str):
            return {"error": "not a hook request"}
        try:
            seconds = min(max(float(request.get("deadline_s", HOOK_DEADLINE_S)), 0.0), MAX_DEADLINE_S)
        except (TypeError, ValueError):
            seconds = HOOK_DEADLINE_S
        call = HookCall(hook, event, root, store_dir, bool(request.get("defer_to_project")))
        answer = host.answer(call, Deadline.after(ticker, seconds))
        answer.commit()
        return {"output": answer.output}

    threading.Thread(target=host.warm_up, args=(store_dir,), name="iflow-memory-warm-up", daemon=True).start()
    return handle
