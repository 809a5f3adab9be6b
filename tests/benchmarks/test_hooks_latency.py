"""`python -m benchmarks hooks-latency` gets to its report on a tiny store with few calls, leaves no warm process
behind, and its crash scenario holds: after a SIGKILL every prompt is still answered, with the same entries, and a
replacement answers. The hooks get a long deadline here, so that nothing depends on this machine's speed; what
the numbers say is not checked (a smoke run's numbers mean nothing)."""

from __future__ import annotations

import json
import subprocess

import pytest

from benchmarks.hook_latency import events, imports
from benchmarks.hook_latency.hook_process import parse
from tests._helpers import PYTHON
from tests.conftest import PROJECT_ROOT, subprocess_env

pytestmark = pytest.mark.slow

HUNG_S = 1800  # a smoke run takes a minute or two on a loaded machine; only a hang takes this long


def test_the_section_runs_on_a_tiny_store_and_leaves_no_warm_process(tmp_path):
    home, out = tmp_path / "home", tmp_path / "hooks.json"
    home.mkdir()
    done = subprocess.run([PYTHON, "-m", "benchmarks", "hooks-latency", "--sizes", "60", "--calls", "2", "--kills", "1",
                           "--replacement-prompts", "8", "--import-runs", "1", "--deadline", "60", "--out", out],
                          cwd=str(PROJECT_ROOT), env=subprocess_env(home), capture_output=True, text=True,
                          timeout=HUNG_S)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "| 60      | prompt hook, warm" in done.stdout and "| 60      | file hook, cold" in done.stdout
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["processes_left"] == []
    size = results["sizes"]["60"]
    assert {size[kind]["calls"] for kind in ("prompt_warm", "prompt_cold", "file_warm", "file_cold")} == {2}
    assert size["warm_server_stayed_up"]
    crash = size["replacement"]
    assert crash["cycles"][0]["killed"] and crash["cycles"][0]["answer_before"]
    assert (crash["failed_empty"], crash["different_entries"]) == (0, 0)
    (cycle,) = crash["cycles"]
    assert cycle["first_warm_answer_at"] is not None and set(cycle["replaced_by"]).isdisjoint(cycle["killed"])
    assert results["imports"]["modules"] > 0


def test_prompts_never_repeat_and_files_mix_cited_and_uncited():
    prompts = events.prompts(120, seed=3)
    assert len(set(prompts)) == 120
    files = events.files(6, 1000)
    assert files[0].startswith("src/") and files[1].startswith("lib/") and files[2].startswith("docs/")


def test_an_answer_is_read_for_its_entries_and_its_path():
    block = ("## Engineering Memory (for this prompt)\n\n*Memory: 1 of 9 | semantic: keywords only (x)*\n\n"
             "- id: ab12 · relevance 0.30")
    run = parse(12.0, json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                                          "additionalContext": block}}))
    assert (run.ids, run.keywords_only, run.empty) == (["ab12"], True, False)
    assert parse(3.0, "").empty


def test_the_import_probe_names_who_pulled_a_heavy_module_in():
    stderr = "\n".join([
        "import time: self [us] | cumulative | imported package",
        "import time:       100 |        100 |     numpy",
        "import time:        10 |        110 |   memory_core.vectors",
        "import time:        10 |        120 | memory_apps.somewhere",
        "import time:         5 |          5 | json",
    ])
    heavy = imports.heavy_imports(imports.parse_importtime(stderr))
    assert heavy == {"numpy": {"cumulative_ms": 0.1,
                               "pulled_in_by": ["memory_core.vectors", "memory_apps.somewhere"]}}
