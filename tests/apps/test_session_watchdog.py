"""The hook process's watchdog (issue 21): past its deadline it never cuts an import batch in half, lets the
session answer after that batch, and says what really held the session up. Driven by a scripted fake clock:
each wait runs what the main thread does meanwhile; no wall clock, no process ends."""

from __future__ import annotations

from memory_apps.session.watchdog import (
    ANSWER_GRACE_S, BATCH_GRACE_S, DONE_GRACE_S, HARD_STOP_S, WATCHDOG_GRACE_S, SessionWatchdog,
)
from memory_core.session.deadline import Deadline
from memory_core.session.progress import IMPORTING, RANKING, SessionProgress


class ScriptedTicker:
    """A fake clock whose waits run what the test scripted for that event first (the session's work meanwhile),
    then report whether the event is set, jumping the clock by the whole timeout when it is not."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now
        self.script: dict[int, list] = {}
        self.waits: list[tuple[str, float]] = []

    def on(self, event, action) -> None:
        """Run `action` during the next wait on `event`."""
        self.script.setdefault(id(event), []).append(action)

    def monotonic(self) -> float:
        return self.now

    def wait(self, event, timeout: float) -> bool:
        actions = self.script.get(id(event), [])
        if actions:
            actions.pop(0)()
        if event.is_set():
            return True
        self.now += timeout
        return False


class Watched:
    """A SessionWatchdog over a scripted clock, recording what it prints and when it ends the process."""

    def __init__(self, server: bool = False) -> None:
        self.ticker = ScriptedTicker()
        self.progress = SessionProgress()
        self.log: list[str] = []
        self.deadline = Deadline(self.ticker, 102.0)
        self.dog = SessionWatchdog(self.deadline, self.progress, lambda reason: self.log.append(f"fallback {reason}"),
                                   server=server, end=lambda status: self.log.append(f"end {status}"))

    def commit(self, entries: int, seconds: float):
        """The session's batch commits after `seconds`."""
        def act():
            self.ticker.now += seconds
            self.progress.batch_ended(entries)
            self.log.append(f"committed {entries}")
        return act

    def answer(self):
        def act():
            self.dog.answered.set()
            self.log.append("session answered")
        return act


def test_a_batch_being_committed_at_the_deadline_is_kept_and_the_session_answers_after_it():
    """Six busy processes: the first import's batch is still being written when the watchdog fires. Ending the
    process then lost the batch (0 entries, every session); now the batch commits and the session's own block
    (ranked from the database) is printed."""
    w = Watched()
    w.progress.enter(IMPORTING)
    w.progress.batch_started(100)
    w.ticker.on(w.progress.batch_ended_event, w.commit(100, seconds=0.9))
    w.ticker.on(w.dog.answered, w.answer())

    reason = w.dog.watch()

    assert reason is None
    assert w.log == ["committed 100", "session answered", "end 0"], "the batch and the answer come before the end"
    assert w.ticker.now <= w.deadline.expires_at + WATCHDOG_GRACE_S + BATCH_GRACE_S + ANSWER_GRACE_S + DONE_GRACE_S


def test_a_batch_that_commits_but_leaves_no_time_to_rank_gives_the_markdown_block_naming_the_import():
    w = Watched()
    w.progress.enter(IMPORTING)
    w.progress.batch_started(100)
    w.ticker.on(w.progress.batch_ended_event, w.commit(100, seconds=0.8))

    reason = w.dog.watch()

    assert w.log[0] == "committed 100" and w.log[-1] == "end 0"
    assert w.log[1] == f"fallback {reason}"
    assert reason == ("session start did not finish in time: deadline reached while importing the knowledge bank; "
                      "100 entries committed by its import (later sessions resume it)")
    assert "server" not in reason and "stopped answering" not in reason, "a local SQLite file has no server"


def test_a_session_stuck_on_a_local_file_never_blames_a_server_and_a_server_store_may(capsys):
    for server in (False, True):
        w = Watched(server=server)
        w.progress.enter(RANKING)

        reason = w.dog.watch()

        assert reason.startswith("session start did not finish in time: deadline reached while ranking")
        assert ("a database server that stopped answering?" in reason) is server
        assert w.log == [f"fallback {reason}", "end 0"]
        assert "did not finish by its deadline (deadline reached while ranking" in capsys.readouterr().err


