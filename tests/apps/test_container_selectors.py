"""The container's choices: `memory_keyword_provider` picks the keyword tiers a write uses, and the embedder
recipe builds (and imports) only the provider a plan asks for."""

from __future__ import annotations

import json
import subprocess

import pytest

from memory_apps import cli, writer
from tests._helpers import PYTHON, TIMEOUT_S, app_env, write_settings

ENTRY = {"name": "Quote CSV fields", "category": "patterns",
         "description": "Quote CSV fields that contain delimiters, quotes or newlines before writing the export."}
# Builds the write path's embedding plan in a fresh process and reports which embedding adapters it imported.
PLAN_PROBE = """
import json, sys
from memory_apps.config import MemoryConfig
from memory_apps.wiring.container import build_container
plan = build_container(MemoryConfig(embedding_provider=sys.argv[1]), sys.argv[2]).embedding_plan(want_target=True)
print(json.dumps({"target": plan.target.provider_name if plan.target else None, "problem": plan.problem,
                  "adapters": sorted(m for m in sys.modules if m.startswith("memory_adapters.")
                                     and m.endswith("_embedder")),
                  "sdks": sorted({"google", "openai", "voyageai", "httpx"} & set(sys.modules))}))
"""


@pytest.mark.parametrize("keyword_provider, labelled", [("off", False), ("local", True), ("claude", True)])
def test_the_keyword_provider_setting_selects_the_tiers_a_write_uses(tmp_path, isolated_home, capsys,
                                                                     keyword_provider, labelled):
    project = tmp_path / "project"
    write_settings(project, keyword_provider=keyword_provider, embedding_provider="none")
    flags = ["--global-store", str(tmp_path / "G"), "--project-root", str(project)]

    assert writer.main([*flags, "--no-references-from-git", "--entry-json", json.dumps(ENTRY)]) == 0
    entry_id = capsys.readouterr().out.rsplit("(id: ", 1)[-1].rstrip(")\n")
    assert cli.main(["show", entry_id, "--json", *flags]) == 0
    keywords = json.loads(capsys.readouterr().out)["keywords"]

    assert bool(keywords) is labelled, keywords
    text = f"{ENTRY['name']} {ENTRY['description']}".lower()
    assert all(word in text for keyword in keywords for word in keyword.split("-")), "picked from its own words"


@pytest.mark.parametrize("provider, target, problem, adapters", [
    ("local", "local", "", ["memory_adapters.embedders.local_embedder"]),
    ("gemini", None, "gemini unavailable: ", ["memory_adapters.embedders.gemini_embedder"]),
])
def test_the_embedder_selector_imports_only_the_provider_asked_for(tmp_path, provider, target, problem,
                                                                   adapters):
    env = app_env(tmp_path)
    env.pop("GEMINI_API_KEY", None)
    result = subprocess.run([PYTHON, "-c", PLAN_PROBE, provider, str(tmp_path / "G")], env=env, cwd=str(tmp_path),
                            capture_output=True, text=True, timeout=TIMEOUT_S)
    assert result.returncode == 0, result.stderr[-2000:]
    probe = json.loads(result.stdout)

    assert probe["target"] == target and probe["problem"].startswith(problem)
    assert probe["adapters"] == adapters
    assert probe["sdks"] == []
