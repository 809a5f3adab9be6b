"""The layer contracts of pyproject.toml hold: apps above adapters above core, a pure core."""

from __future__ import annotations

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
