"""The blobs git's index holds, read straight from `.git/index` (versions 2 to 4, SHA-1): a session start asks
where a vanished file went without starting git (a process costs more than the whole check of an unchanged tree)."""

from __future__ import annotations

import os
import struct
from typing import Optional

_FIXED = 62  # ctime, mtime, dev, ino, mode, uid, gid, size (4 bytes each but the times: 8), sha-1 (20), flags (2)
_EXTENDED = 0x4000
MAX_INDEX_BYTES = 64 << 20  # a bigger index is left to `git ls-files`


def git_dir(top: str) -> Optional[str]:
    """The repository's git directory for the work tree at `top` (`.git`, or where a `.git` file points)."""
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8") as handle:  # a worktree or submodule: "gitdir: <path>"
            line = handle.readline(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    path = line[len("gitdir:"):].strip()
    return os.path.normpath(os.path.join(top, path))


def sha1_repository(directory: str) -> bool:
    """Whether the repository names objects by SHA-1 (a SHA-256 one's index holds 32-byte ids)."""
    try:
        with open(os.path.join(directory, "config"), "rb") as handle:
            config = handle.read(1 << 20).lower()
    except OSError:
        return False
    return b"objectformat" not in config or b"sha1" in config.split(b"objectformat", 1)[1][:40]


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset encoding (index v4 path prefixes): (value, position after it)."""
    byte = data[pos]
    value = byte & 0x7F
    pos += 1
    while byte & 0x80:
        byte = data[pos]
        value = ((value + 1) << 7) | (byte & 0x7F)
        pos += 1
    return value, pos


def parse_index(data: bytes) -> Optional[dict[str, list[str]]]:
    """{blob id: paths at stage 0} of an index file's bytes; None for a format this reader does not know."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        return None
    blobs: dict[str, list[str]] = {}
    pos, previous = 12, b""
    try:
        for _ in range(count):
            start = pos
            blob = data[start + 40:start + 60].hex()
            flags = struct.unpack(">H", data[start + 60:start + 62])[0]
            pos = start + _FIXED + (2 if flags & _EXTENDED and version >= 3 else 0)
            if version == 4:
                strip, pos = _varint(data, pos)
                end = data.index(b"\0", pos)
                name = previous[:len(previous) - strip] + data[pos:end]
                pos = end + 1
            else:
                end = data.index(b"\0", pos)
                name = data[pos:end]
                pos = start + ((end - start) + 8) // 8 * 8  # NUL-padded to a multiple of eight, one NUL at least
            previous = name
            if (flags >> 12) & 3 == 0 and len(blob) == 40:
                try:
                    blobs.setdefault(blob, []).append(name.decode("utf-8"))
                except UnicodeDecodeError:
                    continue  # such a path is no use as a reference
    except (ValueError, IndexError, struct.error):
        return None
    return blobs


def index_blobs(top: str) -> Optional[dict[str, list[str]]]:
    """The index's {blob id: paths}, or None when it cannot be read here (then `git ls-files` answers)."""
    directory = git_dir(top)
    if directory is None or not sha1_repository(directory):
        return None
    try:
        with open(os.path.join(directory, "index"), "rb") as handle:
            data = handle.read(MAX_INDEX_BYTES + 1)
    except OSError:
        return None
    return parse_index(data) if len(data) <= MAX_INDEX_BYTES else None


def index_token(top: str) -> Optional[str]:
    """A token of the index's and HEAD's stat identities: unchanged, git's answers about renames are the same."""
    directory = git_dir(top)
    if directory is None:
        return None
    parts = []
    for name in ("index", "HEAD"):
        try:
            info = os.stat(os.path.join(directory, name))
        except OSError:
            return None
        parts.append(f"{info.st_ino}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}")
    return "|".join(parts)
