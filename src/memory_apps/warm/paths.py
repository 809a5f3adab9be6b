"""Where the warm process listens, and the fingerprint of the installed code (stdlib only: hooks import it first).

The socket lives in `<store>/warm/hooks.sock`. An AF_UNIX path holds at most 107 bytes, so a deep store falls
back to a private per-user directory (`$XDG_RUNTIME_DIR/iflow-memory/`, else `/tmp/iflow-memory-<uid>/`) and a
name hashed from the store's real path. Client and server compute the same path from the same environment
(the launcher hands its environment to the server).
"""

from __future__ import annotations

import os
import stat

WARM_DIR = "warm"
SOCKET_NAME = "hooks.sock"
SUN_PATH_MAX = 107  # bytes: sockaddr_un.sun_path is 108 on Linux, 104 on macOS; the longer fallback name fits both
RUNTIME_SUBDIR = "iflow-memory"
TMP_ROOT = "/tmp"  # not $TMPDIR: it can be long (macOS) and the point of the fallback is a short path
_HASHED_NAME_LEN = 24
# The code a warm server runs: when any of its modules changes (an upgrade rewrites them, an editor saves them),
# the fingerprint changes and the server answers {"error": "version"} and exits.
_PACKAGES = ("memory_core", "memory_adapters", "memory_apps")
# What a warm server reads from its environment (the store's URL, providers' keys and hosts, the model cache):
# a hook run with other values gets a server of its own values.
_ENV_PREFIXES = ("IFLOW_MEMORY_", "OLLAMA_", "XDG_CACHE_HOME", "HOME")
_ENV_SUFFIXES = ("_API_KEY",)
_ENV_IGNORED = ("IFLOW_MEMORY_WARM", "IFLOW_MEMORY_HOOK_DEADLINE_S", "IFLOW_MEMORY_SESSION_DEADLINE_S",
                "IFLOW_MEMORY_TEST_WARM_HANDLER")
# The last one only picks a test's handler (memory_apps/warm/__main__.py): a client that does not set it is the
# same code. Counted, every test's first request was answered "version" and the server went on to remove its
# socket a poll later: a race a busy machine lost.
_SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def warm_dir(store_dir: str) -> str:
    """The store's private directory for the warm process (log, start stamp, and the socket when it fits)."""
    return os.path.join(os.path.abspath(store_dir), WARM_DIR)


def socket_path(store_dir: str) -> str:
    """The socket of the store's warm server: `<store>/warm/hooks.sock`, or a hashed name in a per-user
    directory when that path is too long for AF_UNIX. Computes only; creates and checks nothing."""
    preferred = os.path.join(warm_dir(store_dir), SOCKET_NAME)
    if _fits(preferred):
        return preferred
    return os.path.join(fallback_dir(), _hashed_name(store_dir))


def fallback_dir() -> str:
    """The per-user directory for sockets whose preferred path is too long."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime) and os.path.isdir(runtime):
        candidate = os.path.join(runtime, RUNTIME_SUBDIR)
        if _fits(os.path.join(candidate, "x" * (_HASHED_NAME_LEN + 5))):
            return candidate
    return os.path.join(TMP_ROOT, f"{RUNTIME_SUBDIR}-{os.geteuid()}")


def private_dir_ok(directory: str) -> bool:
    """True when `directory` is a real directory (not a link) owned by this user with no group/other access."""
    try:
        info = os.lstat(directory)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()
            and not stat.S_IMODE(info.st_mode) & 0o077)


def code_version() -> str:
    """A fingerprint of the installed code (inode, size and mtime of every module of the three packages) and
    of the environment a server reads: about 1 ms, and no file is read."""
    import zlib  # cheap; hashlib costs ~2 ms (OpenSSL)

    parts = []
    for package in _PACKAGES:
        for folder, _, names in sorted(os.walk(os.path.join(_SOURCE_ROOT, package))):
            for name in sorted(n for n in names if n.endswith(".py")):
                try:
                    info = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                parts.append(f"{name}:{info.st_ino:x}.{info.st_size:x}.{info.st_mtime_ns:x}")
    code = zlib.crc32("/".join(parts).encode())
    wanted = sorted(f"{k}={v}" for k, v in os.environ.items() if k not in _ENV_IGNORED
                    and (k.startswith(_ENV_PREFIXES) or k.endswith(_ENV_SUFFIXES)))
    return f"{len(parts)}.{code:08x}.{zlib.crc32(chr(0).join(wanted).encode('utf-8', 'surrogateescape')):08x}"


def _fits(path: str) -> bool:
    return len(os.fsencode(path)) <= SUN_PATH_MAX


def _hashed_name(store_dir: str) -> str:
    import hashlib  # ~2 ms (OpenSSL), paid only by stores too deep for the preferred path

    real = os.fsencode(os.path.realpath(os.path.abspath(store_dir)))
    return hashlib.sha256(real).hexdigest()[:_HASHED_NAME_LEN] + ".sock"
