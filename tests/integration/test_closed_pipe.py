"""`iflow-memory … | head`: a reader that stops early ends the command quietly with 141, as git does (issue 13).

The process boundary is the point here: each command writes into a real pipe whose reading end is already
closed, so every write fails with EPIPE, as when `head` has exited."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memory_apps import cli
from tests._helpers import PYTHON, TIMEOUT_S, app_env, demo_shop

pytestmark = pytest.mark.slow

SCRIPT = Path(PYTHON).parent / "iflow-memory"


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> tuple[Path, Path, Path]:
    """(home, project, global store) with the demo bank imported, keyword ranking only."""
    return demo_shop(tmp_path_factory.mktemp("pipe"))


def into_closed_pipe(args: list, home: Path, cwd: Path, stdin: str = "") -> tuple[int, str]:
    """Run the console script with stdout into a pipe nobody reads any more; (exit status, stderr)."""
    errors, event = cwd.parent / "stderr.txt", cwd.parent / "stdin.txt"
    event.write_text(stdin, encoding="utf-8")
    with open(errors, "w+", encoding="utf-8") as stderr, open(event, encoding="utf-8") as events:
        process = subprocess.Popen([str(SCRIPT), *map(str, args)], env=app_env(home), cwd=str(cwd), stdin=events,
                                   stdout=subprocess.PIPE, stderr=stderr)
        process.stdout.close()  # before the interpreter has even started: its first write meets a closed pipe
        status = process.wait(timeout=TIMEOUT_S)
        stderr.seek(0)
        return status, stderr.read()


@pytest.mark.parametrize("command", [["stats", "--json"], ["stats"], ["list"], ["list", "--json"],
                                     ["search", "parser", "files"], ["show", "6cd657f5d2ca04bb"]],
                         ids=" ".join)
def test_a_reader_that_left_ends_the_command_quietly_with_141(shop, command):
    home, project, store = shop

    status, stderr = into_closed_pipe([*command, "--project-root", project, "--global-store", store], home, project)

    assert stderr == "", "no traceback and no 'Exception ignored' message"
    assert status == cli.EXIT_CLOSED_PIPE == 141


def test_help_into_a_closed_pipe_is_quiet(shop):
    home, project, _ = shop

    for args in (["--help"], ["list", "--help"], ["--version"]):
        status, stderr = into_closed_pipe(args, home, project)
        assert stderr == "" and status in (0, cli.EXIT_CLOSED_PIPE), (args, status, stderr)


def test_an_error_message_still_reaches_stderr_with_its_own_status(shop):
    home, project, store = shop

    status, stderr = into_closed_pipe(["show", "0123456789abcdef", "--project-root", project,
                                       "--global-store", store], home, project)

    assert status == 1 and "no entry with id 0123456789abcdef" in stderr and "Traceback" not in stderr


@pytest.mark.parametrize("command", [["inject"], ["hook", "session-start"]], ids=" ".join)
def test_the_session_start_paths_still_exit_0(shop, command):
    home, project, store = shop

    status, stderr = into_closed_pipe([*command, "--project-root", project, "--global-store", store], home,
                                      project, stdin='{"source": "startup"}')

    assert status == 0 and "Traceback" not in stderr and "Exception ignored" not in stderr
