"""ProjectContextSource contract, plus the feature-file and git signals of GitProjectContextSource."""

from __future__ import annotations

import json
import subprocess

import pytest

from memory_adapters.project.git_context_source import GitProjectContextSource
from memory_core.ports import ProjectContext, ProjectContextSource
from tests.fakes import FakeContextSource

GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"]


@pytest.fixture(autouse=True)
def _no_parent_repo(tmp_path, monkeypatch):
    """Stop git from finding a repository above tmp_path (the adapter's git inherits this)."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


def git(root, *args: str) -> None:
    subprocess.run([*GIT, "-C", str(root), *args], check=True, capture_output=True)


def repo_with_commits(root, count: int):
    """A repository whose commit i (1-based) adds file_i.txt."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    for i in range(1, count + 1):
        (root / f"file_{i}.txt").write_text(f"{i}\n")
        git(root, "add", f"file_{i}.txt")
        git(root, "commit", "-q", "-m", f"commit {i}")
    return root


def feature(root, dirname: str, meta, spec: str | None = None, prd: str | None = None):
    """Write docs/features/<dirname>/.meta.json (a dict as JSON, a str verbatim) and optional docs."""
    directory = root / "docs" / "features" / dirname
    directory.mkdir(parents=True)
    (directory / ".meta.json").write_text(meta if isinstance(meta, str) else json.dumps(meta))
    if spec is not None:
        (directory / "spec.md").write_text(spec)
    if prd is not None:
        (directory / "prd.md").write_text(prd)
    return directory


def active(slug: str, phase: str = "design") -> dict:
    return {"status": "active", "slug": slug, "lastCompletedPhase": phase}


class ProjectContextSourceContract:
    """Behaviour every ProjectContextSource must show; subclasses supply `make_source()`."""

    def test_is_a_context_source(self):
        assert isinstance(self.make_source(), ProjectContextSource)

    def test_empty_project_gives_an_empty_context(self, tmp_path):
        assert self.make_source().collect(str(tmp_path)) == ProjectContext()

    def test_missing_project_root_does_not_raise(self, tmp_path):
        assert self.make_source().collect(str(tmp_path / "nowhere")) == ProjectContext()


class TestFakeContextSource(ProjectContextSourceContract):
    def make_source(self):
        return FakeContextSource()


