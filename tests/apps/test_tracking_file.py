"""The session tracking file: private, written atomically, never through a link planted in the store."""

from __future__ import annotations

from memory_apps.session.tracking import TRACKING_FILENAME, write_tracking
from tests.adapters.test_safe_files import SECRET, leftovers, mode


def test_the_tracking_file_is_private_and_replaces_a_link(tmp_path, victim):
    store = tmp_path / "store"
    store.mkdir()
    (store / TRACKING_FILENAME).symlink_to(victim)

    write_tracking(str(store), {"entries": ["a"]})

    tracking = store / TRACKING_FILENAME
    assert not tracking.is_symlink() and mode(tracking) == 0o600 and '"entries"' in tracking.read_text()
    assert victim.read_text(encoding="utf-8") == SECRET
    assert leftovers(store) == []
