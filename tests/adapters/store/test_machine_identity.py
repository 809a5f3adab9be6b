"""The id a shared server files a machine's owed markdown under: stable, private, one per global store."""

from __future__ import annotations

import os
import stat
import threading

from memory_adapters.store.machine_identity import MACHINE_ID_FILE, machine_id


def test_the_id_is_made_once_kept_private_and_read_back(tmp_path):
    store = tmp_path / "G"
    first = machine_id(str(store))
    assert len(first) == 32 and machine_id(str(store)) == first
    assert stat.S_IMODE(os.stat(store / MACHINE_ID_FILE).st_mode) == 0o600
    assert machine_id(str(tmp_path / "other")) != first


def test_processes_creating_it_at_once_agree(tmp_path):
    store, found = str(tmp_path / "G"), []
    threads = [threading.Thread(target=lambda: found.append(machine_id(store))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found)) == 1 and sorted(os.listdir(store)) == [MACHINE_ID_FILE]


def test_a_damaged_id_file_is_replaced(tmp_path):
    store = tmp_path / "G"
    store.mkdir()
    (store / MACHINE_ID_FILE).write_text("not an id\n", encoding="utf-8")
    made = machine_id(str(store))
    assert len(made) == 32 and (store / MACHINE_ID_FILE).read_text(encoding="utf-8").strip() == made
