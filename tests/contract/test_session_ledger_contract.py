"""Session-ledger contract: what a session was shown is kept per session, added to, forgotten on request and
pruned by age and count; hostile session ids are refused. Time comes from a fake clock: nothing sleeps."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
import threading
from datetime import timedelta
from pathlib import Path

import pytest

from memory_adapters.shared_work.file_session_ledger import FileSessionLedger
from memory_core.errors import StorageError
from memory_core.ports.session_ledger import InvalidSessionId, SessionLedger, SessionShown
from tests.fakes import FakeClock, FakeSessionLedger

HOSTILE_IDS = ["", ".", "..", "../escape", "a/b", "a\\b", ".hidden", "x" * 129, "a\x00b", "line\nbreak",
               "-flag", "sp ace", None, 42]


class SessionLedgerContract:
    """Behaviour every SessionLedger must show; subclasses supply `make_ledger(clock)`."""

    def make_ledger(self, clock):
        raise NotImplementedError

    @pytest.fixture
    def clock(self):
        return FakeClock()

    @pytest.fixture
    def ledger(self, clock):
        return self.make_ledger(clock)

    def test_is_a_session_ledger(self, ledger):
        assert isinstance(ledger, SessionLedger)

    def test_a_new_session_was_shown_nothing(self, ledger):
        shown = ledger.shown("9f1c2d3e-0000-4a4a-8b8b-123456789abc")
        assert shown == SessionShown() and shown.is_empty()

    def test_records_add_up_without_repeats(self, ledger):
        ledger.record("s1", entry_ids=["e1", "e2"], prompt_hashes=["p1"])
        ledger.record("s1", entry_ids=["e2", "e3"], file_paths=["/repo/src/app.py"])
        shown = ledger.shown("s1")
        assert shown.entry_ids == {"e1", "e2", "e3"}
        assert shown.prompt_hashes == {"p1"}
        assert shown.file_paths == {"/repo/src/app.py"}

    def test_sessions_are_kept_apart(self, ledger):
        ledger.record("s1", entry_ids=["e1"])
        ledger.record("s2", entry_ids=["e2"])
        assert ledger.shown("s1").entry_ids == {"e1"}
        assert ledger.shown("s2").entry_ids == {"e2"}

    def test_recording_nothing_is_harmless(self, ledger):
        ledger.record("s1")
        assert ledger.shown("s1").is_empty()

    def test_a_claim_takes_only_what_was_not_shown_and_records_it(self, ledger):
        ledger.record("s1", entry_ids=["e1"])
        assert ledger.claim("s1", ["e1", "e2", "e3", "e4"], 2, prompt_hashes=["p1"], file_paths=["/a.py"]) == \
            ["e2", "e3"]
        shown = ledger.shown("s1")
        assert shown.entry_ids == {"e1", "e2", "e3"} and shown.prompt_hashes == {"p1"}
        assert shown.file_paths == {"/a.py"}
        assert ledger.claim("s1", ["e2", "e3"], 3) == []
        assert ledger.claim("s2", ["e1"], 0, prompt_hashes=["p2"]) == [] and ledger.shown("s2").prompt_hashes == {"p2"}

    def test_start_over_forgets_only_that_session(self, ledger):
        ledger.record("s1", entry_ids=["e1"], prompt_hashes=["p1"], file_paths=["/a.py"])
        ledger.record("s2", entry_ids=["e2"])
        ledger.start_over("s1")
        assert ledger.shown("s1").is_empty()
        assert ledger.shown("s2").entry_ids == {"e2"}
        ledger.record("s1", entry_ids=["e1"])  # shown again after the compaction, recorded again
        assert ledger.shown("s1").entry_ids == {"e1"}

    def test_start_over_of_an_unknown_session_is_harmless(self, ledger):
        ledger.start_over("never-seen")
        assert ledger.shown("never-seen").is_empty()

    def test_prune_drops_sessions_idle_too_long(self, ledger, clock):
        ledger.record("old", entry_ids=["e1"])
        clock.advance(days=3)
        ledger.record("new", entry_ids=["e2"])
        assert ledger.prune(max_age=timedelta(days=2), keep=100) == 1
        assert ledger.shown("old").is_empty()
        assert ledger.shown("new").entry_ids == {"e2"}

    def test_recording_again_keeps_a_session_young(self, ledger, clock):
        ledger.record("busy", entry_ids=["e1"])
        clock.advance(days=3)
        ledger.record("busy", entry_ids=["e2"])
        assert ledger.prune(max_age=timedelta(days=2), keep=100) == 0
        assert ledger.shown("busy").entry_ids == {"e1", "e2"}

    def test_prune_keeps_only_the_newest(self, ledger, clock):
        for name in ("s1", "s2", "s3", "s4"):
            ledger.record(name, entry_ids=[name])
            clock.advance(minutes=1)
        assert ledger.prune(max_age=timedelta(days=30), keep=2) == 2
        assert ledger.shown("s1").is_empty() and ledger.shown("s2").is_empty()
        assert ledger.shown("s3").entry_ids == {"s3"} and ledger.shown("s4").entry_ids == {"s4"}

    def test_prune_of_an_empty_ledger_removes_nothing(self, ledger):
        assert ledger.prune(max_age=timedelta(0), keep=0) == 0

    @pytest.mark.parametrize("session_id", HOSTILE_IDS, ids=repr)
    def test_hostile_session_ids_are_refused(self, ledger, session_id):
        with pytest.raises(InvalidSessionId):
            ledger.record(session_id, entry_ids=["e1"])
        with pytest.raises(InvalidSessionId):
            ledger.shown(session_id)
        with pytest.raises(InvalidSessionId):
            ledger.start_over(session_id)


class TestFakeSessionLedger(SessionLedgerContract):
    def make_ledger(self, clock):
        return FakeSessionLedger(clock)


def _claim_all(store: str, won: list) -> None:
    ledger = FileSessionLedger(store, FakeClock())
    for index in range(20):
        won.extend(ledger.claim("race", [f"e{index}", f"e{index + 1}"], 1))


def _record_many(store: str, worker: int, count: int) -> None:
    ledger = FileSessionLedger(store, FakeClock())
    for index in range(count):
        ledger.record("shared", entry_ids=[f"w{worker}-e{index}"], prompt_hashes=[f"w{worker}-p{index}"])


class TestFileSessionLedger(SessionLedgerContract):
    @pytest.fixture(autouse=True)
    def _store(self, tmp_path):
        self.store = str(tmp_path / "store")

    def make_ledger(self, clock):
        return FileSessionLedger(self.store, clock)

    def test_another_process_sees_the_record(self, ledger, clock):
        ledger.record("s1", entry_ids=["e1"], file_paths=["/repo/a.py"])
        again = FileSessionLedger(self.store, clock)
        assert again.shown("s1") == SessionShown(frozenset({"e1"}), frozenset(), frozenset({"/repo/a.py"}))

    def test_files_are_private(self, ledger):
        ledger.record("s1", entry_ids=["e1"])
        directory = os.path.join(self.store, "sessions")
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(os.path.join(directory, "s1.json")).st_mode) == 0o600

    def test_a_reader_of_an_absent_store_creates_nothing(self, ledger):
        assert ledger.shown("s1").is_empty()
        assert ledger.prune(max_age=timedelta(days=1), keep=10) == 0
        assert not os.path.exists(self.store)

    def test_concurrent_writers_of_one_session_lose_nothing(self, ledger):
        context = multiprocessing.get_context("fork")
        workers = [context.Process(target=_record_many, args=(self.store, worker, 15)) for worker in range(4)]
        for process in workers:
            process.start()
        for process in workers:
            process.join()
        assert [process.exitcode for process in workers] == [0] * 4
        shown = ledger.shown("shared")
        assert shown.entry_ids == {f"w{w}-e{i}" for w in range(4) for i in range(15)}
        assert len(shown.prompt_hashes) == 60

    def test_concurrent_threads_of_one_process_lose_nothing(self, ledger):
        workers = [threading.Thread(target=_record_many, args=(self.store, worker, 15)) for worker in range(4)]
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join()
        assert ledger.shown("shared").entry_ids == {f"w{w}-e{i}" for w in range(4) for i in range(15)}

    def test_claims_racing_in_one_session_never_hand_out_an_entry_twice(self, ledger):
        won: list = []
        workers = [threading.Thread(target=_claim_all, args=(self.store, won)) for _ in range(4)]
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join()
        assert len(won) == len(set(won)) and set(won) <= {f"e{i}" for i in range(21)}
        assert ledger.shown("race").entry_ids == set(won)

    def test_a_linked_session_file_is_never_written_through(self, ledger, tmp_path):
        ledger.record("s1", entry_ids=["e1"])
        target = tmp_path / "precious"
        target.write_text("keep me")
        path = os.path.join(self.store, "sessions", "s2.json")
        os.symlink(target, path)
        with pytest.raises(StorageError):
            ledger.record("s2", entry_ids=["e2"])
        with pytest.raises(StorageError):
            ledger.shown("s2")
        assert target.read_text() == "keep me"

    def test_a_linked_sessions_directory_is_refused(self, tmp_path, clock):
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        os.makedirs(self.store)
        os.symlink(elsewhere, os.path.join(self.store, "sessions"))
        ledger = FileSessionLedger(self.store, clock)
        with pytest.raises(StorageError):
            ledger.record("s1", entry_ids=["e1"])
        with pytest.raises(StorageError):
            ledger.shown("s1")
        assert os.listdir(elsewhere) == []

    def test_a_corrupt_record_reads_as_empty_and_is_replaced(self, ledger):
        ledger.record("s1", entry_ids=["e1"])
        path = os.path.join(self.store, "sessions", "s1.json")
        with open(path, "w") as handle:
            handle.write('{"format": 1, "entries": [')
        assert ledger.shown("s1").is_empty()
        ledger.record("s1", entry_ids=["e2"])
        assert ledger.shown("s1").entry_ids == {"e2"}
        assert json.loads(Path(path).read_text())["entries"] == ["e2"]

    def test_prune_removes_unreadable_records_and_leaves_other_files(self, ledger):
        ledger.record("s1", entry_ids=["e1"])
        directory = os.path.join(self.store, "sessions")
        with open(os.path.join(directory, "broken.json"), "w") as handle:
            handle.write("not json")
        with open(os.path.join(directory, "notes.txt"), "w") as handle:
            handle.write("not a session")
        assert ledger.prune(max_age=timedelta(days=1), keep=10) == 1
        assert sorted(os.listdir(directory)) == [".lock", "notes.txt", "s1.json"]

    def test_the_prompt_text_is_never_stored(self, ledger):
        ledger.record("s1", prompt_hashes=["3f2a9c"])
        raw = Path(self.store, "sessions", "s1.json").read_text()
        assert json.loads(raw)["prompts"] == ["3f2a9c"]
