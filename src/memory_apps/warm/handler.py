"""What the warm process answers: the same prompt and file hook answers as a hook process, with the model,
the vectors and the wiring kept between calls (`MomentHost(keep_models=True)`).

Two requests per hook call: the question (`hook`, `event`, `project_root`, `deadline_at`), answered with the
output and a token; then, once the hook process printed the output, `{"confirm": token}`, which counts the shown
entries as recalled. An answer never printed (the hook gave up waiting) is never counted.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections import OrderedDict
from typing import Callable, Optional

from memory_apps.session.moment import EVENT_NAMES, HookCall, MomentHost
from memory_core.session.deadline import Deadline, MonotonicTicker

MAX_DEADLINE_S = 60.0
PENDING = 64
"""Answers waiting for their hook's confirmation; older ones are dropped (their hook never printed them)."""


def store_identity(store_dir: str) -> Optional[tuple]:
    """The store directory's and database file's identity: a store deleted and made again is another store."""
    found = []
    for path in (store_dir, os.path.join(store_dir, "memory.db")):
        try:
            info = os.stat(path)
        except OSError:
            found.append(None)
            continue
        found.append((info.st_dev, info.st_ino))
    return None if found[0] is None else tuple(found)


def make_handler(store_dir: str) -> Callable[[dict], dict]:
    """The warm server's handler for one store (replies with `"stop": True` when the server must end: its store
    was removed or replaced under it)."""
    host = MomentHost(keep_models=True)
    ticker = MonotonicTicker()
    pending: OrderedDict[str, Callable[[], None]] = OrderedDict()
    tokens = itertools.count(1)
    identity = [store_identity(store_dir)]

    def handle(request: dict) -> dict:
        now = store_identity(store_dir)
        if now is None or (identity[0][1] is not None and now != identity[0]):
            return {"error": "store replaced", "stop": True}
        identity[0] = now  # the database file may appear after the server started (an empty store)
        token = request.get("confirm")
        if isinstance(token, str):
            commit = pending.pop(token, None)
            if commit is not None:
                commit()
            return {"confirmed": commit is not None}
        hook, event, root = request.get("hook"), request.get("event"), request.get("project_root")
        if hook not in EVENT_NAMES or not isinstance(event, dict) or not isinstance(root, str) \
                or not os.path.isabs(root):
            return {"error": "not a hook request"}
        call = HookCall(hook, event, root, store_dir, bool(request.get("defer_to_project")))
        answer = host.answer(call, Deadline.after(ticker, _seconds_left(request.get("deadline_at"))))
        if not answer.output:
            return {"output": ""}
        key = f"{os.getpid()}-{next(tokens)}"
        pending[key] = answer.commit
        while len(pending) > PENDING:
            pending.popitem(last=False)
        return {"output": answer.output, "token": key}

    threading.Thread(target=host.warm_up, args=(store_dir,), name="iflow-memory-warm-up", daemon=True).start()
    return handle


def _seconds_left(deadline_at: object) -> float:
    """Seconds until the hook's deadline (wall clock, the same machine), within 0-MAX_DEADLINE_S."""
    try:
        return min(max(float(deadline_at) - time.time(), 0.0), MAX_DEADLINE_S)
    except (TypeError, ValueError):
        return 0.0
