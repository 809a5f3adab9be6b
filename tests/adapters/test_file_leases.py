"""FileLeases across real processes: one holder at a time, given back when the holder dies, visible to doctor."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memory_adapters.shared_work.file_leases import FileLeases

HOLDER = textwrap.dedent("""\
    import signal, sys
    from memory_adapters.shared_work.file_leases import FileLeases
    leases = FileLeases(sys.argv[1])
    print("held" if leases.claim(sys.argv[2]) else "refused", flush=True)
    signal.pause()  # held until the test kills this process, however long the test takes
""")


@pytest.fixture
def holder(tmp_path):
    """Start a process that takes a lease and keeps it until killed."""
    started = []

    def start(task: str) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path), task], stdout=subprocess.PIPE,
                                   text=True)
        assert process.stdout.readline().strip() == "held"
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()
        process.wait()


def test_a_lease_held_by_another_process_is_refused_then_free_once_it_dies(tmp_path, holder):
    other = holder("vectors")
    leases = FileLeases(str(tmp_path))

    assert leases.busy("vectors") and not leases.claim("vectors")
    assert [h["pid"] for h in leases.holders()] == [other.pid]
    other.send_signal(signal.SIGKILL)
    other.wait()

    assert not leases.busy("vectors"), "the kernel gave the lease back: no stale lease after kill -9"
    assert leases.claim("vectors")
    leases.release("vectors")


def test_looking_at_leases_never_makes_a_free_lease_unclaimable(tmp_path):
    leases, doctor = FileLeases(str(tmp_path)), FileLeases(str(tmp_path))
    assert leases.claim("import:/p")
    leases.release("import:/p")

    assert doctor.holders() == [] and not doctor.busy("import:/p")
    assert leases.claim("import:/p"), "a released lease is free again"
    assert doctor.holders() == [], "this process's own lease is not 'another process'"
    leases.release("import:/p")


def test_lease_files_are_private_and_never_followed_through_a_symlink(tmp_path):
    leases = FileLeases(str(tmp_path))
    assert leases.claim("vectors")
    leases.release("vectors")
    lock_dir = Path(leases.directory)
    assert oct(lock_dir.stat().st_mode & 0o777) == "0o700"
    assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in lock_dir.iterdir())

    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    for path in lock_dir.iterdir():
        path.unlink()
        os.symlink(target, path)
    assert not FileLeases(str(tmp_path)).claim("vectors"), "a symlinked lock file is refused, not followed"
    assert target.read_text() == "keep me\n"
