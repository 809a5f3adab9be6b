"""GitProjectContextSource: active feature files and recent git changes (design C4), and the files a feature
branch changed (the writer's references, spec D9.4); never raises."""

from __future__ import annotations

import glob
import json
import os
import re
import sys
from typing import TYPE_CHECKING, Optional

from memory_adapters.fs.regular_files import read_regular_text
from memory_core.ports.context_source import ProjectContext

if TYPE_CHECKING:
    from memory_core.session.deadline import Deadline

GIT_TIMEOUT_S = 0.75  # two attempts at most; a slow git must not eat the hook budget
MAX_FILES = 20
MAX_WORDS = 100
_FEATURE_NUMBER = re.compile(r"^(\d+)-")


def _feature_number(meta_path: str) -> int:
    match = _FEATURE_NUMBER.match(os.path.basename(os.path.dirname(meta_path)))
    return int(match.group(1)) if match else -1


def find_active_feature(project_root: str) -> tuple[Optional[str], dict]:
    """Return (feature dir, .meta.json data) of the active feature with the highest number."""
    active: list[tuple[int, str, dict]] = []
    for meta_path in glob.glob(os.path.join(glob.escape(project_root), "docs", "features", "*", ".meta.json")):
        try:
            data = json.loads(read_regular_text(meta_path))
        except (OSError, ValueError) as exc:
            print(f"iflow-memory: skipping {meta_path}: {exc}", file=sys.stderr)
            continue
        if isinstance(data, dict) and data.get("status") == "active":
            active.append((_feature_number(meta_path), meta_path, data))
    if not active:
        return None, {}
    active.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return os.path.dirname(active[0][1]), active[0][2]


def _prose(text: str) -> str:
    """Non-heading lines of the text before its first `## ` heading, else its first paragraph after it."""
    head, _, rest = text.partition("\n## ") if not text.startswith("## ") else ("", "", text[3:])
    prose = " ".join(ln for ln in head.splitlines() if not ln.lstrip().startswith("#"))
    if prose.strip():
        return prose
    body = rest.split("\n", 1)[1] if "\n" in rest else ""
    for paragraph in re.split(r"\n\s*\n", body):
        lines = [ln for ln in paragraph.splitlines() if not ln.lstrip().startswith("#")]
        if " ".join(lines).strip():
            return " ".join(lines)
    return ""


def first_paragraph(feature_dir: str) -> Optional[str]:
    """The prose of spec.md (else prd.md) before its first `## ` heading, at most 100 words."""
    for name in ("spec.md", "prd.md"):
        path = os.path.join(feature_dir, name)
        try:
            text = read_regular_text(path)
        except OSError:
            continue
        words = _prose(text).split()[:MAX_WORDS]
        return " ".join(words) or None
    return None


class GitTooSlow(Exception):
    """git did not answer in time; asking again would only cost more."""


MIN_GIT_S = 0.05  # less time than this left: do not start git at all


def _git_diff(project_root: str, base: str, timeout_s: float) -> Optional[list[str]]:
    if timeout_s < MIN_GIT_S:
        raise GitTooSlow()
    import subprocess  # ~3 ms: only in a git checkout, never on a session start outside one

    try:
        result = subprocess.run(
            ["git", "-C", project_root, "diff", "--name-only", f"{base}..HEAD"],
            capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        raise GitTooSlow() from exc
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    return [line for line in result.stdout.splitlines() if line.strip()]


def in_git_work_tree(project_root: str) -> bool:
    """Whether git could find a repository here (a `.git` directory or file in this or a parent directory, or
    GIT_DIR set), searching upwards as git does, never into GIT_CEILING_DIRECTORIES: outside one, no git
    process is started at all."""
    if os.environ.get("GIT_DIR"):
        return True
    ceilings = {os.path.abspath(p) for p in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep) if p}
    directory = os.path.abspath(project_root)
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return True
        parent = os.path.dirname(directory)
        if parent == directory or directory in ceilings or parent in ceilings:
            return False
        directory = parent


def changed_files(project_root: str, deadline: Optional[Deadline] = None) -> list[str]:
    """Files changed in the last 3 commits (else the last 1; none without history); git gets at most 0.75 s
    per attempt, and never more than the deadline leaves."""
    if not in_git_work_tree(project_root):
        return []
    try:
        for base in ("HEAD~3", "HEAD~1"):
            timeout_s = deadline.cap(GIT_TIMEOUT_S) if deadline is not None else GIT_TIMEOUT_S
            files = _git_diff(project_root, base, timeout_s)
            if files is not None:
                return files[:MAX_FILES]
    except GitTooSlow:
        print("iflow-memory: git diff timed out; no file signals this session", file=sys.stderr)
    return []


