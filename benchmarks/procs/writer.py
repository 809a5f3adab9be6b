"""One writer process: open the store, wait for the common start, upsert WRITES entries (every fifth one
reinforces one of ten entries every writer shares, so writers contend), print each write's latency as JSON.
Usage: writer.py postgres|sqlite URL|PATH WRITER WRITES START_EPOCH"""

import json
import sys
import time
from datetime import datetime, timezone


def main(backend: str, target: str, writer: int, writes: int, start_at: float) -> None:
    """Run the writes and print {"latencies_ms": [...], "start": t, "end": t}."""
    from memory_core.entries.models import EntryDraft

    if backend == "postgres":
        from memory_adapters.store.postgres.store import PostgresEntryStore
        store = PostgresEntryStore(target)
    else:
        from memory_adapters.store.sqlite.store import SqliteEntryStore
        store = SqliteEntryStore(target)
    drafts = [EntryDraft(name=f"Shared lesson {i % 10}" if i % 5 == 4 else f"Lesson {writer}-{i}",
                         description=(f"Shared lesson {i % 10}: retry the flaky fixture once before failing."
                                      if i % 5 == 4 else f"Writer {writer} learned lesson {i}: keep the "
                                      "migration lock short and retry on deadlock."),
                         reasoning="Observed while benchmarking concurrent writers.", category="patterns",
                         keywords=["retry", "lock", f"w{writer}"]) for i in range(writes)]
    time.sleep(max(0.0, start_at - time.time()))
    started = time.time()
    latencies = []
    for draft in drafts:
        t0 = time.perf_counter()
        store.upsert(draft, datetime.now(timezone.utc))
        latencies.append((time.perf_counter() - t0) * 1000)
    end = time.time()
    store.close()
    print(json.dumps({"latencies_ms": latencies, "start": started, "end": end}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
