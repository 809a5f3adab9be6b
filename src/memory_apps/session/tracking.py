"""Writes `.last-injection.json` (spec 002 component 5) atomically."""

from __future__ import annotations

import json
import os
import sys

from memory_apps.files import PRIVATE, atomic_write_text
from memory_apps.wiring.adapter_functions import make_store_private

TRACKING_FILENAME = ".last-injection.json"


def write_tracking(global_store: str, record: dict) -> None:
    """Replace the tracking file with `record`; a failure only warns."""
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    notice = make_store_private(global_store)  # every session start: an upgrader's store becomes private here
    if notice:
        print(f"iflow-memory: {notice}", file=sys.stderr)  # stderr: a hook's stdout is its answer
    try:
        os.makedirs(global_store, mode=0o700, exist_ok=True)
        # The store is the user's own: a link there is replaced, and a session start does not wait for fsync.
        atomic_write_text(os.path.join(global_store, TRACKING_FILENAME), text, PRIVATE, refuse_links=False,
                          sync=False, legacy_pattern=".last-injection.*[!n]")  # also mkstemp names of old versions
    except OSError as exc:
        print(f"iflow-memory: cannot write tracking file: {exc}", file=sys.stderr)
