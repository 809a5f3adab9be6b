"""A session start whose working directory was deleted under it still answers: exit 0, only its answer on
stdout (a shell left in a removed checkout runs the hook there)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests._helpers import PYTHON, TIMEOUT_S, app_env, copy_bank
from tests.conftest import shared_fixture

pytestmark = pytest.mark.slow


def _in_deleted_directory(tmp_path: Path, home: Path, command: list[str],
                          stdin: str = "") -> subprocess.CompletedProcess:
    """Run `command` from a directory that is removed just before the program starts."""
    gone = tmp_path / "gone"
    gone.mkdir()
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    return subprocess.run(["sh", "-c", script, "sh", str(gone), *command], env=app_env(home), input=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT_S)


@pytest.fixture
def layout(tmp_path, isolated_home) -> tuple[Path, Path]:
    project = tmp_path / "proj"
    project.mkdir()
    copy_bank(shared_fixture("knowledge-bank", "v024"), project)
    return project, tmp_path / "store"


def test_the_hook_answers_with_its_json_from_a_deleted_directory(tmp_path, isolated_home, layout):
    project, store = layout
    event = json.dumps({"source": "startup", "session_id": "s1"})
    done = _in_deleted_directory(tmp_path, isolated_home, [PYTHON, "-m", "memory_apps.cli", "hook", "session-start",
                                                           "--project-root", str(project), "--global-store",
                                                           str(store)], event)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert "### " in answer["hookSpecificOutput"]["additionalContext"], done.stdout[:400]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("named", [True, False], ids=["project named", "no project named"])
def test_the_injector_exits_0_from_a_deleted_directory(tmp_path, isolated_home, layout, named):
    project, store = layout
    flags = ["--project-root", str(project)] if named else []
    done = _in_deleted_directory(tmp_path, isolated_home, [PYTHON, "-m", "memory_apps.injector", *flags,
                                                           "--global-store", str(store)])
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert ("### " in done.stdout) == named, done.stdout[:400] + done.stderr
