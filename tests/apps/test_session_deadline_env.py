"""IFLOW_MEMORY_SESSION_DEADLINE_S: a number moves the session deadline (within bounds); anything else is ignored."""

from __future__ import annotations

import pytest

from memory_apps.session.shell import DEADLINE_ENV, deadline_seconds


@pytest.mark.parametrize("raw, expected", [("", 2.0), ("abc", 2.0), ("nan", 2.0), ("5", 5.0), ("0.1", 0.5),
                                           ("1e9", 60.0), ("-3", 0.5)])
def test_the_environment_moves_the_deadline_within_bounds(monkeypatch, raw, expected):
    monkeypatch.setenv(DEADLINE_ENV, raw)
    assert deadline_seconds(2.0) == expected