def test_a_session_that_finishes_in_time_is_left_alone():
    w = Watched()
    w.ticker.on(w.dog.done, lambda: w.dog.done.set())

    assert w.dog.watch() is None
    assert w.log == [], "nothing printed, the process is not ended by the watchdog"


def test_an_answer_already_out_is_not_replaced_when_a_write_after_it_hangs():
    """The block is out and a recall write hangs (a server gone): the process ends, nothing else is printed."""
    w = Watched(server=True)
    w.dog.answered.set()
    w.progress.enter("writing recalls after the answer")

    assert w.dog.watch() is None
    assert w.log == ["end 0"]


def test_a_batch_that_never_commits_still_ends_the_process_with_the_markdown_block():
    """A server that stopped answering in the middle of a batch: the watchdog waits only its bounded grace."""
    w = Watched(server=True)
    w.progress.enter(IMPORTING)
    w.progress.batch_started(100)

    reason = w.dog.watch()

    assert reason.endswith("0 entries committed by its import (later sessions resume it); "
                           "a database server that stopped answering?")
    assert w.log == [f"fallback {reason}", "end 0"]
    assert w.ticker.now == w.deadline.expires_at + WATCHDOG_GRACE_S + BATCH_GRACE_S


def test_an_import_still_preparing_its_first_batch_at_the_deadline_is_let_commit_it():
    """The loaded laptop of issue 21: the import was still parsing and drafting its first batch when the watchdog
    fired; the batch is let commit, so the next session starts past it."""
    w = Watched()
    w.progress.enter(IMPORTING)

    def prepared_then_committed():
        w.progress.batch_started(12)
        w.commit(12, seconds=0.5)()

    w.ticker.on(w.progress.batch_ended_event, prepared_then_committed)

    reason = w.dog.watch()

    assert w.log[0] == "committed 12" and w.log[-1] == "end 0"
    assert "12 entries committed by its import" in reason


def test_the_markdown_block_is_not_announced_when_the_sessions_own_block_came_out_first(capsys):
    w = Watched()
    w.progress.enter(RANKING)
    w.dog._fallback = lambda reason: False  # noqa: SLF001 - emit_once: the session printed its block meanwhile

    w.dog.watch()

    assert w.log == ["end 0"] and capsys.readouterr().err == ""


def test_the_process_ends_in_any_case_well_within_the_hook_timeout(capsys):
    """The markdown of a very big bank can take seconds to read on a busy machine: whatever still runs, the
    process ends HARD_STOP_S after the deadline, with an empty answer when none is out."""
    w = Watched()
    w.dog._silence = lambda: w.log.append("empty answer")  # noqa: SLF001

    assert w.dog.hard_stop() is True
    assert w.log == ["empty answer", "end 0"]
    assert w.ticker.now == w.deadline.expires_at + HARD_STOP_S
    assert "answering empty" in capsys.readouterr().err

    answered = Watched()
    answered.dog.answered.set()
    assert answered.dog.hard_stop() is True and answered.log == ["end 0"], "an answer already out is kept"

    finished = Watched()
    finished.ticker.on(finished.dog.done, finished.dog.done.set)
    assert finished.dog.hard_stop() is False and finished.log == []

    writing = Watched()
    writing.dog._silence = lambda: writing.log.append("empty answer")  # noqa: SLF001
    writing.progress.batch_started(100)
    writing.ticker.on(writing.progress.batch_done, writing.commit(100, seconds=0.5))
    assert writing.dog.hard_stop() is True
    assert writing.log == ["empty answer", "committed 100", "end 0"], "the answer first, then the batch is kept"


def test_a_batch_still_written_at_the_hard_stop_cannot_keep_the_process_past_claude_codes_timeout(capsys):
    """A hook process (started at 100, its default 2 s deadline at 102) whose batch never finishes still ends
    before Claude Code's 5-second hook timeout, the empty answer out first."""
    w = Watched()
    w.dog._silence = lambda: w.log.append("empty answer")  # noqa: SLF001
    w.progress.batch_started(100)  # and never committed

    assert w.dog.hard_stop() is True
    assert w.log == ["empty answer", "end 0"]
    assert w.ticker.now < 100.0 + 5.0
