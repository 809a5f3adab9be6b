"""The stress run shared by the suite (seconds) and scripts/stress.py (minutes): writer processes, library hosts
with several services per process (one service per request, too) and session starts on one store, then exact
checks: no false quarantine, no lost update, no error, database ⇔ markdown agreement."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

from tests.integration._agreement import assert_agree, database_state

POOL = 30
WORKER = textwrap.dedent("""
    import json, random, sys, threading, time
    from memory_apps.config import MemoryConfig
    from memory_apps.service import MemoryService

    role, store, project, seed, seconds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
    settings = MemoryConfig(embedding_provider="none")
    counts, errors, lock = {}, [], threading.Lock()
    deadline = time.monotonic() + seconds

    def text(n):
        return f"Stress learning {n}: keep every write short, retried and counted exactly once."

    def work(thread):
        rng = random.Random(seed * 100 + thread)
        service = MemoryService(global_store=store, project_root=project, settings=settings)
        while time.monotonic() < deadline:
            try:
                if role == "host" and rng.random() < 0.3:
                    service = MemoryService(global_store=store, project_root=project, settings=settings)
                n = rng.randrange(""" + str(POOL) + """)
                if role == "host" and rng.random() < 0.4:
                    service.search("short retried writes", limit=5)
                    service.entries()
                    continue
                stored = service.remember(name=f"Stress {n}", description=text(n), category="patterns",
                                          reasoning=f"role {role} seed {seed}")
                with lock:
                    counts[stored.entry_id] = counts.get(stored.entry_id, 0) + 1
            except Exception as exc:  # every failure is reported, none is tolerated
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(3 if role == "host" else 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"counts": counts, "errors": errors[:5], "error_count": len(errors)}), flush=True)
""")


def run_stress(root: Path, seconds: float, env: dict, python: str = sys.executable) -> dict:
    """Run the mix for `seconds` under `root`; returns a summary (raises AssertionError on any broken promise)."""
    store, project, home = root / "store", root / "app", root / "home"
    (project / "docs" / "knowledge-bank").mkdir(parents=True, exist_ok=True)
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "iflow-dev.local.md").write_text("memory_embedding_provider: none\n", encoding="utf-8")
    home.mkdir(exist_ok=True)
    script = root / "stress_worker.py"
    script.write_text(WORKER, encoding="utf-8")
    workers = [subprocess.Popen([python, str(script), role, str(store), str(project), str(seed), str(seconds)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for seed, role in enumerate(["writer"] * 3 + ["host"] * 3)]
    sessions, session_problems = 0, []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = subprocess.run([python, "-m", "memory_apps.injector", "--project-root", str(project),
                                  "--global-store", str(store), "--limit", "10"], env=env, cwd=str(project),
                                 capture_output=True, text=True, timeout=120)
        sessions += 1
        if started.returncode != 0 or "semantic: fallback" in started.stdout or "Traceback" in started.stderr:
            session_problems.append(started.stdout[:300] + started.stderr[-300:])
    expected: Counter = Counter()
    errors: list[str] = []
    for worker in workers:
        out, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err[-2000:]
        report = json.loads(out.strip().splitlines()[-1])
        expected.update(report["counts"])
        errors += report["errors"]
    assert errors == [], errors
    assert session_problems == [], session_problems[:3]
    assert not list(store.glob("memory.db.corrupt-*")) and not list(store.glob("memory.db.foreign-*")), \
        "a healthy database was moved aside"
    state = database_state(store / "memory.db")
    counts = {i: state[i][4] for i in expected}
    assert counts == dict(expected), "an update was lost or counted twice"
    assert_agree(store / "memory.db", project / "docs" / "knowledge-bank", store)
    return {"seconds": seconds, "writes": sum(expected.values()), "entries": len(expected), "sessions": sessions}
