"""GitCodeFiles and JsonAnchorCache (issue 24): a real git repository's files read safely, renames found by blob
and by git's rename detection, and the per-project cache private, atomic and settled."""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from memory_adapters.project.git_code_files import MAX_FILE_BYTES, GitCodeFiles, head_commit
from memory_adapters.project.json_anchor_cache import JsonAnchorCache
from memory_core.ports.anchor_cache import AnchorCache, CachedFile
from memory_core.ports.code_files import FileIdentity, StatCodeFiles
from memory_core.session.deadline import Deadline


def git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("def a():\n    return 1\n")
    (root / "src" / "b.py").write_text("def b():\n    return 2\n" * 20)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "one")
    return root


def test_reads_regular_files_only_inside_the_root(repo, tmp_path):
    (tmp_path / "secret").write_text("key")
    os.symlink(tmp_path / "secret", repo / "link.py")
    os.symlink(repo / "src", repo / "linked_dir")
    files = GitCodeFiles(str(repo))
    assert isinstance(files, StatCodeFiles)
    assert files.read("src/a.py") == b"def a():\n    return 1\n"
    for path in ("link.py", "linked_dir/a.py", "../secret", "/etc/passwd", "src", "src/none.py", ""):
        assert files.read(path) is None, path
        assert files.identity(path) is None, path
    assert files.identity("src/a.py").size == len(b"def a():\n    return 1\n")


def test_a_subdirectory_root_reads_from_the_repository_top(repo):
    assert GitCodeFiles(str(repo / "src")).read("src/a.py") is not None


def test_too_big_a_file_is_there_but_not_read(repo):
    (repo / "big.txt").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    files = GitCodeFiles(str(repo))
    assert files.read("big.txt") is None and files.identity("big.txt") is not None


def test_a_moved_file_is_found_by_its_blob_and_an_edited_move_by_git(repo):
    from memory_core.anchors.regions import git_blob_id

    commit = head_commit(str(repo))
    assert len(commit) == 40
    blob_a = git_blob_id((repo / "src" / "a.py").read_bytes())
    blob_b = git_blob_id((repo / "src" / "b.py").read_bytes())
    git(repo, "mv", "src/a.py", "src/renamed.py")
    git(repo, "mv", "src/b.py", "src/b2.py")
    with open(repo / "src" / "b2.py", "a") as out:
        out.write("# edited after the move\n")
    git(repo, "commit", "-qam", "move")
    files = GitCodeFiles(str(repo))
    assert files.renamed_to("src/a.py", blob_a) == "src/renamed.py"
    assert files.renamed_to("src/b.py", blob_b) is None  # no exact blob, and no commit to diff from
    assert files.renamed_to("src/b.py", blob_b, commit) == "src/b2.py"
    assert files.renamed_to("src/b.py", blob_b, "--output=x") is None  # never an option


def test_no_git_no_rename_and_no_head(tmp_path):
    (tmp_path / "plain").mkdir()
    files = GitCodeFiles(str(tmp_path / "plain"))
    assert files.renamed_to("a.py", "0" * 40, "0" * 40) is None
    assert head_commit(str(tmp_path / "plain")) == ""


def test_git_is_not_started_once_the_deadline_has_passed(repo):
    class Spent:
        def monotonic(self):
            return 10.0

        def wait(self, event, timeout):
            return False

    from memory_core.anchors.regions import git_blob_id

    blob = git_blob_id((repo / "src" / "a.py").read_bytes())
    git(repo, "mv", "src/a.py", "src/c.py")
    files = GitCodeFiles(str(repo))
    files.new_check(Deadline(Spent(), 5.0))
    assert files.renamed_to("src/a.py", blob) is None
    files.new_check(None)
    assert files.renamed_to("src/a.py", blob) == "src/c.py"


def test_the_cache_round_trips_privately_and_drops_what_changed_too_recently(tmp_path):
    now = 100 * 10**9
    cache = JsonAnchorCache(str(tmp_path / "anchors"), clock_ns=lambda: now)
    assert isinstance(cache, AnchorCache)
    old = CachedFile(FileIdentity(3, 10**9, 7, 10**9), "b" * 40, {"a.py#f": "r", "a.py:9": None})
    recent = CachedFile(FileIdentity(3, now - 10, 8, now - 10), "c" * 40, {})
    cache.save("git:x", {"a.py": old, "b.py": recent})
    assert cache.load("git:x") == {"a.py": old}
    assert cache.load("git:y") == {}
    path = cache.path("git:x")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with open(path, "w") as out:
        out.write("{not json")
    assert cache.load("git:x") == {}
