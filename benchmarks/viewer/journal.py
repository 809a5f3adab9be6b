"""A full injection journal for the viewer benchmark: 1,000 records (the journal's KEEP) as the hooks write them,
so the Sessions and Overview pages are timed on what a busy machine holds, not on an empty journal."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

RECORDS = 1000
PROMPTS, FILES = 10, 6
"""A session's hooks besides its start: prompts (3 memories each) and file reads (1 each)."""
NEWEST_SESSION = "bench-session-0000"


def fill_journal(store_dir: Path, entry_ids: list[str], records: int = RECORDS) -> int:
    """Write `records` injections (sessions of one start with 20 memories, then prompts and file reads, the newest
    session NEWEST_SESSION) into the store's journal with the real writer; how many were written."""
    from memory_adapters.shared_work.file_injection_journal import FileInjectionJournal
    from memory_adapters.system_clock import SystemClock
    from memory_core.session.journal import InjectionRecord, ShownMemory

    journal = FileInjectionJournal(str(store_dir), SystemClock())
    now = datetime.now(timezone.utc)
    per_session = 1 + PROMPTS + FILES
    signals = {"meaning": 0.61, "keywords": 0.42, "references": 0.3, "prominence": 0.55}

    def shown(start: int, count: int) -> tuple:
        return tuple(ShownMemory(entry_ids[(start + k) % len(entry_ids)], f"learning {start + k}", "patterns",
                                 0.5 - k / 100, 0.7, signals, "") for k in range(count))

    for n in range(records):
        session, step = divmod(n, per_session)
        at = now - timedelta(hours=6 * session, minutes=per_session - step)
        hook, count = (("session-start", 20) if step == 0 else ("prompt", 3) if step <= PROMPTS else ("file", 1))
        journal.append(InjectionRecord(at, hook, "alpha", f"*Memory: {count} shown | bench*", shown(n, count),
                                       f"bench-session-{session:04d}", "a prompt" if hook == "prompt" else ""))
    return records
