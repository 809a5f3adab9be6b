"""The project identity at a session start without a git process when its answer cannot have changed.

`project_identity` asks git for the repository's root commit: a process of its own at every session start (about
10 ms, more on a busy machine). Outside any repository git would find nothing, so it is not started at all. In a
checkout, the identity found for a HEAD commit is remembered in the global store (`.project-identities.json`,
0600) and reused while HEAD names that commit: the root commits of a commit never change. Anything this module
cannot read plainly (GIT_DIR set, a symbolic ref it does not know, a shallow or grafted history, ...) asks git,
as before.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Optional

from memory_adapters.project.identity import LEGACY_PREFIX, identity_without_git, project_identity, project_name

CACHE_FILENAME = ".project-identities.json"
MAX_REMEMBERED = 64
_COMMIT = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
# Variables that point git somewhere other than the directory it starts in: then only git can say.
_GIT_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_NAMESPACE")


def remembered_project_scopes(project_root: str, store_dir: str) -> tuple[str, str]:
    """`project_scopes(project_root)`, remembered in `store_dir` per checkout and HEAD commit."""
    return remembered_project_identity(project_root, store_dir), LEGACY_PREFIX + project_name(project_root)


def remembered_project_identity(project_root: str, store_dir: str) -> str:
    """`project_identity(project_root)`: git is not started outside a repository, nor for a HEAD commit whose
    identity `store_dir` remembers."""
    if any(os.environ.get(name) for name in _GIT_VARIABLES):
        return project_identity(project_root)
    root = os.path.realpath(project_root)
    git_dir = _find_git_dir(root)
    if git_dir is None:
        return identity_without_git(root)  # git would find no repository here either
    key = _checkout_key(root, git_dir)
    if key is None:
        return project_identity(project_root)
    path = os.path.join(store_dir, CACHE_FILENAME)
    remembered = _read(path)
    identity = remembered.get(key)
    if isinstance(identity, str) and identity.startswith("git:"):
        return identity
    identity = project_identity(project_root)
    if identity.startswith("git:"):  # git answered; a failed lookup is asked again next time, as before
        remembered.pop(key, None)
        remembered[key] = identity
        _write(path, store_dir, dict(list(remembered.items())[-MAX_REMEMBERED:]))
    return identity


def remember_project_identity(project_root: str, store_dir: str, identity: str) -> None:
    """Remember `identity` for the checkout's HEAD commit once the store exists: a project's first session
    creates its store only after the identity was asked of git, so it is remembered after the session."""
    if not identity.startswith("git:") or any(os.environ.get(name) for name in _GIT_VARIABLES):
        return
    root = os.path.realpath(project_root)
    git_dir = _find_git_dir(root)
    key = None if git_dir is None else _checkout_key(root, git_dir)
    if key is None:
        return
    path = os.path.join(store_dir, CACHE_FILENAME)
    remembered = _read(path)
    if remembered.get(key) != identity:
        remembered.pop(key, None)
        remembered[key] = identity
        _write(path, store_dir, dict(list(remembered.items())[-MAX_REMEMBERED:]))


def _is_git_dir(directory: str) -> bool:
    """A repository directory itself (bare, or the inside of `.git`), as git recognises one."""
    return (os.path.isfile(os.path.join(directory, "HEAD")) and os.path.isdir(os.path.join(directory, "objects"))
            and os.path.isdir(os.path.join(directory, "refs")))


def _find_git_dir(root: str) -> Optional[str]:
    """The repository git would find from `root`, searching upwards (ceilings ignored: git may stop earlier,
    never later); the path of a `.git` file is followed. None when there is none at all."""
    directory = root
    while True:
        dot_git = os.path.join(directory, ".git")
        if os.path.isdir(dot_git):
            return dot_git
        if os.path.lexists(dot_git):
            return _linked_git_dir(directory, dot_git) or dot_git
        if _is_git_dir(directory):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _linked_git_dir(directory: str, dot_git: str) -> Optional[str]:
    """The repository a `.git` file names (`gitdir: <path>`, as worktrees and submodules have)."""
    text = _small_text(dot_git)
    if text is None or not text.startswith("gitdir: "):
        return None
    return os.path.join(directory, text[len("gitdir: "):].strip())


def _checkout_key(root: str, git_dir: str) -> Optional[str]:
    """`root` and its HEAD commit, or None when HEAD cannot be read plainly or the history is shallow or
    grafted (where the root commits of a commit can change)."""
    common = git_dir
    pointer = _small_text(os.path.join(git_dir, "commondir"))
    if pointer is not None:
        common = os.path.join(git_dir, pointer.strip())
    if any(os.path.lexists(os.path.join(common, name)) for name in ("shallow", "info/grafts", "refs/replace")):
        return None
    head = _small_text(os.path.join(git_dir, "HEAD"))
    if head is None:
        return None
    head = head.strip()
    if head.startswith("ref: "):
        head = _ref_commit(common, head[len("ref: "):].strip())
    return f"{root}\n{head}" if head and _COMMIT.fullmatch(head) else None


def _ref_commit(common: str, ref: str) -> Optional[str]:
    """The commit a branch names: its loose ref file, else its line in packed-refs."""
    if not ref.startswith("refs/heads/") or ".." in ref:
        return None
    loose = _small_text(os.path.join(common, *ref.split("/")))
    if loose is not None:
        return loose.strip()
    packed = _small_text(os.path.join(common, "packed-refs"), limit=1 << 24)
    for line in (packed or "").splitlines():
        commit, _, name = line.partition(" ")
        if name == ref:
            return commit
    return None


def _small_text(path: str, limit: int = 1 << 16, follow: bool = True) -> Optional[str]:
    """A regular file's text (at most `limit` bytes read), or None (a FIFO is not waited for; with `follow`
    False, a link is not followed: ADR 14)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _read(path: str) -> dict:
    text = _small_text(path, limit=1 << 20, follow=False)
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}  # a damaged cache is only a cache: git answers, and the file is rewritten
    return data if isinstance(data, dict) else {}


def _write(path: str, store_dir: str, remembered: dict) -> None:
    if not os.path.isdir(store_dir):
        return  # only the store's own writes create a store (ADR 14)
    from memory_adapters.fs.safe_files import PRIVATE, atomic_write_text

    try:
        atomic_write_text(path, json.dumps(remembered, indent=0), PRIVATE, refuse_links=False, sync=False)
    except OSError:
        pass  # next time git is asked again