FEATURE_GIT_TIMEOUT_S = 2.0  # the writer is not on the hook's budget, but a hung git must not hang a retro
DEFAULT_BRANCH_REFS = ("refs/remotes/origin/main", "refs/remotes/origin/master", "refs/heads/main", "refs/heads/master")


def _git_bytes(project_root: str, args: list[str], timeout_s: float) -> Optional[bytes]:
    """stdout of `git -C project_root *args`, or None when git is missing or fails; GitTooSlow past timeout_s."""
    if timeout_s < MIN_GIT_S:
        raise GitTooSlow()
    import subprocess

    try:
        result = subprocess.run(["git", "-C", project_root, *args], capture_output=True, timeout=timeout_s,
                                stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise GitTooSlow() from exc
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None


def _default_branch(git) -> Optional[str]:
    """The full ref origin/HEAD points at, else the first of DEFAULT_BRANCH_REFS that exists."""
    head = (git("symbolic-ref", "--quiet", "refs/remotes/origin/HEAD") or b"").decode(errors="replace").strip()
    if head.startswith("refs/"):
        return head
    listed = (git("for-each-ref", "--format=%(refname)", *DEFAULT_BRANCH_REFS) or b"").decode(errors="replace")
    existing = set(listed.split())
    return next((ref for ref in DEFAULT_BRANCH_REFS if ref in existing), None)


def _branch_name(ref: str) -> str:
    """`main` for refs/heads/main and refs/remotes/origin/main."""
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else ref.split("/", 3)[-1]


def _utf8_paths(output: bytes) -> list[str]:
    paths = []
    for raw in output.split(b"\0"):
        try:
            path = raw.decode("utf-8")
        except UnicodeDecodeError:  # not storable as text; such a path is no use as a reference anyway
            continue
        if path.strip():
            paths.append(path)
    return paths


def feature_branch_files(project_root: str, deadline: Optional[Deadline] = None) -> list[str]:
    """Files the current branch changed since it left the default branch (origin/HEAD, else origin/main,
    origin/master, main, master), relative to the repository root, in git's order, deletions left out; none
    outside a repository, on a detached HEAD, on the default branch or when git fails. Each git call gets at
    most 2 s and never more than the deadline leaves; never raises."""
    if not in_git_work_tree(project_root):
        return []

    def git(*args: str) -> Optional[bytes]:
        timeout_s = deadline.cap(FEATURE_GIT_TIMEOUT_S) if deadline is not None else FEATURE_GIT_TIMEOUT_S
        return _git_bytes(project_root, list(args), timeout_s)

    try:
        current = (git("symbolic-ref", "--quiet", "HEAD") or b"").decode(errors="replace").strip()
        base = _default_branch(git) if current else None
        if base is None or _branch_name(current) == _branch_name(base):  # no feature branch to diff
            return []
        output = git("-c", "diff.relative=false", "diff", "--name-only", "-z", "--no-color", "--no-ext-diff",
                     "--diff-filter=d", f"{base}...HEAD", "--")
    except GitTooSlow:
        print("iflow-memory: git did not answer in time; no references from the branch's diff", file=sys.stderr)
        return []
    return _utf8_paths(output) if output else []


class GitProjectContextSource:
    """Implements ProjectContextSource from `docs/features/*/.meta.json`, spec.md/prd.md and git."""

    def collect(self, project_root: str, deadline: Optional[Deadline] = None) -> ProjectContext:
        """Gather every signal that is there; failures (and a git slower than the deadline) leave a signal out."""
        try:
            feature_dir, meta = find_active_feature(project_root)
            slug = meta.get("slug") if isinstance(meta.get("slug"), str) else None
            phase = meta.get("lastCompletedPhase")
            return ProjectContext(
                feature_slug=slug,
                feature_description=first_paragraph(feature_dir) if feature_dir and slug else None,
                phase=phase if isinstance(phase, str) else None,
                changed_files=changed_files(project_root, deadline),
            )
        except Exception as exc:  # noqa: BLE001 - context is optional; the hook must never fail on it
            print(f"iflow-memory: context collection failed: {exc}", file=sys.stderr)
            return ProjectContext()
