"""WarmServer: answers hook requests on a private Unix socket while the model stays loaded (ADR 25).

One server per store and user: it holds the `warm-server` lease (FileLeases) for its whole life, so a second
one exits at once and a crashed one's stale socket is removed only by the next lease holder. It ends itself
after `idle_seconds` without a request, when a request comes from other code (`version`), when its socket file
is removed or replaced, and on SIGTERM; it removes its own socket on the way out.
"""

from __future__ import annotations

import os
import signal
import socket
import stat
import sys
import threading
import time
import traceback
from typing import Callable, Optional

from memory_adapters.shared_work.file_leases import FileLeases
from memory_apps.warm.connection import (RequestTooLarge, encode_reply, parse_request, peer_allowed,
                                         read_request)
from memory_apps.warm.paths import code_version, socket_path
from memory_apps.warm.private_dirs import UnsafeWarmDir, ensure_private_dir

LEASE_TASK = "warm-server"
MAX_CONNECTIONS = 16  # hooks of a few sessions at once; past this a caller goes cold rather than queueing
_BACKLOG = 16

Handler = Callable[[dict], dict]


class WarmServer:
    """Serve `handler` (called one request at a time) for the store until idle, outdated, displaced or stopped.

    `ticker` is the monotonic clock the idle limit is measured on (tests inject one); `poll_seconds` is how
    often the server looks at the clock, its socket file and the stop flag; `read_timeout` bounds how long a
    client may take to send its request."""

    def __init__(self, store_dir: str, handler: Handler, idle_seconds: float = 900.0,
                 ticker: Callable[[], float] = time.monotonic, *, leases: Optional[FileLeases] = None,
                 poll_seconds: float = 1.0, read_timeout: float = 5.0, version: Optional[str] = None) -> None:
        self.store_dir = os.path.abspath(store_dir)
        self.handler = handler
        self.idle_seconds = idle_seconds
        self.ticker = ticker
        self.leases = leases or FileLeases(self.store_dir)
        self.poll_seconds = poll_seconds
        self.read_timeout = read_timeout
        self.version = version if version is not None else code_version()
        self.path = socket_path(self.store_dir)
        self.listening = threading.Event()  # set once the socket accepts connections (tests wait on it)
        self._handler_lock = threading.Lock()  # the handler is not thread-safe
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._stop_reason: Optional[str] = None
        self._last_request = ticker()
        self._threads: list[threading.Thread] = []

    def serve(self) -> str:
        """Run until the server has a reason to end, and return it: `no store`, `lease`, `unsafe`, `idle`,
        `version`, `socket`, `signal`, `accept failed` or `stopped`."""
        if not os.path.isdir(self.store_dir):
            return "no store"
        if not self.leases.claim(LEASE_TASK):
            return "lease"  # another server answers for this store
        try:
            listener = self._bind()
        except (UnsafeWarmDir, OSError) as exc:
            self._log(f"not serving {self.path}: {exc}")
            self.leases.release(LEASE_TASK)
            return "unsafe"
        previous = self._on_sigterm()
        try:
            identity = _identity(self.path)
            self._last_request = self.ticker()
            self.listening.set()
            self._log(f"serving {self.path}")
            self._accept_until_done(listener, identity)
            self._log(f"ended: {self._stop_reason}")
            return self._stop_reason or "stopped"
        finally:
            listener.close()
            if _identity(self.path) == identity:
                _unlink_quietly(self.path)  # still ours: a replaced socket belongs to whoever replaced it
            self._finish_threads()
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
            self.leases.release(LEASE_TASK)

    def stop(self, reason: str = "stopped") -> None:
        """Ask the server to end at its next poll (the first reason given wins)."""
        if self._stop_reason is None:
            self._stop_reason = reason

    def _bind(self) -> socket.socket:
        """Remove a stale socket (only a socket: a link or a file there is refused), bind 0600, listen."""
        ensure_private_dir(os.path.dirname(self.path))
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            info = None
        if info is not None:
            if not stat.S_ISSOCK(info.st_mode):
                raise UnsafeWarmDir(0, "is not a socket; left alone", self.path)
            os.unlink(self.path)  # we hold the lease: no live server owns it
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            old_umask = os.umask(0o177)  # the socket is born 0600: no window where others may connect
            try:
                listener.bind(self.path)
            finally:
                os.umask(old_umask)
            os.chmod(self.path, 0o600)
            listener.listen(_BACKLOG)
            listener.settimeout(self.poll_seconds)
        except BaseException:
            listener.close()
            raise
        return listener

    def _accept_until_done(self, listener: socket.socket, identity: Optional[tuple]) -> None:
        while self._stop_reason is None:
            if self.ticker() - self._last_request >= self.idle_seconds:
                self.stop("idle")
            elif _identity(self.path) != identity:
                self.stop("socket")  # removed or replaced: a new server (or the user) took over
            else:
                self._accept_one(listener)

    def _accept_one(self, listener: socket.socket) -> None:
        try:
            conn, _ = listener.accept()
        except (socket.timeout, InterruptedError):
            return
        except OSError as exc:  # out of descriptors, say: retrying at once would spin; the next hook starts anew
            self._log(f"accept failed: {exc}")
            self.stop("accept failed")
            return
        if not self._slots.acquire(blocking=False):
            conn.close()
            return
        thread = threading.Thread(target=self._serve_connection, args=(conn,), daemon=True,
                                  name="warm-connection")
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def _serve_connection(self, conn: socket.socket) -> None:
        try:
            with conn:
                conn.settimeout(self.read_timeout)
                if not peer_allowed(conn):
                    return
                try:
                    reply = self._answer(read_request(conn))
                except RequestTooLarge:
                    reply = {"error": "request too large"}
                conn.sendall(encode_reply(reply))
        except OSError:
            pass  # a client that timed out or went away: nothing to answer
        finally:
            self._slots.release()

    def _answer(self, raw: bytes) -> dict:
        self._last_request = self.ticker()
        request = parse_request(raw)
        if request is None:
            return {"error": "bad request: not a JSON object"}
        if request.pop("version", None) != self.version:
            self.stop("version")  # the package changed under us: the next hook starts a fresh server
            return {"error": "version"}
        with self._handler_lock:
            try:
                reply = self.handler(request)
            except Exception as exc:
                self._log("handler failed:\n" + traceback.format_exc())
                reply = {"error": f"handler failed: {type(exc).__name__}"}
        if isinstance(reply, dict) and reply.pop("stop", False):
            self.stop(str(reply.get("error", "stopped")))  # e.g. its store was replaced: the next hook starts anew
        self._last_request = self.ticker()
        return reply

    def _on_sigterm(self):
        """Stop on SIGTERM (only the main thread may install handlers; tests run servers in threads)."""
        if threading.current_thread() is not threading.main_thread():
            return None
        return signal.signal(signal.SIGTERM, lambda _signum, _frame: self.stop("signal"))

    def _finish_threads(self) -> None:
        """Let answers in flight be written; a hung handler is left behind (its thread is a daemon)."""
        for thread in self._threads:
            thread.join(timeout=self.read_timeout)

    def _log(self, message: str) -> None:
        try:
            sys.stderr.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} warm server {os.getpid()}: {message}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


def _identity(path: str) -> Optional[tuple]:
    """(device, inode) of the socket file, None when it is gone or is no socket."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISSOCK(info.st_mode) else None


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
