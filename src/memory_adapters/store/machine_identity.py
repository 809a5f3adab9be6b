"""Which machine (and global store) a process belongs to, for what a shared server keeps per machine.

The host name is no identity: a laptop's changes with the network, and containers or CI runners share one. A
random id is written once into the global store (`machine-id`, private, never through a link) and read after;
the first of several processes creating it at once wins, and the others read its id.
"""

from __future__ import annotations

import os
import uuid

from memory_adapters.fs.safe_files import read_text_no_follow

MACHINE_ID_FILE = "machine-id"


def _valid(text: str) -> bool:
    return len(text) == 32 and all(c in "0123456789abcdef" for c in text)


def machine_id(global_store: str) -> str:
    """The global store's id: read from its `machine-id` file, created there (with the store) on first use."""
    path = os.path.join(global_store, MACHINE_ID_FILE)
    try:
        known = read_text_no_follow(path).strip()
        if _valid(known):
            return known
    except FileNotFoundError:
        pass
    os.makedirs(global_store, mode=0o700, exist_ok=True)
    new = uuid.uuid4().hex
    temp = f"{path}.{os.getpid()}.{new[:8]}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, (new + "\n").encode("ascii"))
    finally:
        os.close(fd)
    try:
        os.link(temp, path)  # appears whole, and only if no other process's is there already
    except FileExistsError:
        if not _valid(read_text_no_follow(path).strip()):
            os.replace(temp, path)  # a damaged file: this process's id takes its place
    finally:
        if os.path.lexists(temp):
            os.unlink(temp)
    return read_text_no_follow(path).strip()
