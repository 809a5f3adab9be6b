"""Which paths a command may create: only a write creates a global store, and no command creates a project.

Opening a store creates it, and the first opening imports the current project's knowledge bank. That is right
for a write and for a session start (the product's first run), and wrong for a read with a mistyped
`--global-store`: it would leave a new store behind and answer as if it were empty (ADR 14).
"""

from __future__ import annotations

import os
from typing import Optional

DEFAULT_GLOBAL_STORE = os.path.join("~", ".claude", "iflow", "memory")
"""Here, not with the wiring's values: the hooks find their store before importing any settings."""


def default_global_store() -> str:
    """`~/.claude/iflow/memory`, expanded."""
    return os.path.expanduser(DEFAULT_GLOBAL_STORE)


STORE_HELP = f"global store directory (default: {DEFAULT_GLOBAL_STORE})"
"""The help of every command's `--global-store`."""


def global_store_dir(value: Optional[str]) -> str:
    """The global store a `--global-store` value names (the default when it is empty), `~` expanded."""
    return os.path.expanduser(value) if value else default_global_store()


def missing_store(global_store: str) -> Optional[str]:
    """Why a command that stores nothing cannot run on this global store (it does not exist), or None."""
    if os.path.isdir(global_store):
        return None
    return (f"no memory store at {global_store}: nothing has been stored there "
            "(a write, `iflow-memory import` or a session start creates it; check --global-store)")


def missing_project(project_root: str) -> Optional[str]:
    """Why a command cannot use this project directory (it does not exist), or None."""
    if os.path.isdir(project_root):
        return None
    return f"project directory {project_root} does not exist (nothing was created)"


def missing_for_reading(global_store: str, project_root: str) -> Optional[str]:
    """The first of `missing_project` and `missing_store` that applies, or None."""
    return missing_project(project_root) or missing_store(global_store)
