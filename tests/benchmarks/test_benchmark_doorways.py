"""Every benchmark command the README names still runs: `python -m benchmarks SECTION`, each section on its
smallest setting, its tables on stdout and its numbers in a temporary directory (never benchmarks/results). What
the numbers say is not checked here: a smoke run's numbers mean nothing; that the command gets to its report is
the point."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT, subprocess_env
from tests._helpers import DEMO_PROJECT, PYTHON

pytestmark = pytest.mark.slow

HUNG_S = 1800  # a smoke run takes seconds to a few minutes on a loaded machine; only a hang takes this long
RESULTS_DIR = PROJECT_ROOT / "benchmarks" / "results"  # every section's default


def _results_state() -> dict:
    """The committed results files and when they last changed: a smoke run leaves them alone."""
    return {p: p.stat().st_mtime_ns for p in RESULTS_DIR.iterdir()}


def _run(command: list, tmp_path: Path) -> subprocess.CompletedProcess:
    """The command from the repository root (where the README runs it), with a temp HOME and cache."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    before = _results_state()
    result = subprocess.run([PYTHON, *map(str, command)], cwd=str(PROJECT_ROOT), env=subprocess_env(home),
                            capture_output=True, text=True, timeout=HUNG_S)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert _results_state() == before, "a smoke run wrote into the committed results"
    return result


def test_relevance_suite(tmp_path):
    out = tmp_path / "relevance.json"
    result = _run(["-m", "benchmarks", "relevance", "--sets", "ac1-plain", "--out", out], tmp_path)
    assert "# Relevance suite" in result.stdout and "## ac1-plain (50 entries, 1 queries)" in result.stdout
    numbers = json.loads(out.read_text(encoding="utf-8"))
    assert set(numbers["results"]) == {"ac1-plain"} and numbers["results"]["ac1-plain"]["relevance"]["recall@20"] > 0


def test_search_floor(tmp_path):
    out = tmp_path / "relevance.json"
    result = _run(["-m", "benchmarks", "search-floor", "--sets", "ac1-plain,paraphrase", "--out", out], tmp_path)
    assert "# The search floor" in result.stdout and "| paraphrase |" in result.stdout
    models = json.loads(out.read_text(encoding="utf-8"))["search_floor"]["models"]
    assert set(models) == {"model", "keywords", "model, ts_rank_cd", "keywords, ts_rank_cd"}
    assert all(0 < m["floor"] <= 0.5 for m in models.values()), models


def test_relevance_tuning(tmp_path):
    out = tmp_path / "tuning.json"
    result = _run(["-m", "benchmarks", "tuning", "--sets", "ac1-plain,ac1-synonyms", "--out", out], tmp_path)
    assert "| ac1-plain |" in result.stdout and "| ac1-synonyms |" in result.stdout
    assert set(json.loads(out.read_text(encoding="utf-8"))["held_out"]) == {"ac1-plain", "ac1-synonyms"}


def test_keyword_labels(tmp_path):
    out = tmp_path / "labels.json"
    bank = DEMO_PROJECT / "docs" / "knowledge-bank"
    result = _run(["-m", "benchmarks", "keyword-labels", "--bank", bank, "--out", out], tmp_path)
    assert "| entries | labels/entry min |" in result.stdout
    assert json.loads(out.read_text(encoding="utf-8"))["summary"]["entries"] == 12


def test_disclosure(tmp_path):
    out = tmp_path / "disclosure.json"
    bank = DEMO_PROJECT / "docs" / "knowledge-bank"
    result = _run(["-m", "benchmarks", "disclosure", "--bank", bank, "--provider", "none", "--out", out], tmp_path)
    assert "| session " in result.stdout and "| index " in result.stdout
    numbers = json.loads(out.read_text(encoding="utf-8"))
    assert numbers["entries"] == 12 and numbers["sessions"][0]["index"]["in_full"] == 5
    assert numbers["sessions"][0]["index"]["tokens_minilm"] > 0


def test_semantic_vs_keyword(tmp_path):
    result = _run(["-m", "benchmarks", "semantic"], tmp_path)
    assert re.search(r"^\| \*\*all\*\* \| 48 \|", result.stdout, re.MULTILINE), result.stdout[-2000:]


def test_search_latency(tmp_path):
    out = tmp_path / "latency.json"
    result = _run(["-m", "benchmarks", "latency", "--entries", "1000", "--calls", "3", "--out", out], tmp_path)
    assert "1,000" in result.stdout or "1000" in result.stdout
    numbers = json.loads(out.read_text(encoding="utf-8"))
    assert list(numbers["sizes"]) == ["1000"] and numbers["sizes"]["1000"]["service"]["median_ms"] > 0


# The `suite` section's parts and the key each saves its numbers under (one test each: they run side by side)
SECTIONS = {1: "1_injector", 2: "2_ranking", 3: "3_import_embed", 4: "4_legacy", 5: "5_quality",
            6: "6_semantic_vs_keyword", 7: "7_session_starts"}


