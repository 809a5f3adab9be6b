"""Parity with the reference markdown-only injector: byte-identical stdout and tracking file (spec 002)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import FIXTURES, shared_fixture
from tests._helpers import copy_bank, run_injector, write_settings

pytestmark = pytest.mark.slow


def _case_ids() -> list[str]:
    # Collection must not fail without ../shared: one placeholder id, skipped by shared_fixture below.
    path = FIXTURES / "legacy" / "cases.json"
    if not path.exists():
        return ["fixtures-absent"]
    return sorted(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("case_id", _case_ids())
def test_injector_matches_reference_output(case_id, tmp_path, isolated_home):
    cases = json.loads(shared_fixture("legacy", "cases.json").read_text(encoding="utf-8"))
    case = cases[case_id]
    shared = shared_fixture().parent  # paths in cases.json are relative to ../shared

    project = tmp_path / "proj"
    project.mkdir()
    if case["knowledge_bank"]:
        copy_bank(shared / case["knowledge_bank"], project)
    write_settings(project, semantic_enabled=False)
    store = tmp_path / "global-store"
    store.mkdir()
    if case["global_store"]:
        # Only the category markdown: a stray .last-injection.json in ../shared must not leak into the case.
        for md in sorted((shared / case["global_store"]).glob("*.md")):
            shutil.copyfile(md, store / md.name)

    result = run_injector(project, store, isolated_home, limit=case["limit"])

    assert result.returncode == 0, result.stderr
    expected = (shared / case["stdout"]).read_bytes()
    assert result.stdout.encode("utf-8") == expected, f"stdout differs from {case['stdout']}"
    tracking_path = store / ".last-injection.json"
    if case["tracking"] is None:
        assert not tracking_path.exists()
    else:
        tracking = json.loads(tracking_path.read_text(encoding="utf-8"))
        assert tracking.pop("timestamp")
        expected_tracking = dict(case["tracking"], project=project.name)
        assert tracking == expected_tracking
    assert not (store / "memory.db").exists(), "the markdown pipeline must not create a database"


def test_cli_inject_matches_the_injector(tmp_path, isolated_home):
    """`iflow-memory inject` is the same command as `python -m memory_apps.injector`."""
    shared = shared_fixture().parent
    outputs = []
    for runner in ("injector", "cli"):
        project = tmp_path / runner / "proj"
        project.mkdir(parents=True)
        copy_bank(shared_fixture("knowledge-bank", "head"), project)
        write_settings(project, semantic_enabled=False)
        store = tmp_path / runner / "global-store"
        store.mkdir()
        for md in sorted(shared_fixture("legacy", "global-store").glob("*.md")):
            shutil.copyfile(md, store / md.name)
        result = run_injector(project, store, isolated_home, limit=9, via_cli=runner == "cli")
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1] == (shared / "fixtures/legacy/golden/head-with-global-limit9.txt").read_text(
        encoding="utf-8")
