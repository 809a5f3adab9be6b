"""The Review page's keeper: the review computed in a thread, kept with its time, computed again after a change or
when old; a page waits only when it has nothing current to show. Driven by events and a fake clock, never sleeps."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import pytest

from memory_apps.web.review_keeper import ReviewKeeper

LONG = 30.0  # a wait the answer comes well within; never reached on a healthy run


class Gate:
    """A compute that returns 'run N' once let through; it counts its runs."""

    def __init__(self, open_: bool = True) -> None:
        self.runs = 0
        self.entered = threading.Event()
        self.allowed = threading.Event()
        if open_:
            self.allowed.set()

    def __call__(self):
        self.runs += 1
        self.entered.set()
        assert self.allowed.wait(LONG)
        return f"run {self.runs}"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def keeper_of(gate, clock=None, max_age_s=60.0) -> ReviewKeeper:
    return ReviewKeeper(gate, max_age_s=max_age_s, clock=clock or Clock(),
                        now=lambda: datetime(2026, 11, 28, 6, 0, tzinfo=timezone.utc))


def test_nothing_yet_then_the_result():
    gate = Gate(open_=False)
    keeper = keeper_of(gate)

    first = keeper.get(0)
    assert first.kept is None and first.updating and not first.current
    gate.allowed.set()
    answer = keeper.get(LONG)
    assert answer.kept.queues == "run 1" and answer.current and answer.kept.computed_at.hour == 6
    assert keeper.get(0).kept.queues == "run 1" and gate.runs == 1, "kept: not computed again"


def test_a_change_asks_for_a_newer_result_and_waits_for_it():
    gate = Gate()
    keeper = keeper_of(gate)
    assert keeper.get(LONG).kept.queues == "run 1"

    keeper.invalidate()
    assert keeper.get(LONG).kept.queues == "run 2" and gate.runs == 2


def test_a_change_during_a_run_runs_it_again():
    gate = Gate(open_=False)
    keeper = keeper_of(gate)
    keeper.get(0)
    assert gate.entered.wait(LONG)
    keeper.invalidate()  # the running computation started before this change
    gate.allowed.set()

    answer = keeper.get(LONG)
    assert answer.kept.queues == "run 2" and answer.current


def test_an_old_result_is_shown_while_a_newer_one_is_computed():
    gate, clock = Gate(), Clock()
    keeper = keeper_of(gate, clock, max_age_s=60)
    keeper.get(LONG)
    gate.allowed.clear()
    clock.now += 61

    answer = keeper.get(0)
    assert answer.kept.queues == "run 1" and answer.updating and answer.current
    gate.allowed.set()


def test_an_error_with_nothing_to_show_is_raised_and_the_next_request_tries_again():
    calls = []

    def failing():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("database is locked")
        return "run 2"

    keeper = keeper_of(failing)
    with pytest.raises(RuntimeError, match="locked"):
        keeper.get(LONG)
    assert keeper.get(LONG).kept.queues == "run 2"
