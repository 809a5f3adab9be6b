"""The stress run shared by the suite (seconds) and scripts/stress.py (minutes): writer processes, library hosts
with several services per process (one service per request, too) and session starts on one store, then exact
checks: no lost update, no error, database ⇔ markdown agreement, and (SQLite) no false quarantine.

On PostgreSQL (`database_url`) the processes are spread over two machines (each its own global store and
checkout) sharing one server database: each machine's markdown holds exactly the entries its processes wrote,
and the last write of an entry left the database's count in the markdown of the machine that made it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Optional

from tests.integration._agreement import FIELDS, assert_agree, database_state, markdown_ids

POOL = 30
# Each worker thread writes at least this often, however long that takes: on a slow machine the run lasts longer
# instead of checking fewer writes.
MIN_WRITES = 8
MIN_SESSIONS = 3  # session starts beside the writers, however slow each is
HUNG_S = 300  # a process that takes longer has hung (a session start waits at most 60 s for its deadline)
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
        writes = 0
        while time.monotonic() < deadline or writes < """ + str(MIN_WRITES) + """:
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
                writes += 1
                with lock:
                    counts[stored.entry_id] = counts.get(stored.entry_id, 0) + 1
            except Exception as exc:  # every failure is reported, none is tolerated
                writes += 1  # counted as an attempt, so that a failing store cannot keep the loop going
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(3 if role == "host" else 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"counts": counts, "errors": errors[:5], "error_count": len(errors)}), flush=True)
""")


class Machine:
    """One engineer's machine: a global store and a checkout of the project with its knowledge bank."""

    def __init__(self, root: Path) -> None:
        self.store, self.project = root / "store", root / "app"
        self.store.mkdir(mode=0o700, parents=True, exist_ok=True)  # the hosts read it: only writes create one
        (self.project / "docs" / "knowledge-bank").mkdir(parents=True, exist_ok=True)
        (self.project / ".claude").mkdir(exist_ok=True)
        (self.project / ".claude" / "iflow-dev.local.md").write_text("memory_embedding_provider: none\n",
                                                                      encoding="utf-8")

    @property
    def bank(self) -> Path:
        """The project's knowledge bank."""
        return self.project / "docs" / "knowledge-bank"


def run_stress(root: Path, seconds: float, env: dict, python: str = sys.executable,
               database_url: Optional[str] = None) -> dict:
    """Run the mix for `seconds` under `root` (on the PostgreSQL database `database_url`, from two machines, when
    given); returns a summary (raises AssertionError on any broken promise)."""
    if database_url:
        env = dict(env, IFLOW_MEMORY_DATABASE_URL=database_url)
        machines = [Machine(root / "alice"), Machine(root / "bob")]
    else:
        machines = [Machine(root)]
    (root / "home").mkdir(exist_ok=True)
    script = root / "stress_worker.py"
    script.write_text(WORKER, encoding="utf-8")
    roles = ["writer"] * 3 + ["host"] * 3
    where = [machines[seed % len(machines)] for seed in range(len(roles))]
    workers = [subprocess.Popen([python, str(script), role, str(where[seed].store), str(where[seed].project),
                                 str(seed), str(seconds)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for seed, role in enumerate(roles)]
    sessions, session_problems = 0, []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline or sessions < MIN_SESSIONS:
        machine = machines[sessions % len(machines)]
        started = subprocess.run([python, "-m", "memory_apps.injector", "--project-root", str(machine.project),
                                  "--global-store", str(machine.store), "--limit", "10"], env=env,
                                 cwd=str(machine.project), capture_output=True, text=True, timeout=HUNG_S)
        sessions += 1
        if started.returncode != 0 or "semantic: fallback" in started.stdout or "Traceback" in started.stderr \
                or "database unavailable" in started.stdout:
            session_problems.append(started.stdout[:300] + started.stderr[-300:])
    expected: Counter = Counter()
    written: dict[int, set] = {id(m): set() for m in machines}
    errors: list[str] = []
    for seed, worker in enumerate(workers):
        out, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err[-2000:]
        report = json.loads(out.strip().splitlines()[-1])
        expected.update(report["counts"])
        written[id(where[seed])] |= set(report["counts"])
        errors += report["errors"]
    assert errors == [], errors
    assert session_problems == [], session_problems[:3]
    if database_url:
        state = _server_state(database_url)
    else:
        store = machines[0].store
        assert not list(store.glob("memory.db.corrupt-*")) and not list(store.glob("memory.db.foreign-*")), \
            "a healthy database was moved aside"
        state = database_state(store / "memory.db")
    counts = {i: state[i][4] for i in expected}
    assert counts == dict(expected), "an update was lost or counted twice"
    if database_url:
        _assert_agree_per_machine(state, [(m, written[id(m)]) for m in machines])
    else:
        assert_agree(machines[0].store / "memory.db", machines[0].bank, machines[0].store)
    return {"seconds": seconds, "writes": sum(expected.values()), "entries": len(expected), "sessions": sessions,
            "machines": len(machines)}


def _server_state(url: str) -> dict[str, tuple]:
    """{id: markdown-carried fields} of every entry on the server (as `database_state` reads a SQLite file)."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(f"SELECT id, {', '.join(FIELDS)} FROM entries").fetchall()
    return {row[0]: (row[1], row[2], row[3] or "", row[4], row[5], row[6], row[7], row[8]) for row in rows}


def _assert_agree_per_machine(state: dict[str, tuple], machines: list[tuple[Machine, set]]) -> None:
    """Each machine's markdown holds exactly what its processes wrote, never a count the database does not
    have yet; the machine of an entry's last write holds the database's count."""
    newest: dict[str, int] = {}
    for machine, ids in machines:
        markdown = markdown_ids(machine.bank, machine.store)
        assert set(markdown) == ids, (f"{machine.store.parent.name}: {len(ids - set(markdown))} written entries "
                                      f"missing, {len(set(markdown) - ids)} entries it did not write")
        ahead = {i: (state[i][4], n) for i, n in markdown.items() if n > state[i][4]}
        assert not ahead, f"{machine.store.parent.name}: markdown counts ahead of the database: {ahead}"
        for i, n in markdown.items():
            newest[i] = max(newest.get(i, 0), n)
    assert set(newest) == set(state), "the machines' markdown and the database hold different entries"
    behind = {i: (state[i][4], newest[i]) for i in state if newest[i] != state[i][4]}
    assert not behind, f"no machine's markdown has the database's count (database, markdown): {behind}"
