"""The benchmarks' phase timer (benchmarks/common/timer.py): a timed function that was renamed or removed stops
the benchmark instead of silently dropping out of its table, and every function the benchmarks time exists."""

from __future__ import annotations

import pytest

from benchmarks.common.timer import PhaseTimer, TimerTargetMissing


class Store:
    def load(self):
        return self.parse() + 1

    def parse(self):
        return 41

    @staticmethod
    def version():
        return 3


class SubStore(Store):
    pass


def test_a_renamed_method_makes_the_timer_raise():
    with pytest.raises(TimerTargetMissing, match="Store.read"):
        PhaseTimer().wrap(Store, "read", "reading")


def test_a_missing_module_or_function_target_makes_the_timer_raise():
    with pytest.raises(TimerTargetMissing, match="no_such_function"):
        PhaseTimer().wrap_all([("memory_core.ranking.scoring:no_such_function", "scoring")])
    with pytest.raises(TimerTargetMissing, match="memory_core.no_such_module"):
        PhaseTimer().wrap_all([("memory_core.no_such_module:anything", "x")])


def test_a_lenient_timer_lists_what_is_missing_and_times_the_rest():
    timer = PhaseTimer(strict=False)
    timer.wrap(Store, "read", "reading")
    timer.wrap(Store, "parse", "parsing")
    try:
        assert Store().load() == 42
    finally:
        timer.restore()
    assert timer.missing == ["Store.read"]
    assert set(timer.inclusive) == {"parsing"}


def test_nested_timed_calls_are_subtracted_from_the_caller_s_own_time():
    timer = PhaseTimer()
    timer.wrap(Store, "load", "load")
    timer.wrap(Store, "parse", "parse")
    timer.wrap(Store, "version", "version")
    try:
        assert Store().load() == 42
        assert Store.version() == 3 and Store().version() == 3
    finally:
        timer.restore()
    assert set(timer.own) == {"load", "parse", "version"}
    assert timer.own["load"] + timer.inclusive["parse"] == pytest.approx(timer.inclusive["load"])
    assert timer.own["parse"] == pytest.approx(timer.inclusive["parse"])


def test_restore_puts_back_own_and_inherited_methods():
    originals = dict(vars(Store))
    timer = PhaseTimer()
    timer.wrap(SubStore, "parse", "parse")
    timer.wrap(Store, "load", "load")
    assert "parse" in vars(SubStore)
    timer.restore()
    assert "parse" not in vars(SubStore)
    assert dict(vars(Store)) == originals


@pytest.mark.parametrize("module", ["benchmarks.procs.phases", "benchmarks.latency.passes"])
def test_every_function_the_benchmarks_time_exists(module):
    targets = __import__(module, fromlist=["_"])
    timer = PhaseTimer()
    try:
        timer.wrap_all(getattr(targets, "PHASES", None) or targets.PARTS)
    finally:
        timer.restore()
