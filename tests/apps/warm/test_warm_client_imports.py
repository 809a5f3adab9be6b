"""The hook imports the client before anything heavy: it must stay standard library only."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.apps.warm.conftest import PROJECT_ROOT


def test_importing_the_client_loads_nothing_heavy():
    code = ("import sys, json; import memory_apps.warm.client; "
            "print(json.dumps(sorted(m for m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(PROJECT_ROOT / "src")}).stdout
    loaded = set(json.loads(out))

    assert "memory_apps.warm.client" in loaded
    heavy = {"numpy", "pydantic", "sqlite3", "_sqlite3", "memory_core", "memory_adapters", "onnxruntime",
             "subprocess", "hashlib"}
    assert loaded & heavy == set()
