"""The `memory_ranking` setting that turns the code-reference signal on: `relevance` or `spec` (the default);
anything else warns and keeps the default."""

from __future__ import annotations

import pytest

from memory_apps.config import load_config


@pytest.mark.parametrize("value, expected", [("relevance", "relevance"), ("spec", "spec"), ("magic", "spec")])
def test_memory_ranking_setting(tmp_path, capsys, value, expected):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "iflow-dev.local.md").write_text(f"---\nmemory_ranking: {value}\n---\n")
    assert load_config(str(tmp_path)).ranking == expected
    assert ("memory_ranking: invalid value" in capsys.readouterr().err) == (value == "magic")


def test_spec_is_the_default_ranking(tmp_path):
    assert load_config(str(tmp_path)).ranking == "spec"
