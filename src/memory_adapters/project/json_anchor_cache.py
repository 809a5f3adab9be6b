"""JsonAnchorCache: the anchor cache as one private JSON file per project, `<global store>/anchors/<sha256 of the
project identity>.json` (0600, replaced atomically), so a session start re-reads only the cited files that changed."""

from __future__ import annotations

import hashlib
import json
import os
import time
from typing import Mapping, Optional

from memory_adapters.fs.file_identity import SETTLE_NS
from memory_adapters.fs.safe_files import atomic_write_text, read_text_no_follow
from memory_core.ports.anchor_cache import CachedFile
from memory_core.ports.code_files import FileIdentity

VERSION = 1
MAX_FILES = 50_000  # a bound on one file's size; past it the cache simply stops growing


class JsonAnchorCache:
    """Implements AnchorCache under a directory (the global store's `anchors/`)."""

    def __init__(self, directory: str, clock_ns=time.time_ns) -> None:
        self._directory = directory
        self._clock_ns = clock_ns

    def path(self, project: str) -> str:
        """The cache file of one project."""
        return os.path.join(self._directory, hashlib.sha256(project.encode("utf-8")).hexdigest()[:32] + ".json")

    def load(self, project: str) -> dict[str, CachedFile]:
        """What the last check kept ({} when there is no file, or it is unreadable or not this project's)."""
        try:
            data = json.loads(read_text_no_follow(self.path(project)))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("version") != VERSION or data.get("project") != project:
            return {}
        files = data.get("files")
        return {path: cached for path, raw in (files.items() if isinstance(files, dict) else ())
                if isinstance(path, str) and (cached := _cached(raw)) is not None}

    def save(self, project: str, files: Mapping[str, CachedFile]) -> None:
        """Write what a check saw, leaving out files changed too recently for their identity to vouch for them
        (a rewrite within the file system's timestamp granularity keeps the same mtime)."""
        now = self._clock_ns()
        kept = {path: {"identity": list(c.identity), "blob": c.blob, "regions": dict(c.regions)}
                for path, c in files.items()
                if now - max(c.identity.mtime_ns, c.identity.ctime_ns) >= SETTLE_NS}
        if len(kept) > MAX_FILES:
            kept = dict(list(kept.items())[:MAX_FILES])
        try:
            os.makedirs(self._directory, mode=0o700, exist_ok=True)
            atomic_write_text(self.path(project), json.dumps({"version": VERSION, "project": project, "files": kept},
                                                             separators=(",", ":")), mode=0o600, sync=False)
        except OSError:
            pass  # only costs a re-read next time


def _cached(raw: object) -> Optional[CachedFile]:
    if not isinstance(raw, dict):
        return None
    identity, blob, regions = raw.get("identity"), raw.get("blob"), raw.get("regions", {})
    if (not isinstance(identity, list) or len(identity) != 4 or not all(isinstance(v, int) for v in identity)
            or not isinstance(blob, str) or not isinstance(regions, dict)):
        return None
    return CachedFile(FileIdentity(*identity), blob,
                      {k: v for k, v in regions.items() if isinstance(k, str) and (v is None or isinstance(v, str))})
