"""The injector reads a hook line's arguments without argparse (issue 21, item 7: its import, help formatter,
gettext and shutil are a few ms of every session start), exactly as argparse would read them; anything else is
left to argparse, which explains it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from memory_apps.injector import build_parser, plain_arguments

SAME = [
    [],
    ["--project-root", "/work/app", "--limit", "20", "--global-store", "/home/me/.claude/iflow/memory"],
    ["--global-store", "store", "--project-root", "p"],
    ["--limit=7", "--project-root=/a=b", "--global-store="],
    ["--limit", " 12 "],
    ["--project-root", ""],
]
ARGPARSE = [
    ["--help"], ["-h"], ["--limit", "-1"], ["--limit", "x"], ["--proj", "a"], ["--limit", "3", "--limit", "4"],
    ["--project-root"], ["--project-root", "--limit", "3"], ["extra"], ["--", "--limit", "3"], ["--limit="],
]


@pytest.mark.parametrize("argv", SAME)
def test_a_hook_lines_arguments_read_as_argparse_reads_them(argv):
    assert vars(plain_arguments(argv)) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", ARGPARSE)
def test_anything_else_is_left_to_argparse(argv):
    assert plain_arguments(argv) is None


def test_a_session_start_with_a_hook_lines_arguments_does_not_import_argparse(tmp_path):
    code = ("import sys\n"
            "sys.argv = ['injector', '--project-root', sys.argv[1], '--limit', '5', '--global-store', sys.argv[2]]\n"
            "from memory_apps import injector\n"
            "injector.main()\n"
            "print('argparse' in sys.modules)\n")
    env = {**os.environ, "HOME": str(tmp_path), "IFLOW_MEMORY_BACKGROUND": "0"}
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "project"), str(tmp_path / "store")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "False", done.stderr