class TestGitProjectContextSource(ProjectContextSourceContract):
    def make_source(self):
        return GitProjectContextSource()

    def collect(self, root) -> ProjectContext:
        return self.make_source().collect(str(root))

    # -- active feature ---------------------------------------------------------------------
    def test_active_feature_slug_and_phase(self, tmp_path):
        feature(tmp_path, "007-memory-search", active("memory-search", "specify"))
        context = self.collect(tmp_path)
        assert (context.feature_slug, context.phase) == ("memory-search", "specify")

    def test_inactive_features_are_ignored(self, tmp_path):
        feature(tmp_path, "009-done", {"status": "completed", "slug": "done", "lastCompletedPhase": "finish"})
        assert self.collect(tmp_path).feature_slug is None

    def test_highest_numbered_active_feature_wins(self, tmp_path):
        feature(tmp_path, "003-older", active("older"))
        feature(tmp_path, "012-newer", active("newer", "implement"))
        feature(tmp_path, "020-finished", {"status": "completed", "slug": "finished"})
        context = self.collect(tmp_path)
        assert (context.feature_slug, context.phase) == ("newer", "implement")

    def test_feature_numbers_compare_as_numbers(self, tmp_path):
        feature(tmp_path, "9-nine", active("nine"))
        feature(tmp_path, "10-ten", active("ten"))
        assert self.collect(tmp_path).feature_slug == "ten"

    @pytest.mark.parametrize("broken", ["{not json", "[1, 2]", '"active"', ""])
    def test_malformed_meta_is_skipped(self, tmp_path, broken):
        feature(tmp_path, "001-good", active("good"))
        feature(tmp_path, "050-broken", broken)
        assert self.collect(tmp_path).feature_slug == "good"

    def test_missing_slug_and_phase_leave_those_signals_out(self, tmp_path):
        feature(tmp_path, "001-bare", {"status": "active", "slug": 42}, spec="Some words.\n")
        assert self.collect(tmp_path) == ProjectContext()

    # -- description --------------------------------------------------------------------------
    def test_description_is_spec_text_before_the_first_section(self, tmp_path):
        spec = "# Spec: Memory search\n\nFind entries by meaning\nand by keyword.\n\n## Requirements\n- fast\n"
        feature(tmp_path, "001-search", active("search"), spec=spec, prd="PRD text wins never.\n")
        assert self.collect(tmp_path).feature_description == "Find entries by meaning and by keyword."

    def test_description_is_capped_at_100_words(self, tmp_path):
        words = " ".join(f"w{i}" for i in range(150))
        feature(tmp_path, "001-long", active("long"), spec=f"# Spec\n\n{words}\n\n## Next\n")
        assert self.collect(tmp_path).feature_description.split() == [f"w{i}" for i in range(100)]

    def test_description_falls_back_to_prd_without_spec(self, tmp_path):
        prd = "# PRD\n\n## Problem\n\nAgents forget what they learned.\n\nSecond paragraph.\n"
        feature(tmp_path, "001-prd", active("prd"), prd=prd)
        assert self.collect(tmp_path).feature_description == "Agents forget what they learned."

    def test_no_spec_or_prd_means_no_description(self, tmp_path):
        feature(tmp_path, "001-empty", active("empty"))
        context = self.collect(tmp_path)
        assert context.feature_slug == "empty" and context.feature_description is None

    # -- git ----------------------------------------------------------------------------------
    def test_files_changed_in_the_last_three_commits(self, tmp_path):
        repo_with_commits(tmp_path, 5)
        assert sorted(self.collect(tmp_path).changed_files) == ["file_3.txt", "file_4.txt", "file_5.txt"]

    def test_project_in_a_subdirectory_of_a_repository_gets_its_files(self, tmp_path):
        repo_with_commits(tmp_path / "repo", 2)
        project = tmp_path / "repo" / "services" / "api"
        project.mkdir(parents=True)
        assert self.collect(project).changed_files == ["file_2.txt"]

    def test_outside_any_repository_git_is_never_started(self, tmp_path, monkeypatch):
        """The hook pays for a git process only where git could answer."""

        def no_git(*args, **kwargs):
            raise AssertionError(f"git was started: {args}")

        monkeypatch.setattr(subprocess, "run", no_git)
        monkeypatch.delenv("GIT_DIR", raising=False)
        feature(tmp_path, "001-parser", active("parser"))
        assert self.collect(tmp_path) == ProjectContext(feature_slug="parser", phase="design")

    def test_git_is_not_started_once_the_deadline_has_passed(self, tmp_path, monkeypatch):
        """A session whose deadline is (nearly) gone skips git and keeps every other signal."""
        from memory_core.session.deadline import Deadline
        from tests.fakes import FakeTicker

        repo_with_commits(tmp_path, 5)
        feature(tmp_path, "001-parser", active("parser"))

        def no_git(*args, **kwargs):
            raise AssertionError(f"git was started: {args}")

        monkeypatch.setattr(subprocess, "run", no_git)
        ticker = FakeTicker(start=10.0)
        spent = Deadline(ticker, 10.01)
        assert self.make_source().collect(str(tmp_path), spent) == ProjectContext(feature_slug="parser",
                                                                                 phase="design")

    def test_git_gets_no_more_time_than_the_deadline_leaves(self, tmp_path, monkeypatch):
        from memory_core.session.deadline import Deadline
        from tests.fakes import FakeTicker

        repo_with_commits(tmp_path, 2)
        timeouts = []
        real_run = subprocess.run

        def timed_run(*args, **kwargs):
            timeouts.append(kwargs["timeout"])
            return real_run(*args, **kwargs)

        monkeypatch.setattr(subprocess, "run", timed_run)
        deadline = Deadline(FakeTicker(start=0.0), 0.3)
        self.make_source().collect(str(tmp_path), deadline)
        assert timeouts and all(t == pytest.approx(0.3) for t in timeouts)

    def test_four_commits_still_use_three(self, tmp_path):
        repo_with_commits(tmp_path, 4)
        assert sorted(self.collect(tmp_path).changed_files) == ["file_2.txt", "file_3.txt", "file_4.txt"]

    @pytest.mark.parametrize("commits", [2, 3])
    def test_short_history_falls_back_to_the_last_commit(self, tmp_path, commits):
        repo_with_commits(tmp_path, commits)
        assert self.collect(tmp_path).changed_files == [f"file_{commits}.txt"]

    def test_single_commit_gives_no_files(self, tmp_path):
        repo_with_commits(tmp_path, 1)
        assert self.collect(tmp_path).changed_files == []

    def test_repository_without_commits_gives_no_files(self, tmp_path):
        git(tmp_path, "init", "-q")
        assert self.collect(tmp_path).changed_files == []

    def test_at_most_20_files(self, tmp_path):
        repo_with_commits(tmp_path, 1)
        for i in range(25):
            (tmp_path / f"bulk_{i:02}.txt").write_text("x")
        git(tmp_path, "add", ".")
        git(tmp_path, "commit", "-q", "-m", "bulk")
        assert len(self.collect(tmp_path).changed_files) == 20

    def test_all_signals_together(self, tmp_path):
        repo_with_commits(tmp_path, 2)
        feature(tmp_path, "004-ranker", active("ranker", "design"), spec="Rank entries.\n")
        assert self.collect(tmp_path) == ProjectContext(
            feature_slug="ranker", feature_description="Rank entries.", phase="design",
            changed_files=["file_2.txt"])

    def test_project_root_that_is_a_file_does_not_raise(self, tmp_path):
        path = tmp_path / "a-file"
        path.write_text("x")
        assert self.collect(path) == ProjectContext()
