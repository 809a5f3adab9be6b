"""FileInjectionJournal: records kept one private file each, read newest first, pruned by count and age, never
through a link; concurrent appends lose nothing. Time comes from a fake clock: nothing sleeps."""

from __future__ import annotations

import multiprocessing
import os
import stat
import threading
from datetime import timedelta

import pytest

from memory_adapters.shared_work import file_injection_journal as module
from memory_adapters.shared_work.file_injection_journal import FileInjectionJournal
from memory_core.errors import StorageError
from memory_core.ports.session_ledger import InjectionJournal, InjectionSummaries
from memory_core.session.journal import InjectionRecord, InjectionSummary, ShownMemory
from tests.fakes import FakeClock


def _record(clock: FakeClock, session: str = "s1", hook: str = "prompt", trigger: str = "", n: int = 0):
    shown = (ShownMemory(f"{n:016x}", f"learning {n}", "patterns", 0.5, 0.7, {"meaning": 0.8}, ""),)
    return InjectionRecord(clock.now(), hook, "proj", f"*Memory: {n}*", shown, session, trigger)


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def journal(tmp_path, clock):
    return FileInjectionJournal(str(tmp_path / "store"), clock)


def test_is_an_injection_journal(journal):
    assert isinstance(journal, InjectionJournal)


def test_no_journal_reads_as_empty_and_creates_nothing(journal):
    assert journal.recent() == []
    assert not os.path.lexists(journal.directory)


def test_records_come_back_newest_first_whole(journal, clock):
    for n in range(3):
        journal.append(_record(clock, n=n, trigger=f"prompt {n}"))
        clock.advance(seconds=1)
    records = journal.recent()
    assert [r.trigger for r in records] == ["prompt 2", "prompt 1", "prompt 0"]
    assert records[0].shown[0].signals == {"meaning": 0.8} and records[0].shown[0].relevance == 0.7
    assert records[2] == _record(FakeClock(), n=0, trigger="prompt 0")


def test_limit_and_session_filter(journal, clock):
    for n in range(6):
        journal.append(_record(clock, session="a" if n % 2 else "b", n=n))
        clock.advance(seconds=1)
    assert [r.diagnostic for r in journal.recent(2)] == ["*Memory: 5*", "*Memory: 4*"]
    assert [r.diagnostic for r in journal.recent(10, session_id="b")] == ["*Memory: 4*", "*Memory: 2*",
                                                                           "*Memory: 0*"]
    assert journal.recent(0) == []


def test_records_of_one_instant_are_all_kept(journal, clock):
    for n in range(5):
        journal.append(_record(clock, n=n))
    assert len(journal.recent()) == 5


def test_files_are_private(journal, clock):
    journal.append(_record(clock))
    assert stat.S_IMODE(os.lstat(journal.directory).st_mode) == 0o700
    names = os.listdir(journal.directory)
    assert len(names) == 1 and names[0].endswith(".json")
    assert stat.S_IMODE(os.lstat(os.path.join(journal.directory, names[0])).st_mode) == 0o600


def test_malformed_and_foreign_files_are_skipped(journal, clock):
    journal.append(_record(clock, n=1))
    clock.advance(seconds=1)
    journal.append(_record(clock, n=2))
    for name, text in [("29990101T000000000000Z-bad.json", "{not json"),
                       ("29990101T000000000001Z-list.json", "[1, 2]"),
                       ("29990101T000000000002Z-hook.json", '{"at": "2026-01-01T00:00:00+00:00", "hook": "x", '
                                                             '"project": "p", "diagnostic": ""}')]:
        path = os.path.join(journal.directory, name)
        with open(path, "w") as handle:
            handle.write(text)
        os.chmod(path, 0o600)
    readable = os.path.join(journal.directory, "29990101T000000000003Z-open.json")
    with open(readable, "w") as handle:
        handle.write('{"at": "2026-01-01T00:00:00+00:00", "hook": "prompt", "project": "p", "diagnostic": ""}')
    os.chmod(readable, 0o644)  # readable by others: not one this journal wrote
    os.symlink(os.path.join(journal.directory, sorted(os.listdir(journal.directory))[0]),
               os.path.join(journal.directory, "29990101T000000000004Z-link.json"))
    assert [r.diagnostic for r in journal.recent()] == ["*Memory: 2*", "*Memory: 1*"]


def test_a_linked_journal_directory_is_refused(tmp_path, clock):
    store = tmp_path / "store"
    elsewhere = tmp_path / "elsewhere"
    store.mkdir()
    elsewhere.mkdir(mode=0o700)
    os.symlink(elsewhere, store / "journal")
    journal = FileInjectionJournal(str(store), clock)
    with pytest.raises(StorageError, match="symbolic link"):
        journal.append(_record(clock))
    with pytest.raises(StorageError, match="symbolic link"):
        journal.recent()
    assert os.listdir(elsewhere) == []


def test_prunes_to_the_newest_once_past_the_bound(journal, clock, monkeypatch):
    monkeypatch.setattr(module, "KEEP", 5)
    monkeypatch.setattr(module, "SLACK", 3)
    for n in range(8):
        journal.append(_record(clock, n=n))
        clock.advance(seconds=1)
    assert len(os.listdir(journal.directory)) == 8  # within the slack: no prune yet
    journal.append(_record(clock, n=8))
    assert [r.diagnostic for r in journal.recent()] == [f"*Memory: {n}*" for n in range(8, 3, -1)]


