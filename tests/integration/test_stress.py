"""Three writer processes, three library hosts (three threads each, a new service per request now and then) and
session starts on one store: zero lost updates, no error, database ⇔ markdown agree; on SQLite zero false
quarantines too, on PostgreSQL from two machines sharing the server's database, each with its own markdown.
The suite runs it for seconds; `scripts/stress.py --minutes 5 [--database-url postgresql://…]` runs the long
version."""

from __future__ import annotations

import pytest

from tests._helpers import app_env
from tests.integration._stress import run_stress

pytestmark = pytest.mark.slow


def test_writers_library_hosts_and_sessions_together(tmp_path, backend):
    (tmp_path / "home").mkdir()
    seconds = 8 if backend.is_postgres else 12  # the server takes hundreds of writes in 8 s; the suite's time counts
    summary = run_stress(tmp_path, seconds=seconds, env=app_env(tmp_path / "home"), database_url=backend.url)
    assert summary["writes"] > 30 and summary["sessions"] >= 1
