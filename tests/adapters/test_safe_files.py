"""safe_files: every file the product rewrites is replaced atomically, privately, and never through a link."""

from __future__ import annotations

import os
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memory_adapters.markdown.audit_trail import MarkdownAuditTrail
from memory_adapters.fs.safe_files import (PRIVATE, UnsafeFile, atomic_write_bytes, atomic_write_text,
                                        read_text_no_follow, replacing, write_private_no_follow)
from memory_adapters.fs.temp_files import temp_path
from memory_core.entries.models import EntryDraft
from memory_core.entries.records import Entry

from tests.conftest import LINK_TARGET_TEXT as SECRET


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".tmp-" in p.name)


def test_a_new_file_is_private_and_complete(tmp_path):
    target = tmp_path / "notes.md"

    atomic_write_text(str(target), "first\n")

    assert target.read_text(encoding="utf-8") == "first\n" and mode(target) == 0o600
    assert leftovers(tmp_path) == []


def test_a_rewritten_file_keeps_its_mode_unless_one_is_given(tmp_path):
    target = tmp_path / "shared.md"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o644)

    atomic_write_text(str(target), "new\n")
    kept = mode(target)
    atomic_write_text(str(target), "newer\n", mode=0o600)

    assert kept == 0o644
    assert target.read_text(encoding="utf-8") == "newer\n" and mode(target) == 0o600


@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-secret", "dangling"])
def test_a_link_is_refused_and_neither_it_nor_its_target_changes(tmp_path, victim, dangling):
    link = tmp_path / "patterns.md"
    if dangling:
        victim.unlink()
    link.symlink_to(victim)

    with pytest.raises(UnsafeFile) as refused:
        atomic_write_text(str(link), "an entry\n")

    assert "symbolic link" in str(refused.value) and str(link) in str(refused.value)
    assert link.is_symlink() and os.readlink(link) == str(victim)
    assert victim.exists() != dangling
    if not dangling:
        assert victim.read_text(encoding="utf-8") == SECRET
    assert leftovers(tmp_path) == []


def test_a_directory_or_fifo_target_is_refused(tmp_path):
    (tmp_path / "dir.md").mkdir()
    os.mkfifo(tmp_path / "fifo.md")

    for name in ("dir.md", "fifo.md"):
        with pytest.raises(UnsafeFile, match="not a regular file"):
            atomic_write_text(str(tmp_path / name), "x")
    assert leftovers(tmp_path) == []


def test_a_link_planted_at_the_temp_name_is_not_written_through(tmp_path, victim):
    target = tmp_path / "patterns.md"
    Path(temp_path(str(target))).symlink_to(victim)

    atomic_write_text(str(target), "an entry\n")

    assert target.read_text(encoding="utf-8") == "an entry\n" and not target.is_symlink()
    assert victim.read_text(encoding="utf-8") == SECRET
    assert leftovers(tmp_path) == []


def test_a_link_the_caller_allows_is_replaced_never_followed(tmp_path, victim):
    link = tmp_path / "memory.db.vectors"
    link.symlink_to(victim)

    atomic_write_bytes(str(link), b"cache", PRIVATE, refuse_links=False, sync=False)

    assert not link.is_symlink() and link.read_bytes() == b"cache" and mode(link) == 0o600
    assert victim.read_text(encoding="utf-8") == SECRET
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("sync", [True, False])
def test_fsync_happens_only_when_asked(tmp_path, monkeypatch, sync):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))

    atomic_write_text(str(tmp_path / "notes.md"), "text\n", sync=sync)

    assert bool(synced) == sync


def test_a_failing_writer_leaves_the_old_file_and_no_temp(tmp_path):
    target = tmp_path / "anti-patterns.md"
    target.write_text("old\n", encoding="utf-8")

    with pytest.raises(RuntimeError):
        with replacing(str(target)) as out:
            out.write(b"half a ")
            raise RuntimeError("the writer died")

    assert target.read_text(encoding="utf-8") == "old\n" and leftovers(tmp_path) == []


def test_create_only_never_replaces_a_file_that_is_there(tmp_path):
    target = tmp_path / "memory.db"
    target.write_text("in use\n", encoding="utf-8")

    with pytest.raises(FileExistsError):
        atomic_write_text(str(target), "restored\n", create_only=True)
    atomic_write_text(str(tmp_path / "new.db"), "restored\n", create_only=True)

    assert target.read_text(encoding="utf-8") == "in use\n" and leftovers(tmp_path) == []
    assert (tmp_path / "new.db").read_text(encoding="utf-8") == "restored\n" and mode(tmp_path / "new.db") == 0o600


def test_reading_refuses_links_and_reads_regular_files(tmp_path, victim):
    regular = tmp_path / "a.md"
    regular.write_text("text\n", encoding="utf-8")
    link = tmp_path / "b.md"
    link.symlink_to(victim)

    assert read_text_no_follow(str(regular)) == "text\n"
    with pytest.raises(UnsafeFile, match="symbolic link"):
        read_text_no_follow(str(link))
    with pytest.raises(FileNotFoundError):
        read_text_no_follow(str(tmp_path / "missing.md"))


def test_a_private_marker_is_written_in_place_but_never_through_a_link(tmp_path, victim):
    marker = tmp_path / "memory.db.verified"
    marker.write_text("a much longer previous fingerprint\n", encoding="utf-8")
    marker.chmod(0o644)
    linked = tmp_path / "other.verified"
    linked.symlink_to(victim)

    write_private_no_follow(str(marker), "{}")
    with pytest.raises(UnsafeFile):
        write_private_no_follow(str(linked), "{}")

    assert marker.read_text(encoding="utf-8") == "{}" and mode(marker) == 0o600
    assert victim.read_text(encoding="utf-8") == SECRET and linked.is_symlink()


def test_a_fifo_marker_fails_instead_of_waiting_for_a_reader(tmp_path):
    fifo = tmp_path / "memory.db.verified"
    os.mkfifo(fifo)

    with pytest.raises(OSError):
        write_private_no_follow(str(fifo), "{}")


def _entry() -> Entry:
    draft = EntryDraft(name="Pin images", description="Pin container images by digest.", category="patterns",
                       source="retro")
    return Entry.from_draft(draft, datetime(2026, 1, 1, tzinfo=timezone.utc))


@pytest.mark.parametrize("operation", ["record", "forget"])
def test_the_audit_trail_refuses_a_linked_bank_file(tmp_path, victim, operation):
    project = tmp_path / "app"
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").symlink_to(victim)
    trail = MarkdownAuditTrail(str(tmp_path / "store"), str(project))

    entry = _entry()
    with pytest.raises(UnsafeFile, match="symbolic link"):
        if operation == "record":
            trail.record(entry)
        else:
            trail.forget(entry.id, entry.category)  # the AuditTrail port forgets by id and category

    assert victim.read_text(encoding="utf-8") == SECRET and (bank / "patterns.md").is_symlink()
