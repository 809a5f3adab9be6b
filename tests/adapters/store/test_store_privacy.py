"""An upgrader's store loses only what others could do with it: the owner's own bits, a link and a file of
someone else's are left as they are."""

from __future__ import annotations

import stat
from pathlib import Path

from memory_adapters.store.privacy import make_store_private


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_a_store_the_user_made_read_only_stays_read_only(tmp_path):
    store = tmp_path / "G"
    store.mkdir()
    (store / "patterns.md").write_text("### Pattern: x\ny\n", encoding="utf-8")
    (store / "patterns.md").chmod(0o444)
    store.chmod(0o555)
    try:
        notice = make_store_private(str(store))
        assert notice and str(store) in notice
        assert "(0555 -> 0500, 0444 -> 0400)" in notice, "the notice names the modes that really changed"
        assert (_mode(store), _mode(store / "patterns.md")) == (0o500, 0o400)
        assert make_store_private(str(store)) is None, "once: a private store costs one lstat"
    finally:
        store.chmod(0o700)


def test_a_linked_store_directory_is_left_alone(tmp_path):
    real = tmp_path / "dotfiles-store"
    real.mkdir(mode=0o755)
    real.chmod(0o755)
    link = tmp_path / "G"
    link.symlink_to(real)

    assert make_store_private(str(link)) is None
    assert _mode(real) == 0o755


def test_an_upgraders_injection_journal_is_made_private_too(tmp_path):
    store = tmp_path / "G"
    journal = store / "journal"
    journal.mkdir(parents=True)
    (journal / "20261128T000000000000Z-0a0b.json").write_text("{}", encoding="utf-8")
    for path, mode in ((journal / "20261128T000000000000Z-0a0b.json", 0o644), (journal, 0o755), (store, 0o755)):
        path.chmod(mode)
    assert make_store_private(str(store))
    assert (_mode(journal), _mode(journal / "20261128T000000000000Z-0a0b.json")) == (0o700, 0o600)
