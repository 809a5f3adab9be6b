"""Files a project controls that are not regular files (a FIFO, a link to /dev/zero, a directory) never hang or
exhaust a session start: they are skipped with a warning and the session answers as usual."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests._helpers import diagnostic_line, entry_headers, run_injector, write_settings

pytestmark = pytest.mark.slow

DEMO_PROJECT = Path(__file__).resolve().parents[2] / "examples" / "demo-project"


@pytest.fixture
def project(tmp_path) -> Path:
    copy = tmp_path / "demo-project"
    shutil.copytree(DEMO_PROJECT, copy)
    write_settings(copy, embedding_provider="none")
    return copy


def _replace_with(path: Path, kind: str) -> None:
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_an_odd_config_file_warns_and_uses_the_defaults(project, tmp_path, isolated_home, kind):
    _replace_with(project / ".claude" / "iflow-dev.local.md", kind)

    result = run_injector(project, tmp_path / "store", isolated_home)  # fails on its timeout if it hangs

    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "iflow-dev.local.md: not read" in result.stderr, result.stderr
    assert len(entry_headers(result.stdout)) == 12, "the defaults apply: semantic on, limit 20"


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_an_odd_spec_or_feature_file_leaves_that_signal_out(project, tmp_path, isolated_home, kind):
    feature = next((project / "docs" / "features").iterdir())
    _replace_with(feature / "spec.md", kind)

    result = run_injector(project, tmp_path / "store", isolated_home)

    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert len(entry_headers(result.stdout)) == 12
    assert 'context: "csv-importer. Phase: design"' in diagnostic_line(result.stdout), \
        "the feature's slug and phase still count; only the spec's paragraph is left out"


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_an_odd_knowledge_bank_file_is_skipped_and_the_others_are_imported(project, tmp_path, isolated_home, kind):
    _replace_with(project / "docs" / "knowledge-bank" / "heuristics.md", kind)

    result = run_injector(project, tmp_path / "store", isolated_home)

    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "cannot read" in result.stderr and "heuristics.md" in result.stderr
    shown = entry_headers(result.stdout)
    assert shown and len(shown) < 12, "the other categories are imported and shown"