def test_prunes_records_past_thirty_days(journal, clock):
    journal.append(_record(clock, n=1))
    clock.advance(days=20)
    journal.append(_record(clock, n=2))
    clock.advance(days=10, hours=12)
    journal.append(_record(clock, n=3))
    assert len(journal.recent()) == 3  # the oldest is within a day of the limit: left for a later append
    clock.advance(days=1)
    journal.append(_record(clock, n=4))
    assert [r.diagnostic for r in journal.recent()] == ["*Memory: 4*", "*Memory: 3*", "*Memory: 2*"]
    assert journal.prune() == 0


def _append_many(store: str, worker: int, count: int) -> None:
    journal = FileInjectionJournal(store, FakeClock())
    for n in range(count):
        journal.append(_record(FakeClock(), session=f"w{worker}", n=n))


def test_concurrent_appends_lose_nothing(tmp_path):
    store = str(tmp_path / "store")
    threads = [threading.Thread(target=_append_many, args=(store, w, 20)) for w in range(4)]
    processes = [multiprocessing.get_context("fork").Process(target=_append_many, args=(store, w, 20))
                 for w in range(4, 7)]
    for worker in threads + processes:
        worker.start()
    for worker in threads + processes:
        worker.join(timeout=120)
    assert all(p.exitcode == 0 for p in processes)
    records = FileInjectionJournal(store, FakeClock()).recent(1000)
    assert len(records) == 7 * 20
    assert {r.session_id for r in records} == {f"w{w}" for w in range(7)}
    assert not [n for n in os.listdir(os.path.join(store, "journal")) if not n.endswith(".json")]


def test_a_journal_that_is_not_a_directory_is_a_storage_error(tmp_path, clock):
    store = tmp_path / "store"
    store.mkdir()
    (store / "journal").write_text("in the way")
    with pytest.raises(StorageError):
        FileInjectionJournal(str(store), clock).append(_record(clock))


def test_a_dead_writers_temp_file_goes_at_the_next_prune(journal, clock):
    journal.append(_record(clock))
    dead = multiprocessing.get_context("fork").Process(target=lambda: None)
    dead.start()
    dead.join()
    left = os.path.join(journal.directory, f".x.json.tmp-{dead.pid}-1")
    live = os.path.join(journal.directory, f".y.json.tmp-{os.getpid()}-1")
    for path in (left, live):
        with open(path, "w") as handle:
            handle.write("{half")
    assert len(journal.recent()) == 1  # a temp file is never read as a record
    journal.prune()
    assert not os.path.exists(left) and os.path.exists(live)


def test_summaries_count_memories_newest_first_and_read_only_new_files(journal, clock, monkeypatch):
    assert journal.summaries() == [] and isinstance(journal, InjectionSummaries)
    for n in range(3):
        journal.append(_record(clock, session=f"s{n}", n=n))
        clock.advance(seconds=1)
    first = journal.summaries()
    assert [(s.session_id, s.shown, s.diagnostic) for s in first] == [
        ("s2", 1, "*Memory: 2*"), ("s1", 1, "*Memory: 1*"), ("s0", 1, "*Memory: 0*")]
    later = FakeClock()
    later.advance(seconds=2)
    assert first[0] == InjectionSummary.of(_record(later, session="s2", n=2))

    read = []
    real = module._summary
    monkeypatch.setattr(module, "_summary", lambda name, fd: read.append(name) or real(name, fd))
    journal.append(_record(clock, session="s3", n=3))
    assert [s.session_id for s in journal.summaries()] == ["s3", "s2", "s1", "s0"]
    assert len(read) == 1, "the kept summaries are reused; only the new file is read"
    assert [s.session_id for s in FileInjectionJournal(journal.directory[:-len("/journal")], clock).summaries()] \
        == ["s3", "s2", "s1", "s0"], "another instance on the same journal shares them"
    assert len(read) == 1


def test_a_pruned_or_malformed_file_leaves_the_summaries(journal, clock):
    for n in range(2):
        journal.append(_record(clock, session=f"s{n}", n=n))
        clock.advance(seconds=1)
    assert len(journal.summaries()) == 2
    oldest = sorted(os.listdir(journal.directory))[0]
    os.unlink(os.path.join(journal.directory, oldest))
    with open(os.path.join(journal.directory, "20991231T000000000000Z-bad.json"), "w") as handle:
        handle.write('{"hook": "nope"}')
    os.chmod(os.path.join(journal.directory, "20991231T000000000000Z-bad.json"), 0o600)
    assert [s.session_id for s in journal.summaries()] == ["s1"]


def test_one_session_is_read_from_its_own_files_only(journal, clock, monkeypatch):
    for n in range(6):
        journal.append(_record(clock, session="a" if n % 2 else "b", n=n))
        clock.advance(seconds=1)
    journal.summaries()
    read = []
    real = module._read
    monkeypatch.setattr(module, "_read", lambda name, fd, sid=None: read.append(name) or real(name, fd, sid))
    assert [r.diagnostic for r in journal.recent(10, "a")] == ["*Memory: 5*", "*Memory: 3*", "*Memory: 1*"]
    assert len(read) == 3
