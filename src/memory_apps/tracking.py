"""Writes `.last-injection.json` (spec 002 component 5) atomically."""

from __future__ import annotations

import json
import os
import sys

from memory_adapters.temp_files import remove_abandoned_temps, temp_path, unlink_quietly

TRACKING_FILENAME = ".last-injection.json"


def write_tracking(global_store: str, record: dict) -> None:
    """Replace the tracking file with `record`; a failure only warns."""
    target = os.path.join(global_store, TRACKING_FILENAME)
    temp = temp_path(target)
    try:
        os.makedirs(global_store, mode=0o700, exist_ok=True)
        remove_abandoned_temps(target, legacy_pattern=".last-injection.*[!n]")  # also mkstemp names of old versions
        handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(record, out, indent=2, ensure_ascii=False)
            out.write("\n")
        os.replace(temp, target)
    except OSError as exc:
        unlink_quietly(temp)
        print(f"iflow-memory: cannot write tracking file: {exc}", file=sys.stderr)
