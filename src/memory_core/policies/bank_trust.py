"""Whose knowledge a project's bank is (ADR 23): the user's own files reach every project; a bank committed by
somebody else stays in its repository until the user trusts it. Kept in `_metadata`, so every process agrees."""

from __future__ import annotations

import json
from typing import Optional

from memory_core.ports.bank_authorship import LOCAL, OTHERS, OWN, UNKNOWN
from memory_core.ports.entry_store import EntryStore

TRUSTED = "trusted"
"""The user ran `iflow-memory trust` for the project: its bank is theirs whoever committed it."""
WIDE = frozenset({OWN, LOCAL, TRUSTED})
"""Verdicts whose entries every project's sessions see."""
REASONS = {OWN: "own authorship", LOCAL: "local files (never committed)", TRUSTED: "trusted by command",
           OTHERS: "committed by others", UNKNOWN: "authorship unknown (git did not answer)"}
TRUST_PREFIX = "trusted:"
BANK_PREFIX = "bank:"


def is_trusted(store: EntryStore, identity: str) -> bool:
    """Whether the user trusted this project's bank (`iflow-memory trust`)."""
    return store.get_metadata(TRUST_PREFIX + identity) is not None


def record_trust(store: EntryStore, identity: str, project_root: str, when: str) -> None:
    """Persist the user's trust in a project's bank, so every later import keeps widening it."""
    store.set_metadata(TRUST_PREFIX + identity, json.dumps({"root": project_root, "at": when}))


def record_bank(store: EntryStore, identity: str, project_root: str, verdicts: dict[str, str],
                strangers: tuple[str, ...], when: str) -> None:
    """Remember what the last import decided for each file of the bank (doctor and `list --json` show it)."""
    store.set_metadata(BANK_PREFIX + identity, json.dumps(
        {"root": project_root, "files": verdicts, "others": list(strangers[:3]), "decided_at": when}))


def bank_record(value: Optional[str]) -> Optional[dict]:
    """A bank's recorded decision, or None when the value is missing or unreadable."""
    try:
        data = json.loads(value) if value else None
    except ValueError:
        return None
    return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else None


def explain(verdict: str, strangers: list) -> str:
    """The reason of one verdict in words, naming a few of the other authors when somebody else wrote it."""
    reason = REASONS.get(verdict, verdict)
    return f"{reason}: {', '.join(map(str, strangers[:3]))}" if verdict == OTHERS and strangers else reason
