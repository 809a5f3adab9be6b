"""Three writer processes, three library hosts (three threads each, a new service per request now and then) and
session starts on one store: zero false quarantines, zero lost updates, no error, database ⇔ markdown agree.
The suite runs it for seconds; `scripts/stress.py --minutes 5` runs the long version."""

from __future__ import annotations

import pytest

from tests.integration._helpers import app_env
from tests.integration._stress import run_stress

pytestmark = pytest.mark.slow


def test_writers_library_hosts_and_sessions_together(tmp_path):
    (tmp_path / "home").mkdir()
    summary = run_stress(tmp_path, seconds=12, env=app_env(tmp_path / "home"))
    assert summary["writes"] > 30 and summary["sessions"] >= 1