@pytest.mark.parametrize("section", SECTIONS)
def test_whole_process_suite(tmp_path, section):
    out = tmp_path / "results.json"
    result = _run(["-m", "benchmarks", "suite", "--smoke", "--only", section, "--out", out], tmp_path)
    assert f"\n## {section}. " in result.stdout, result.stdout[-2000:]
    numbers = json.loads(out.read_text(encoding="utf-8"))
    assert numbers["arguments"]["smoke"] is True and SECTIONS[section] in numbers["sections"]


@pytest.fixture
def server_parent():
    """A short directory (the server's socket path must fit in 107 bytes) that pgserver's own user, which runs
    PostgreSQL when the tests run as root, can pass through; removed afterwards."""
    pytest.importorskip("pgserver", reason="the PostgreSQL benchmark needs pgserver (the dev extra)")
    parent = Path(tempfile.mkdtemp(prefix="iflow-bench-pg-"))
    parent.chmod(0o755)
    yield parent
    shutil.rmtree(parent, ignore_errors=True)


def test_postgres_build_then_benchmark(tmp_path, server_parent):
    data = server_parent / "pgdata"
    built = _run(["-m", "benchmarks", "postgres-build", "--sizes", "1000", "--data-dir", data], tmp_path)
    assert '{"1000":' in built.stdout, built.stdout
    out = tmp_path / "postgres.json"
    result = _run(["-m", "benchmarks", "postgres", "--sizes", "1000", "--sqlite-sizes", "", "--runs", "1",
                   "--calls", "2", "--writers", "1", "--writes", "20", "--data-dir", data, "--out", out], tmp_path)
    assert "# PostgreSQL benchmark" in result.stdout
    numbers = json.loads(out.read_text(encoding="utf-8"))
    assert "postgres" in numbers["sizes"]["1000"] and numbers["writers"]["runs"]


@pytest.mark.parametrize("section", ["relevance", "tuning", "search-floor"])
def test_an_unknown_relevance_set_is_refused_with_the_known_names(tmp_path, section):
    out = tmp_path / "never.json"
    result = subprocess.run([PYTHON, "-m", "benchmarks", section, "--sets", "ac1-plain,no-such-set", "--out", str(out)],
                            cwd=str(PROJECT_ROOT), env=subprocess_env(tmp_path), capture_output=True, text=True,
                            timeout=HUNG_S)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "no set named no-such-set" in result.stderr and "ac1-synonyms" in result.stderr
    assert not out.exists(), "nothing measured, nothing written"


def test_the_entry_point_lists_every_section_and_each_gives_its_options(tmp_path):
    from benchmarks.__main__ import SECTIONS

    listed = _run(["-m", "benchmarks", "--help"], tmp_path)
    for section in SECTIONS:
        assert f"\n  {section} " in listed.stdout, listed.stdout
        own = _run(["-m", "benchmarks", section, "--help"], tmp_path)
        assert own.stdout.startswith(f"usage: python -m benchmarks {section} "), own.stdout
    unknown = subprocess.run([PYTHON, "-m", "benchmarks", "no-such-section"], cwd=str(PROJECT_ROOT),
                             env=subprocess_env(tmp_path), capture_output=True, text=True, timeout=HUNG_S)
    assert unknown.returncode == 2 and "invalid choice: 'no-such-section'" in unknown.stderr, unknown.stderr


def test_the_benchmarks_import_no_cycle():
    """No module of benchmarks/ reaches itself through its imports, function-local ones included (grimp reads
    every import statement)."""
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (the dev extra)")
    graph = grimp.build_graph("benchmarks")
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            assert back is None, f"{module} imports {imported}, which imports it back: {' -> '.join(back)}"


def test_anchors(tmp_path):
    out = tmp_path / "anchors.json"
    result = _run(["-m", "benchmarks", "anchors", "--smoke", "--out", out], tmp_path)
    assert "# The anchor check in a session start" in result.stdout
    numbers = json.loads(out.read_text(encoding="utf-8"))
    assert set(numbers["ratio_to_baseline"]) == {"cold", "warm"}
    assert numbers["results"]["baseline"]["check_lines_median"] == 0  # no anchors, no marks
    assert numbers["results"]["warm"]["check_lines_median"] > 0  # the changed files are marked


def test_viewer(tmp_path):
    pytest.importorskip("pgserver", reason="the viewer benchmark runs on PostgreSQL too: pgserver (the dev extra)")
    out = tmp_path / "viewer.json"
    result = _run(["-m", "benchmarks", "viewer", "--smoke", "--out", out], tmp_path)
    assert "# The viewer's pages at 10k entries" in result.stdout
    numbers = json.loads(out.read_text(encoding="utf-8"))
    for backend, found in numbers["backends"].items():
        assert found["complete"], backend
        assert {"/memories", "/memories/{id}", "/review", "/sessions", "/overview"} <= set(found["pages"])
        assert all(page.get("status") == 200 for page in found["pages"].values()), backend
