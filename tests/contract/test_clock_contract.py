"""Clock contract: every clock tells timezone-aware UTC time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memory_adapters.system_clock import SystemClock
from memory_core.ports import Clock
from tests.fakes import T0, FakeClock


class ClockContract:
    """Behaviour every Clock must show; subclasses supply `make_clock`."""

    def make_clock(self):
        raise NotImplementedError

    def test_is_a_clock(self):
        assert isinstance(self.make_clock(), Clock)

    def test_now_is_aware_utc(self):
        now = self.make_clock().now()
        assert now.tzinfo is not None
        assert now.utcoffset() == timedelta(0)
        assert now.astimezone(timezone.utc) == now

    def test_time_never_runs_backwards(self):
        clock = self.make_clock()
        first = clock.now()
        assert clock.now() >= first


class TestSystemClock(ClockContract):
    def make_clock(self):
        return SystemClock()

    def test_is_close_to_the_real_time(self):
        assert abs(SystemClock().now() - datetime.now(timezone.utc)) < timedelta(seconds=5)


class TestFakeClock(ClockContract):
    def make_clock(self):
        return FakeClock()

    def test_moves_only_when_told(self):
        clock = FakeClock()
        assert clock.now() == clock.now() == T0
        clock.advance(hours=2)
        assert clock.now() == T0 + timedelta(hours=2)
