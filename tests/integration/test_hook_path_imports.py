"""rich draws the CLI's tables and progress, and only those: a session start (the hook, the injector,
`iflow-memory inject`) never imports it, nor what --version and install-claude need, and no --json output goes
through rich (issue 13)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests._helpers import PYTHON, TIMEOUT_S, app_env, demo_shop

pytestmark = pytest.mark.slow

SCRIPT = Path(PYTHON).parent / "iflow-memory"


def imported(command: list, home: Path, stdin: str = "") -> tuple[set[str], subprocess.CompletedProcess]:
    """Every module a real process imported (PYTHONPROFILEIMPORTTIME: it works for the console script and
    for processes that leave with os._exit), and the process."""
    env = app_env(home)
    env["PYTHONPROFILEIMPORTTIME"] = "1"
    result = subprocess.run([*map(str, command)], env=env, cwd=str(home), input=stdin, capture_output=True,
                            text=True, timeout=TIMEOUT_S)
    modules = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    return modules, result


def uses_rich(modules: set[str]) -> bool:
    return any(name == "rich" or name.startswith("rich.") for name in modules)


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> tuple[Path, list[str]]:
    """(home, store flags) with the demo bank imported, keyword ranking only."""
    home, project, store = demo_shop(tmp_path_factory.mktemp("imports"))
    return home, ["--project-root", str(project), "--global-store", str(store)]


def test_session_starts_never_import_rich(shop):
    home, flags = shop
    runs = {
        "hook": imported([SCRIPT, "hook", "session-start", *flags], home, stdin='{"source": "startup"}'),
        "injector": imported([PYTHON, "-m", "memory_apps.injector", *flags], home),
        "inject": imported([SCRIPT, "inject", *flags], home),
    }

    for name, (modules, result) in runs.items():
        assert result.returncode == 0, (name, result.stderr[-2000:])
        assert "Writing a Parser From the Format Description Alone" in result.stdout, name
        assert "memory_apps.session.injection" in modules, f"{name}: the probe sees the session's own imports"
        assert not uses_rich(modules), f"{name} imported rich"
        assert not {"importlib.metadata", "memory_apps.claude.install"} & modules, \
            f"{name} paid for --version or install-claude"
        other_commands = {"memory_apps.writer", "memory_apps.commands.doctor", "memory_apps.commands.entries",
                          "memory_apps.commands.migrate", "memory_apps.commands.embedding"}
        assert not other_commands & modules, f"{name} paid for other commands' modules on its deadline (issue 21)"
        assert not {"pydantic", "pydantic_core", "memory_apps.writer"} & modules, \
            f"{name} imported the writer's request checks and pydantic (ADR 10)"


@pytest.mark.parametrize("command", [["list"], ["stats"], ["search", "parser"]], ids=" ".join)
def test_tables_use_rich_and_json_never_does(shop, command):
    home, flags = shop

    table_modules, table = imported([SCRIPT, *command, *flags], home)
    json_modules, as_json = imported([SCRIPT, *command, "--json", *flags], home)

    assert table.returncode == 0 and as_json.returncode == 0, (table.stderr[-2000:], as_json.stderr[-2000:])
    assert uses_rich(table_modules), "the probe sees rich where a table is drawn"
    assert not uses_rich(json_modules), "--json output never goes through rich"
