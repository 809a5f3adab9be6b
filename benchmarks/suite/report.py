"""The report: markdown tables on stdout, the same numbers in results/suite.json (rewritten after every section)."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

from benchmarks.suite.constants import KB_HEAD


class Report:
    """Collects printed sections and the JSON document; writes it to `path` after every section."""

    def __init__(self, arguments: dict, path: Path) -> None:
        self.path = path
        self.data: dict = {"generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                           "arguments": arguments, "sections": {}}

    def out(self, text: str = "") -> None:
        """Print a part of the report."""
        print(text, flush=True)

    def save(self, key: str, value: object) -> None:
        """Store a section's numbers (with the load average now) and rewrite the file."""
        if isinstance(value, dict) and hasattr(os, "getloadavg"):
            value["loadavg_at_save"] = [round(x, 2) for x in os.getloadavg()]
        self.data["sections"][key] = value
        self.write()

    def write(self) -> None:
        """Write the JSON document."""
        self.path.write_text(json.dumps(self.data, indent=2, default=str) + "\n", encoding="utf-8")

    def bank_missing(self, key: str) -> bool:
        """True (and the section noted as skipped) when the real knowledge bank is not beside the project."""
        if KB_HEAD.is_dir():
            return False
        self.out(f"Skipped: {KB_HEAD} not present (clone with ../shared beside the project).")
        self.save(key, {"skipped": f"{KB_HEAD} absent"})
        return True

