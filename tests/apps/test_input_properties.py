"""Every input boundary takes arbitrary input without crashing: FTS queries, knowledge-bank markdown, the config
file, entry JSON, the writer's --entry-file and a feature's .meta.json."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from memory_adapters.project.git_context_source import GitProjectContextSource
from memory_adapters.markdown.knowledge_bank import MarkdownKnowledgeBankReader, parse_file, split_blocks
from memory_apps.config import EMBEDDING_PROVIDERS, KEYWORD_PROVIDERS, MemoryConfig, load_config
from memory_core.ranking.fts_query import MAX_TERMS, sanitise_fts_query
from memory_core.entries.keywords import clean_keywords
from memory_core.entries.models import CATEGORIES, EntryDraft
from memory_core.ports.context_source import ProjectContext
from memory_core.safety.redaction import contains_secret
from tests._fts5 import fts5_table

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- FTS5 queries -------------------------------------------------------------------------------------------------
FTS_PIECES = st.sampled_from([
    '"', "'", "NEAR", "NEAR(", "NEAR/3", "AND", "OR", "NOT", "and", "or", "not", "near", "name:", "description:",
    "{name description}:", "-name:", "^", "*", "(", ")", "+", "-", ":", ",", ".", "/", "\\", "entries_fts", "rank",
    "\x00", "\x1a", "é", "İ", "ß", "ﬁ", "日本語", "𝔘𝔫𝔦", "\u0301", "١٢٣", "²", "Ⅻ", "_", "a_b", "x" * 300,
    "Phase:", "Files:", " ", "\n", "\t",
])
FTS_TEXT = st.one_of(
    st.text(),
    st.lists(st.one_of(FTS_PIECES, st.text(max_size=6)), max_size=40).map(" ".join),
    st.lists(FTS_PIECES, max_size=40).map("".join),
)


@pytest.fixture(scope="module")
def fts_table():
    with fts5_table("name, description", [("parser", "read files first"), ("near and or", "not é 日本語")]) as conn:
        yield conn


@FAST
@given(text=st.one_of(st.none(), FTS_TEXT))
@example(text="")
@example(text='name: "unterminated AND (NEAR(a b) OR NOT')
@example(text=" ".join(f"word{i}" for i in range(200)))
def test_sanitised_fts_query_is_none_or_accepted_by_fts5(fts_table, text):
    query = sanitise_fts_query(text)
    if query is None:
        return
    assert isinstance(query, str) and query.strip()
    terms = query.split(" OR ")
    assert 1 <= len(terms) <= MAX_TERMS
    assert all(term and term == term.lower() and " " not in term for term in terms)
    fts_table.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()  # no syntax error


# -- knowledge-bank markdown ----------------------------------------------------------------------------------
MD_LINES = st.sampled_from([
    "### ", "### Pattern: Name", "### Anti-Pattern: ", "### Heuristic: x", "###", "####  deeper", "- ", "-",
    "- Observation count: 3", "- Observation count: 0", "- Observation count: -2", "- Observation count: 99999999999",
    "- Confidence: HIGH", "- Confidence: maybe", "- Last observed: 2024-13-45", "- Last observed: 2024-02-30T25:61Z",
    "- Last observed: 0000-00-00", "- Keywords: [\"a\", 3, null]", "- Keywords: ", "- Reasoning:", "- References: ,,,",
    "- Source project: ", "- Content-Hash: sha256:zz", "<!--", "-->", "<!-- inline --> text", "  - indented",
    "  ### indented header", "", " ", "\t", "\r", "\x00", "\ufeff", "é日本語", "text line",
])
MD_TEXT = st.one_of(st.text(), st.lists(st.one_of(MD_LINES, st.text(max_size=20)), max_size=40).map("\n".join))
MD_BYTES = st.one_of(st.binary(max_size=2000), MD_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")),
                     st.tuples(MD_TEXT, st.binary(max_size=8)).map(lambda p: p[0].encode("utf-8", "replace") + p[1]))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("input-properties")


@FAST
@given(data=MD_BYTES, category=st.sampled_from(CATEGORIES))
@example(data=b"### Pattern: X\n\xff\xfe broken bytes\n- Observation count: 2\n", category="patterns")
@example(data=b"<!--\n### hidden\n", category="heuristics")
def test_markdown_parser_takes_any_file(scratch, data, category):
    path = scratch / f"{category}.md"
    path.write_bytes(data)
    entries = parse_file(str(path), category, "local")
    text = data.decode("utf-8", errors="replace")
    blocks = split_blocks(text)
    assert len(entries) == len(blocks)
    assert all(block[0].startswith("### ") for block in blocks)
    for entry in entries:
        assert entry.category == category
        assert isinstance(entry.name, str) and isinstance(entry.description, str)
        assert isinstance(entry.observation_count, int)
        try:
            draft = entry.to_draft("project")
        except ValidationError:
            continue  # skipped by the importer with a reason
        assert draft.category == category
    assert isinstance(MarkdownKnowledgeBankReader(warn_unknown=False).read(str(scratch), "global"), list)


def test_markdown_parser_takes_an_observation_count_too_long_to_convert(tmp_path):
    """Python refuses int() on strings over 4300 digits; a corrupted count line must not break parsing."""
    path = tmp_path / "patterns.md"
    path.write_text("### Pattern: A\nRead files first.\n- Observation count: " + "9" * 5000 + "\n\n"
                    "### Pattern: B\nSecond entry.\n- Observation count: 2\n", encoding="utf-8")
    entries = parse_file(str(path), "patterns", "local")
    assert [e.name for e in entries] == ["A", "B"]


# -- the config file -----------------------------------------------------------------------------------------------
CONFIG_KEYS = [f"memory_{f.name}" for f in dataclasses.fields(MemoryConfig)] + ["memory_unknown_key", "memory_", "other"]
CONFIG_VALUES = st.one_of(st.text(max_size=30), st.sampled_from([
    "true", "false", "True", "0", "-1", "1.5", "-0.5", ".5", "0.", "1e3", "nan", "inf", "-", "", " 2 0 ", "12000",
    "99999999999999999999999", "local", "gemini", "none", "ollama", "bogus", "\x00", "ü",
]))
CONFIG_LINE = st.tuples(st.sampled_from(CONFIG_KEYS), st.sampled_from([":", ": ", " :", "="]), CONFIG_VALUES).map(
    "".join)
CONFIG_BYTES = st.one_of(
    st.binary(max_size=500),
    st.lists(st.one_of(CONFIG_LINE, st.text(max_size=30)), max_size=15).map(lambda ls: "\n".join(ls).encode(
        "utf-8", "surrogatepass")),
)


def _check_config_types(config: MemoryConfig) -> None:
    for name in ("semantic_enabled", "injection_enabled"):
        assert type(getattr(config, name)) is bool
    for name in ("injection_limit", "injection_max_chars"):
        assert type(getattr(config, name)) is int
    for name in ("vector_weight", "keyword_weight", "prominence_weight"):
        value = getattr(config, name)
        assert type(value) is float and 0.0 <= value <= 1.0
    assert config.embedding_provider in EMBEDDING_PROVIDERS
    assert config.keyword_provider in KEYWORD_PROVIDERS
    assert isinstance(config.embedding_model, str)


@FAST
@given(data=CONFIG_BYTES)
@example(data=b"\xff\xfe\x00memory_injection_limit: 5\n")
@example(data=b"memory_injection_limit: 5\nmemory_injection_limit: x\nmemory_vector_weight: 2\n")
def test_config_loader_takes_any_file(scratch, data):
    project = scratch / "config-project"
    (project / ".claude").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "iflow-dev.local.md").write_bytes(data)
    with contextlib.redirect_stderr(io.StringIO()):
        config = load_config(str(project))
    _check_config_types(config)


def test_config_with_an_integer_too_long_to_convert_uses_the_default(tmp_path):
    """A 5000-digit value is a bad value like any other: warn and use the default, never raise."""
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "iflow-dev.local.md").write_text("memory_injection_limit: " + "1" * 5000 + "\n",
                                                             encoding="utf-8")
    with contextlib.redirect_stderr(io.StringIO()):
        config = load_config(str(tmp_path))
    _check_config_types(config)


# -- entry JSON -------------------------------------------------------------------------------------------------
SECRETS = st.sampled_from([
    "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4", "sk-ant-api03-Zz9Yy8Xx7Ww6Vv5Uu4Tt3",
    "AIzaSyDq3F4k9L0m1N2o3P4q5R6s7T8u9V0w1X2",
    "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R", "AKIAIOSFODNN7EXAMPLE", "password=hunter2hunter2",
    "postgres://admin:Pg5ecret@db/app", "Authorization: Bearer tok9f8e7d6c5b4a3f2e1d0",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36",
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----",
    "sk-proj-abcdefghijklmnopqrstuvwx12", "token: abcdef123456",
])
TEXTISH = st.one_of(st.text(max_size=40), SECRETS, st.tuples(st.text(max_size=10), SECRETS).map(" ".join))
JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), TEXTISH),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
FIELD_VALUES = {
    "name": st.one_of(TEXTISH, JSONISH), "description": st.one_of(TEXTISH, JSONISH),
    "reasoning": st.one_of(TEXTISH, JSONISH), "category": st.one_of(st.sampled_from(CATEGORIES), JSONISH),
    "keywords": st.one_of(st.lists(TEXTISH, max_size=12), JSONISH), "references": st.one_of(st.lists(TEXTISH), JSONISH),
    "confidence": st.one_of(st.sampled_from(["high", "medium", "low"]), JSONISH),
    "source": st.one_of(st.sampled_from(["retro", "manual", "import", "session-capture"]), JSONISH),
    "source_project": st.one_of(st.none(), TEXTISH), "observation_count": st.one_of(st.integers(), JSONISH),
}
ENTRY_DICTS = st.fixed_dictionaries(
    {"name": FIELD_VALUES["name"], "description": FIELD_VALUES["description"],
     "category": FIELD_VALUES["category"]},
    optional={**{k: v for k, v in FIELD_VALUES.items() if k not in ("name", "description", "category")},
              "unexpected": JSONISH},
)


@FAST
@given(data=st.one_of(ENTRY_DICTS, st.dictionaries(st.text(max_size=12), JSONISH, max_size=6)))
def test_entry_model_validates_or_raises_validation_error_and_never_keeps_a_secret(data):
    try:
        draft = EntryDraft.model_validate(data)
    except ValidationError:
        return
    texts = [draft.name, draft.description, draft.reasoning, *draft.references, draft.source_project or ""]
    assert [t for t in texts if contains_secret(t)] == []
    assert draft.category in CATEGORIES
    assert draft.entry_id and len(draft.entry_id) == 16


@FAST
@given(keywords=st.lists(TEXTISH, max_size=12))
def test_keywords_that_reach_the_store_never_carry_a_secret(keywords):
    """The store receives clean_keywords(draft.keywords) (or generated ones): no token may survive."""
    try:
        draft = EntryDraft(name="n", description="d", category="patterns", keywords=keywords)
    except ValidationError:
        return
    assert [k for k in clean_keywords(draft.keywords) if contains_secret(k)] == []


# -- the writer's --entry-file ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def writer_setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("writer-input")
    project = root / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "iflow-dev.local.md").write_text(
        "memory_embedding_provider: none\nmemory_keyword_provider: local\n", encoding="utf-8")
    return root, project, root / "G"


def run_writer(setup, data: bytes) -> tuple[object, str, str]:
    from memory_apps import writer

    root, project, store = setup
    entry_file = root / "entry.json"
    entry_file.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = writer.main(["--action", "upsert", "--global-store", str(store), "--project-root", str(project),
                                "--entry-file", str(entry_file)])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


WRITER_BYTES = st.one_of(
    st.binary(max_size=300),
    st.one_of(ENTRY_DICTS, JSONISH).map(lambda v: json.dumps(v).encode("utf-8")),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
)


@FAST
@given(data=WRITER_BYTES)
@example(data=b'{"name": "Valid", "description": "A valid learning about parsers.", "category": "patterns"}')
@example(data=b"")
@example(data=b"[]")
def test_writer_answers_any_entry_file_with_exit_0_or_1(writer_setup, monkeypatch_env, data):
    code, out, err = run_writer(writer_setup, data)
    assert code in (0, 1), (code, err)
    assert "Traceback" not in err
    if code == 0:
        assert out.startswith("Stored: ")
    else:
        assert out == "" and "invalid entry" in err


def _count_fits_sqlite(value) -> bool:
    count = value.get("observation_count") if isinstance(value, dict) else None
    return not isinstance(count, int) or -2**63 <= count < 2**63


@FAST
@given(text=st.one_of(ENTRY_DICTS.filter(_count_fits_sqlite).map(json.dumps), JSONISH.map(json.dumps),
                      st.text(max_size=200)))
@example(text='{"name": "Valid", "description": "Another valid learning.", "category": "heuristics", '
              '"keywords": "[\\"a\\"]", "references": "src/x.py"}')
def test_writer_answers_any_utf8_entry_text_with_exit_0_or_1(writer_setup, monkeypatch_env, text):
    """The same property restricted to UTF-8 text and counts SQLite can hold (the rest is covered below)."""
    code, out, err = run_writer(writer_setup, text.encode("utf-8", "surrogatepass"))
    assert code in (0, 1), (code, err)
    if code == 0:
        assert out.startswith("Stored: ")
    else:
        assert out == "" and "invalid entry" in err


@pytest.fixture(scope="module")
def monkeypatch_env():
    """No keyword or embedding tier may call out: remove the variables that enable them."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("ANTHROPIC_API_KEY", "OLLAMA_HOST", "GEMINI_API_KEY", "VOYAGE_API_KEY", "OPENAI_API_KEY"):
            patch.delenv(name, raising=False)
        yield


