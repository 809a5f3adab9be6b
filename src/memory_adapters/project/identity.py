"""Which project a directory is, stably: the repository's root commit (every clone and worktree of it agrees),
else its `origin` remote without credentials, else the absolute path. Two checkouts that only share a
directory name are different projects."""

from __future__ import annotations

import functools
import os
import re
from typing import Optional

GIT_TIMEOUT_S = 0.5
LEGACY_PREFIX = "name:"  # entries stored before scopes existed name their project by directory name only


def _root_commit(root: str) -> Optional[str]:
    import subprocess  # a session start outside a repository never gets here (project_identity_cache)

    try:
        result = subprocess.run(["git", "-C", root, "rev-list", "--max-parents=0", "HEAD"], capture_output=True,
                                text=True, timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    commits = sorted(line.strip() for line in result.stdout.splitlines() if re.fullmatch(r"[0-9a-f]{40,64}",
                                                                                        line.strip()))
    return commits[0] if result.returncode == 0 and commits else None


def _origin(root: str) -> Optional[str]:
    """The `origin` URL as host/path: no scheme, user, password or `.git` (the same remote, however cloned)."""
    config = os.path.join(root, ".git", "config")
    if not os.path.isfile(config):
        return None  # what reading it would find; a directory without git is not worth importing configparser
    import configparser

    parser = configparser.ConfigParser(strict=False, interpolation=None)
    try:
        parser.read(config, encoding="utf-8")
        url = parser.get('remote "origin"', "url", fallback=None)
    except (configparser.Error, OSError, UnicodeDecodeError):
        return None
    if not url:
        return None
    url = re.sub(r"^[a-z+]+://", "", url.strip())
    url = re.sub(r"^[^@/]*@", "", url)  # user[:password]@
    url = url.replace(":", "/", 1) if re.match(r"^[^/]+:[^/]", url) and "/" not in url.split(":")[0] else url
    return re.sub(r"(\.git)?/*$", "", url).lower() or None


@functools.lru_cache(maxsize=64)
def project_identity(project_root: str) -> str:
    """The project's stable identity: `git:<root commit>`, `remote:<host/path>` or `path:<absolute path>`."""
    root = os.path.realpath(project_root)
    commit = _root_commit(root)
    if commit:
        return f"git:{commit}"
    return identity_without_git(root)


def identity_without_git(project_root: str) -> str:
    """The identity when git gives no root commit: `remote:<host/path>` or `path:<absolute path>`."""
    root = os.path.realpath(project_root)
    origin = _origin(root)
    return f"remote:{origin}" if origin else f"path:{root}"


def project_name(project_root: str) -> str:
    """The project's name: the base name of its root directory (not an identity: two checkouts can share it)."""
    return os.path.basename(os.path.abspath(project_root))


def project_scopes(project_root: str) -> tuple[str, str]:
    """The scopes whose entries this project's sessions see: its identity, and the legacy name-only scope."""
    return project_identity(project_root), LEGACY_PREFIX + project_name(project_root)
