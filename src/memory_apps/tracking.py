"""Writes `.last-injection.json` (spec 002 component 5) atomically."""

from __future__ import annotations

import json
import os
import sys
import tempfile

TRACKING_FILENAME = ".last-injection.json"


def write_tracking(global_store: str, record: dict) -> None:
    """Replace the tracking file with `record`; a failure only warns."""
    try:
        os.makedirs(global_store, mode=0o700, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=".last-injection.", dir=global_store)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(record, out, indent=2, ensure_ascii=False)
            out.write("\n")
        os.replace(temp, os.path.join(global_store, TRACKING_FILENAME))
    except OSError as exc:
        print(f"iflow-memory: cannot write tracking file: {exc}", file=sys.stderr)