@pytest.mark.parametrize("data", [
    pytest.param(b"\xff\xfe{\x00}", id="not-utf-8"),
    pytest.param(b"[" * 100_000, id="nested-too-deep"),
    pytest.param(b'{"name": "n", "description": "d", "category": "patterns", "observation_count": '
                 + b"9" * 5000 + b"}", id="number-too-long"),
    pytest.param(b'{"name": "Big", "description": "An entry with an absurd count.", "category": "patterns", '
                 b'"observation_count": 100000000000000000000000}', id="count-beyond-sqlite-integer"),
])
def test_writer_answers_hostile_entry_files_with_exit_0_or_1(writer_setup, monkeypatch_env, data):
    code, _, err = run_writer(writer_setup, data)
    assert code in (0, 1), (code, err)
    assert "Traceback" not in err


def test_out_of_range_observation_count_in_markdown_does_not_break_the_writer(tmp_path, monkeypatch_env):
    """One knowledge-bank entry with a count beyond SQLite's 64-bit INTEGER must not stop every later write."""
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "iflow-dev.local.md").write_text("memory_embedding_provider: none\n", encoding="utf-8")
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text("### Pattern: Huge\nAn entry whose count overflows.\n"
                                      "- Observation count: 99999999999999999999999\n\n"
                                      "### Pattern: Normal\nAn ordinary entry.\n- Observation count: 2\n",
                                      encoding="utf-8")
    entry = json.dumps({"name": "Later", "description": "A later learning.", "category": "heuristics"})
    code, out, err = run_writer((tmp_path, project, tmp_path / "G"), entry.encode("utf-8"))
    assert code == 0, err
    assert out.startswith("Stored: Later")


