"""The layer contracts of pyproject.toml hold: apps above adapters above core, a pure core."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_import_contracts_are_kept(isolated_home):
    if not LINT_IMPORTS.exists():
        pytest.fail(f"{LINT_IMPORTS} missing: install the dev extra (import-linter) into the venv")

    result = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120,
    )
    output = result.stdout + result.stderr

    assert result.returncode == 0, output
    assert re.search(r"\b0 broken\b", output), output
    # Apart from the "0 broken" summary, no contract may be reported broken.
    assert "broken" not in re.sub(r"\b0 broken\b", "", output).lower(), output
    contracts = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    expected = len(contracts["tool"]["importlinter"]["contracts"])
    assert expected >= 2 and output.count(" KEPT") == expected, output


def _imported(module: str, args: list, home: Path, stdin: str = "") -> tuple[set[str], subprocess.CompletedProcess]:
    """Top-level packages a real `python -X importtime -m module` process imported, and the process."""
    from tests._helpers import PYTHON, TIMEOUT_S, app_env

    result = subprocess.run([PYTHON, "-X", "importtime", "-m", module, *map(str, args)], env=app_env(home),
                            cwd=str(home), input=stdin, capture_output=True, text=True, timeout=TIMEOUT_S)
    names = {line.rsplit("|", 1)[-1].strip().split(".")[0]
             for line in result.stderr.splitlines() if line.startswith("import time:") and "|" in line}
    return names, result


def test_detect_secrets_is_loaded_by_the_write_paths_never_by_a_session_start(tmp_path):
    """detect-secrets costs about 100 ms to import (ADR 12): a session start never loads it, whether it imports
    the bank (first session), answers from the database, prints the markdown pipeline or runs as the hook;
    the writer does (the same probe sees it there, so the probe can see it at all)."""
    from tests._helpers import write_settings

    home, project, store = tmp_path / "home", tmp_path / "proj", tmp_path / "G"
    home.mkdir()
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text("### Pattern: Rotate keys\nRotate AKIAIOSFODNN7EXAMPLE and PASSWORD=Qz7!x now."
                                      "\n- Observation count: 2\n", encoding="utf-8")
    write_settings(project, embedding_provider="none")
    session = ["--project-root", project, "--global-store", store]
    hook_input = '{"source": "startup", "cwd": "%s"}' % project
    runs = {"first session": _imported("memory_apps.injector", session, home),
            "later session": _imported("memory_apps.injector", session, home),
            "hook": _imported("memory_apps.cli", ["hook", "session-start", "--global-store", store], home,
                              stdin=hook_input)}
    write_settings(project, embedding_provider="none", semantic_enabled=False)
    runs["markdown pipeline"] = _imported("memory_apps.injector", session, home)
    entry = '{"name": "Seeds", "description": "Keep seeds out of fixtures.", "category": "patterns"}'
    writer_names, writer = _imported("memory_apps.writer", ["--action", "upsert", "--entry-json", entry, *session],
                                     home)

    for name, (names, result) in runs.items():
        assert result.returncode == 0 and "Rotate keys" in result.stdout and "[REDACTED]" in result.stdout, name
        assert "detect_secrets" not in names, f"{name} imported detect-secrets"
    assert writer.returncode == 0, writer.stderr
    assert "detect_secrets" in writer_names, "the writer scans with detect-secrets"


def test_benchmarks_import_nothing_from_the_tests():
    """The benchmarks run without the test suite (a split test module once broke `python -m benchmarks.relevance`):
    no import of `tests`, by statement or by name."""
    found = []
    for path in sorted((PROJECT_ROOT / "benchmarks").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                names = [str(node.args[0].value)] if called in ("import_module", "__import__") else []
            else:
                continue
            found += [f"{path.relative_to(PROJECT_ROOT)}:{node.lineno} {n}" for n in names
                      if n == "tests" or n.startswith("tests.")]
    assert found == []


def test_every_package_is_held_free_of_cycles_and_a_hidden_cycle_breaks_the_contract(tmp_path):
    """Each root package has an `acyclic_siblings` contract, and such a contract sees a cycle two folders deep that
    only a function-local import or an `if TYPE_CHECKING:` import closes (what the hand-made finder once did)."""
    if not LINT_IMPORTS.exists():
        pytest.fail(f"{LINT_IMPORTS} missing: install the dev extra (import-linter) into the venv")
    config = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    held = {ancestor for contract in config["contracts"] if contract["type"] == "acyclic_siblings"
            for ancestor in contract["ancestors"]}
    assert held == set(config["root_packages"])

    package = tmp_path / "probe" / "inner"
    package.mkdir(parents=True)
    (tmp_path / "probe" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "space.py").write_text("def pinned():\n    from probe.inner import store\n")
    (package / "store.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from probe.inner import space\n")
    (tmp_path / "probe.toml").write_text('[tool.importlinter]\nroot_packages = ["probe"]\n\n'
                                         '[[tool.importlinter.contracts]]\nname = "no cycles"\n'
                                         'type = "acyclic_siblings"\nancestors = ["probe"]\n')
    result = subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo", "probe.toml"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0 and "BROKEN" in result.stdout, result.stdout + result.stderr
