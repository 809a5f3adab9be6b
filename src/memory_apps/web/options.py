"""What one launch of the viewer was started with: its port, its secrets, whether it may change anything."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field


def new_secret() -> str:
    """A fresh random token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class ViewerOptions:
    """One launch's settings. `token` is the secret in the printed URL (then a cookie); `csrf_token` rides in
    every form; `port` is the bound one (the Host check compares against it)."""

    port: int
    read_only: bool = False
    token: str = field(default_factory=new_secret)
    csrf_token: str = field(default_factory=new_secret)
    project_root: str = ""

    @property
    def allowed_hosts(self) -> tuple[str, ...]:
        """The `Host` values a request may carry: the bound address by IP or as localhost (DNS rebinding)."""
        return (f"127.0.0.1:{self.port}", f"localhost:{self.port}")

    def launch_url(self) -> str:
        """The URL `iflow-memory ui` prints: its first use sets the cookie."""
        return f"http://127.0.0.1:{self.port}/?token={self.token}"
