"""`iflow-memory doctor` in-process: what a missing config file and a missing mcp extra look like (issue 13)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from memory_apps import install_claude
from memory_apps.commands_embedding import add_commands


@pytest.fixture
def doctor(tmp_path, isolated_home, capsys):
    """Run `doctor --project-root <tmp>/app --global-store <tmp>/store ARGS...` in-process: (status, stdout)."""
    project = tmp_path / "app"
    project.mkdir()

    def run(*extra: str) -> tuple[int, str]:
        parser = argparse.ArgumentParser(prog="iflow-memory")
        add_commands(parser.add_subparsers(), argparse.RawDescriptionHelpFormatter)
        args = parser.parse_args(["doctor", "--project-root", str(project), "--global-store",
                                  str(tmp_path / "store"), *extra])
        status = args.handler(args)
        return status, capsys.readouterr().out

    run.project = project
    return run


def statuses(out: str) -> dict[str, str]:
    return {check["check"]: check["status"] for check in json.loads(out)["checks"]}


def test_a_missing_config_file_is_reported_as_missing_not_as_a_fault(doctor):
    status, out = doctor()

    config = Path(doctor.project) / ".claude" / "iflow-dev.local.md"
    assert out.splitlines()[0] == (f"--   config: {config} missing; the defaults apply "
                                   "(memory_embedding_provider: auto)")
    assert "FIX  config" not in out
    status_json, out_json = doctor("--json")
    assert statuses(out_json)["config"] == "missing"
    assert [name for name, s in statuses(out_json).items() if s == "fix"] == ["database"], \
        "only the store that is not there is a fault"
    assert status == status_json == 1


def test_an_existing_config_file_is_ok(doctor):
    config = Path(doctor.project) / ".claude" / "iflow-dev.local.md"
    config.parent.mkdir()
    config.write_text("memory_embedding_provider: none\n", encoding="utf-8")

    _, out = doctor()

    assert out.splitlines()[0] == f"ok   config: {config} (memory_embedding_provider: none)"


def test_the_mcp_extra_is_checked(doctor, monkeypatch):
    _, installed = doctor("--json")
    [mcp] = [c for c in json.loads(installed)["checks"] if c["check"] == "mcp"]
    assert mcp["status"] == "ok"

    monkeypatch.setitem(sys.modules, "mcp", None)  # `import mcp` fails as when the extra is not installed
    _, missing = doctor("--json")
    [mcp] = [c for c in json.loads(missing)["checks"] if c["check"] == "mcp"]

    assert mcp["status"] == "missing"
    assert mcp["fix"] == "pip install 'iflow-memory[mcp]'"


def test_a_server_registered_without_the_mcp_extra_is_a_fault(doctor, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(Path(doctor.project).parent / "cache"))
    assert install_claude.install(str(doctor.project)) == 0  # local scope: ~/.claude.json for this project
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "mcp", None)

    status, out = doctor("--json")

    [mcp] = [c for c in json.loads(out)["checks"] if c["check"] == "mcp"]
    assert mcp["status"] == "fix" and "(local scope)" in mcp["detail"] and "exits at start" in mcp["detail"]
    assert json.loads(out)["ok"] is False and status == 1
