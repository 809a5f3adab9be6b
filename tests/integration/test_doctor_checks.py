"""`iflow-memory doctor` in-process: what a missing config file and a missing mcp extra look like (issue 13)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

import pytest

from memory_apps.claude import install as install_claude
from memory_apps.commands.embedding import add_commands


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


BAD_CONFIG = ("memory_semantic_enabled: maybe\nmemory_injection_limit: lots\nmemory_vector_weight: 2\n"
              "memory_embedding_provider: gemeni\nmemory_ranking: magic\nmemory_injection_limt: 5\n")


def test_a_config_with_invalid_values_and_a_typo_is_a_fault_naming_each(doctor, capsys):
    """Issue 21, doorway 12: five invalid values and a mistyped key were `ok config`."""
    config = Path(doctor.project) / ".claude" / "iflow-dev.local.md"
    config.parent.mkdir()
    config.write_text(BAD_CONFIG, encoding="utf-8")

    status, out = doctor("--json")

    [found] = [c for c in json.loads(out)["checks"] if c["check"] == "config"]
    assert found["status"] == "fix" and status == 1
    assert str(config) in found["detail"] and str(config) in found["fix"]
    for key in ("memory_semantic_enabled", "memory_injection_limit", "memory_vector_weight",
                "memory_embedding_provider", "memory_ranking"):
        assert f"{key}: invalid value" in found["detail"], key
    assert "(expected one of auto, none, local, gemini, voyage, openai, ollama)" in found["detail"]
    assert "unknown key memory_injection_limt ignored (did you mean memory_injection_limit?)" in found["detail"]
    assert "iflow-memory:" not in capsys.readouterr().err, "the findings are the check's, not stray warnings"


def test_the_fix_for_a_missing_store_is_a_command_that_creates_it(doctor, tmp_path, isolated_home, capsys):
    from memory_apps import cli

    status, out = doctor("--json")
    [database] = [c for c in json.loads(out)["checks"] if c["check"] == "database"]
    assert database["status"] == "fix" and status == 1
    command = database["fix"].split("  (")[0]
    assert command.startswith("iflow-memory import "), database["fix"]

    assert cli.main(shlex.split(command)[1:]) == 0, capsys.readouterr().err
    capsys.readouterr()
    status, out = doctor("--json")
    assert statuses(out)["database"] == "ok" and status == 0, out


def test_a_missing_project_is_not_fixed_by_import(tmp_path, isolated_home, capsys):
    parser = argparse.ArgumentParser(prog="iflow-memory")
    add_commands(parser.add_subparsers(), argparse.RawDescriptionHelpFormatter)
    args = parser.parse_args(["doctor", "--json", "--project-root", str(tmp_path / "gone"),
                              "--global-store", str(tmp_path / "store")])

    assert args.handler(args) == 1
    checks = {c["check"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["project"]["status"] == "fix" and "--project-root" in checks["project"]["fix"]
    assert str(tmp_path / "gone") not in checks["database"]["fix"], "import exits 1 for a missing project"
    assert checks["database"]["fix"].startswith(f"iflow-memory import --global-store {tmp_path / 'store'}")


def test_postgresql_gets_its_own_full_text_check_not_fts5(doctor, tmp_path, backend, monkeypatch):
    for key, value in backend.env.items():
        monkeypatch.setenv(key, value)
    (tmp_path / "store").mkdir()

    status, out = doctor("--json")

    names = statuses(out)
    if backend.is_postgres:
        assert "FTS5" not in names and names["full-text search"] == "ok", out
    else:
        assert names["FTS5"] == "ok" and "full-text search" not in names, out


def test_the_fix_for_a_damaged_database_is_an_import_that_rebuilds_it(doctor, tmp_path, capsys):
    from memory_apps import cli

    (tmp_path / "store").mkdir(mode=0o700)
    (tmp_path / "store" / "memory.db").write_bytes(b"not a database, " * 512)

    status, out = doctor("--json")
    [database] = [c for c in json.loads(out)["checks"] if c["check"] == "database"]
    assert database["status"] == "fix" and status == 1, out
    command = database["fix"].split("  (")[0]

    assert cli.main(shlex.split(command)[1:]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert statuses(doctor("--json")[1])["database"] == "ok"