# -- a feature's .meta.json and spec --------------------------------------------------------------------------------
META_VALUES = st.one_of(
    st.binary(max_size=200),
    JSONISH.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({"status": st.one_of(st.just("active"), JSONISH)},
                          optional={"slug": JSONISH, "lastCompletedPhase": JSONISH}).map(
        lambda v: json.dumps(v).encode()),
)


@pytest.fixture(scope="module")
def context_project(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("context-project")
    return project


@FAST
@given(meta=META_VALUES, spec=st.one_of(st.binary(max_size=300), MD_TEXT.map(lambda t: t.encode("utf-8", "replace"))),
       folder=st.sampled_from(["001-x", "999999999999999999999999-big", "x-no-number", "-1-neg", "é-unicode"]))
@example(meta=b"[" * 50_000, spec=b"", folder="001-x")
@example(meta=b'{"status": "active", "slug": "s", "lastCompletedPhase": ["a"]}', spec=b"## only\n", folder="002-y")
def test_context_source_never_raises_on_a_malformed_feature(context_project, meta, spec, folder):
    features = context_project / "docs" / "features"
    if features.exists():
        for child in features.iterdir():
            for item in child.iterdir():
                item.unlink()
            child.rmdir()
    feature = features / folder
    feature.mkdir(parents=True)
    (feature / ".meta.json").write_bytes(meta)
    (feature / "spec.md").write_bytes(spec)
    with contextlib.redirect_stderr(io.StringIO()) as err:
        context = GitProjectContextSource().collect(str(context_project))
    assert isinstance(context, ProjectContext)
    assert context.feature_slug is None or isinstance(context.feature_slug, str)
    assert context.phase is None or isinstance(context.phase, str)
    assert "Traceback" not in err.getvalue()
    assert os.path.isdir(context_project)
