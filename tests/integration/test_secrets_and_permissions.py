"""Secrets never reach disk or output, provider keys are never printed, and the global store is private."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path
from typing import Optional

import pytest

from tests.integration._helpers import PYTHON, TIMEOUT_S, app_env, run_in_process, write_settings

pytestmark = pytest.mark.slow

# Fake credentials in the shapes the vendors issue (none of them is a real key).
OPENAI = "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
ANTHROPIC = "sk-ant-api03-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp"
GOOGLE = "AIzaSyDq3F4k9L0m1N2o3P4q5R6s7T8u9V0w1X2"
GITHUB = "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"
AWS = "AKIAIOSFODNN7EXAMPLE"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
       "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
PEM_BODY = "MIIEowIBAAKCAQEA7bq9FakeKeyMaterialOnlyForTestsQ2hlY2tSZWRhY3Rpb24"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\nc2Vjb25kTGluZU9mS2V5TWF0ZXJpYWw=\n-----END RSA PRIVATE KEY-----"
PG_PASSWORD = "Pg5ecretPassw0rd"
POSTGRES = f"postgres://admin:{PG_PASSWORD}@db.internal:5432/app"
PASSWORD = "hunter2hunter2"
BEARER_TOKEN = "tok9f8e7d6c5b4a3f2e1d0c9b8a7"
BEARER = f"Authorization: Bearer {BEARER_TOKEN}"

# What must never appear anywhere (the secret part of each value).
NEEDLES = [OPENAI, ANTHROPIC, GOOGLE, GITHUB, AWS, JWT, PEM_BODY, "c2Vjb25kTGluZU9mS2V5TWF0ZXJpYWw",
           PG_PASSWORD, PASSWORD, BEARER_TOKEN]

WRITER_ENTRY = {
    "name": f"Rotate {AWS} and {GITHUB} after a leak",
    "description": f"Never paste credentials such as {OPENAI} or {ANTHROPIC} into notes.\n{PEM}\n"
                   f"The staging database is {POSTGRES} for now.",
    "reasoning": f"A review found {GOOGLE}, a session token {JWT}, password={PASSWORD} and {BEARER} in a log.",
    "category": "anti-patterns",
    "references": [f"https://example.invalid/maps?key={GOOGLE}", POSTGRES, BEARER, "src/settings.py"],
}
SERVICE_ENTRY = dict(
    name=f"Keep {GITHUB} out of configs",
    description=f"Configuration files must not hold {AWS}, {OPENAI} or password={PASSWORD}; read them from "
                f"the environment. {BEARER}",
    reasoning=f"{PEM}\nLeaked alongside {ANTHROPIC} and {JWT} via {POSTGRES}.",
    category="patterns",
    references=[f"docs/secrets.md#{GOOGLE}", POSTGRES],
)


def run_app(module: str, args, home: Path, stdin: Optional[str] = None,
            extra_env: Optional[dict] = None, process: bool = False) -> subprocess.CompletedProcess:
    """Run an app with `home` as HOME: the session starts (injector, hook) as processes of their own, the writer
    and the other commands in-process unless `process`."""
    session_start = module == "memory_apps.injector" or list(args)[:1] == ["hook"]
    if not (process or session_start):
        return run_in_process(module, args, home, stdin=stdin, env={"CLAUDE_PROJECT_DIR": None, **(extra_env or {})})
    env = app_env(home)
    env.pop("CLAUDE_PROJECT_DIR", None)
    env.update(extra_env or {})
    return subprocess.run([PYTHON, "-m", module, *map(str, args)], env=env, cwd=str(home), input=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT_S)


@pytest.fixture
def layout(tmp_path, isolated_home):
    """(HOME, project, global store); HOME is isolated for the library calls made in this process too."""
    home = isolated_home
    project = tmp_path / "proj"
    project.mkdir()
    feature = project / "docs" / "features" / "001-secrets"
    feature.mkdir(parents=True)
    (feature / ".meta.json").write_text('{"status": "active", "slug": "credential-hygiene"}', encoding="utf-8")
    (feature / "spec.md").write_text("# Spec\n\nKeep credentials, tokens and passwords out of notes.\n",
                                     encoding="utf-8")
    return home, project, tmp_path / "G"


def _leaks(text: str) -> list[str]:
    lowered = text.lower()
    return [needle for needle in NEEDLES if needle in text or needle.lower() in lowered]


def _every_file(*roots: Path) -> dict[str, str]:
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                found[str(path)] = path.read_bytes().decode("utf-8", errors="ignore")
    return found


def test_secrets_are_redacted_everywhere_they_could_land(layout):
    home, project, store = layout
    written = run_app("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root", project,
                                             "--entry-json", json.dumps(WRITER_ENTRY)], home)
    assert written.returncode == 0, written.stderr

    from memory_apps.service import MemoryService

    service = MemoryService(global_store=str(store), project_root=str(project))
    stored = service.remember(**SERVICE_ENTRY)
    entry = service.get(stored.entry_id)
    service.container.store().close()
    assert entry is not None and "[REDACTED]" in entry.description

    injected = run_app("memory_apps.injector", ["--project-root", project, "--global-store", store, "--limit", "20"],
                       home)
    hooked = run_app("memory_apps.cli", ["hook", "session-start", "--global-store", store], home,
                     stdin=json.dumps({"source": "startup", "cwd": str(project)}))
    searched = run_app("memory_apps.cli", ["search", "credentials", "--global-store", store, "--project-root", project,
                                           "--json"], home)
    listed = run_app("memory_apps.cli", ["list", "--json", "--global-store", store, "--project-root", project], home)
    for result in (injected, hooked, searched, listed):
        assert result.returncode == 0, result.stderr
    assert "Rotate" in injected.stdout and "Keep" in injected.stdout, "both entries were injected"
    assert "[REDACTED]" in injected.stdout
    assert "[REDACTED]" in json.loads(hooked.stdout)["hookSpecificOutput"]["additionalContext"]

    outputs = {f"{name} {stream}": getattr(result, stream)
               for name, result in (("writer", written), ("injector", injected), ("hook", hooked),
                                    ("search", searched), ("list", listed))
               for stream in ("stdout", "stderr")}
    files = _every_file(store, project)
    assert str(store / "memory.db") in files and str(store / ".last-injection.json") in files
    assert str(store / "anti-patterns.md") in files, "the writer's entry was dual-written to the global store"
    assert str(project / "docs" / "knowledge-bank" / "patterns.md") in files, "the service's entry, locally"
    leaks = {where: _leaks(text) for where, text in {**files, **outputs}.items() if _leaks(text)}
    assert leaks == {}, f"secret material found: {leaks}"
    for name in ("memory.db", "anti-patterns.md"):
        assert "[REDACTED]" in files[str(store / name)], name


def test_secret_shaped_keywords_are_not_stored(layout):
    """Supplied keywords are written to the database and the markdown too: they must not carry a token."""
    home, project, store = layout
    token = "sk-proj-abcdefghijklmnopqrstuvwx12"  # a key that happens to be lower-case passes keyword validation
    entry = {"name": "Quote CSV fields", "description": "Quote CSV fields that contain delimiters or newlines.",
             "category": "patterns", "keywords": ["csv", "quote", "delimiters", token]}
    written = run_app("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root", project,
                                             "--entry-json", json.dumps(entry)], home)
    assert written.returncode == 0, written.stderr

    found = {path: text for path, text in _every_file(store, project).items() if token in text}
    assert found == {}, f"a secret-shaped keyword was stored in {sorted(found)}"


def test_invalid_entry_errors_do_not_echo_secret_values(layout):
    home, project, store = layout
    bad = dict(WRITER_ENTRY, category="not-a-category", confidence=f"password={PASSWORD}", source=OPENAI)
    result = run_app("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root", project,
                                            "--entry-json", json.dumps(bad)], home)
    assert result.returncode == 1
    assert "category" in result.stderr
    assert _leaks(result.stdout + result.stderr) == []


def test_invalid_entry_errors_do_not_echo_secret_field_names(layout):
    """An unknown field is named in the error; a pasted token used as a key must not be printed verbatim."""
    home, project, store = layout
    bad = {"name": "n", "description": "d", "category": "patterns", f"token={OPENAI}": "x"}
    result = run_app("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root", project,
                                            "--entry-json", json.dumps(bad)], home)
    assert result.returncode == 1
    assert "unknown field" in result.stderr
    assert _leaks(result.stdout + result.stderr) == []


PROVIDER_KEY = "AIzaFAKEKEY0123456789abcdefghijKLMNOPQ"
# Any attempt to reach the network goes to a closed local port and fails at once.
OFFLINE = {"GEMINI_API_KEY": PROVIDER_KEY, "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
           "ALL_PROXY": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9",
           "NO_PROXY": "", "no_proxy": ""}


def test_provider_keys_are_never_printed(layout):
    home, project, store = layout
    written = run_app("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root", project,
                                             "--entry-json", json.dumps({"name": "Offline first", "description":
                                             "Embed locally first so sessions work without a network.",
                                             "category": "patterns"})], home)
    assert written.returncode == 0, written.stderr
    write_settings(project, embedding_provider="gemini")
    runs = {
        "doctor": run_app("memory_apps.cli", ["doctor", "--project-root", project, "--global-store", store], home,
                          extra_env=OFFLINE),
        "embed": run_app("memory_apps.cli", ["embed", "--project-root", project, "--global-store", store], home,
                         extra_env=OFFLINE),
        "inject": run_app("memory_apps.injector", ["--project-root", project, "--global-store", store], home,
                          extra_env=OFFLINE),
    }
    assert runs["embed"].returncode == 1, "no network: the gemini embed fails"
    assert runs["inject"].returncode == 0
    for name, result in runs.items():
        assert "Traceback" not in result.stderr, (name, result.stderr)
        for stream in (result.stdout, result.stderr):
            assert PROVIDER_KEY not in stream, f"{name} printed the API key"
            assert PROVIDER_KEY[4:20] not in stream, f"{name} printed part of the API key"
    stored = _every_file(store, project)
    assert not [path for path, text in stored.items() if PROVIDER_KEY in text], "the key is never stored"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_global_store_is_private(layout):
    home, project, store = layout
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "heuristics.md").write_text("### Keep files private\nNotes can hold sensitive context.\n"
                                        "- Observation count: 2\n", encoding="utf-8")
    entry = {"name": "Private by default", "description": "Create user data files readable by their owner only.",
             "category": "patterns"}
    steps = [
        run_app("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root", project,
                                       "--entry-json", json.dumps(entry)], home),
        run_app("memory_apps.injector", ["--project-root", project, "--global-store", store], home),
        run_app("memory_apps.cli", ["hook", "session-start", "--global-store", store], home,
                stdin=json.dumps({"source": "startup", "cwd": str(project)})),
        run_app("memory_apps.cli", ["embed", "--project-root", project, "--global-store", store], home),
    ]
    for result in steps:
        assert result.returncode == 0, result.stderr

    assert _mode(store) == 0o700
    files = [p for p in store.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"memory.db", ".last-injection.json", "patterns.md"} <= names
    assert {str(p.relative_to(store)): oct(_mode(p)) for p in files if _mode(p) != 0o600} == {}


def test_markdown_only_mode_creates_a_private_global_store(layout):
    """memory_semantic_enabled: false still creates the store (tracking file) and must keep it private."""
    home, project, store = layout
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "patterns.md").write_text("### Pattern: Private\nKeep notes private.\n- Observation count: 1\n",
                                      encoding="utf-8")
    write_settings(project, semantic_enabled=False)

    result = run_app("memory_apps.injector", ["--project-root", project, "--global-store", store], home)

    assert result.returncode == 0 and result.stdout, result.stderr
    assert (store / ".last-injection.json").exists()
    assert oct(_mode(store / ".last-injection.json")) == oct(0o600)
    assert oct(_mode(store)) == oct(0o700), "the global store directory is private however it was created"


# -- issue 11, item 8: the variants that used to leak, on every write and output path ----------------------------

PGP_BODY = "lQdGBGFakePgpKeyMaterialOnlyForTestsU2VjcmV0UGdwS2V5Qm9keQ"
VARIANTS = {  # the text as a note would quote it -> the secret part that must never land or print
    "redis://:R3disNoUser@cache.internal:6379/0": "R3disNoUser",
    "postgres://app:pa/ss9word@db.internal:5432/app": "pa/ss9word",
    "postgres://app:Pp@ssw0rdAt@db.internal/app": "Pp@ssw0rdAt",
    'DB_PASSWORD="quoted value with spaces"': "quoted value with spaces",
    "PASSWORD=Qz7!x": "Qz7!x",
    "secret: aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCY": "wJalrXUtnFEMIK7MDENGbPxRfiCY",
    f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{PGP_BODY}\n=ab12\n-----END PGP PRIVATE KEY BLOCK-----": PGP_BODY,
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc": "4eC39HqLyjWDarjtT1zdp7dc",
    "npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789": "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567": "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567",
    "AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5+/==;": "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5",
    "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/SlackHookS3cretPath": "SlackHookS3cretPath",
    "mysql -u root -pMyS3cretPw app": "MyS3cretPw",
}
HAND_WRITTEN = {  # only in hand-written markdown: printed by the markdown pipeline, imported by `import`
    "AKIAIOSFODNN7EXAMPLE": "AKIAIOSFODNN7EXAMPLE",
    "sk-proj-HandWrittenKeyA1b2C3d4E5f6G7h8": "HandWrittenKeyA1b2C3d4E5f6G7h8",
}
VARIANT_NEEDLES = list(VARIANTS.values()) + list(HAND_WRITTEN.values())
QUOTED_VARIANTS = "\n".join(VARIANTS)


def _variant_leaks(text: str) -> list[str]:
    return [needle for needle in VARIANT_NEEDLES if needle in text]


def _hand_written_bank(project: Path) -> None:
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True, exist_ok=True)
    (bank / "patterns.md").write_text(
        "# Patterns\n\n### Pattern: Rotate leaked cloud keys\n"
        "A key such as AKIAIOSFODNN7EXAMPLE or sk-proj-HandWrittenKeyA1b2C3d4E5f6G7h8 was pasted in a ticket; "
        "rotate it at once.\n- Observation count: 3\n- Confidence: high\n\n"
        "### Pattern: Keep connection strings out of notes\n"
        f"These all reached a note once:\n{QUOTED_VARIANTS}\n- Observation count: 2\n", encoding="utf-8")


def test_secret_variants_never_reach_disk_or_output(layout, tmp_path):
    """Writer, MemoryService, `import` of hand-written markdown; then the injector, the hook, search, list,
    show and export: no file (database, WAL, FTS, markdown, export, tracking) and no output holds a variant."""
    home, project, store = layout
    _hand_written_bank(project)
    entry = {"name": "Connection strings leak", "description": f"Seen in a review:\n{QUOTED_VARIANTS}",
             "reasoning": "Each of these was pasted from a terminal: PASSWORD=Qz7!x and mysql -u root -pMyS3cretPw app",
             "references": ["redis://:R3disNoUser@cache.internal:6379/0", "npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"],
             "category": "anti-patterns"}
    runs = {"writer": run_app("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root",
                                                     project, "--entry-json", json.dumps(entry)], home),
            "import": run_app("memory_apps.cli", ["import", "--project-root", project, "--global-store", store], home)}

    from memory_apps.service import MemoryService

    service = MemoryService(global_store=str(store), project_root=str(project))
    stored = service.remember(name="Webhooks are credentials", category="heuristics",
                              description="Treat a Slack webhook URL like a password: "
                                          "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/SlackHookS3cretPath",
                              reasoning='secret: aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCY and '
                                        'DB_PASSWORD="quoted value with spaces"')
    service.container.store().close()

    export = tmp_path / "export"
    runs.update({
        "inject": run_app("memory_apps.injector", ["--project-root", project, "--global-store", store, "--limit", "20"],
                          home),
        "hook": run_app("memory_apps.cli", ["hook", "session-start", "--global-store", store], home,
                        stdin=json.dumps({"source": "startup", "cwd": str(project)})),
        "search": run_app("memory_apps.cli", ["search", "password connection", "--global-store", store,
                                              "--project-root", project, "--json"], home),
        "list": run_app("memory_apps.cli", ["list", "--json", "--global-store", store, "--project-root", project],
                        home),
        "show": run_app("memory_apps.cli", ["show", stored.entry_id, "--global-store", store], home),
        "export": run_app("memory_apps.cli", ["export", "--output", export, "--global-store", store], home),
    })
    for name, result in runs.items():
        assert result.returncode == 0, (name, result.stderr)
    assert len(json.loads(runs["list"].stdout)) >= 4, "the writer's, the service's and the two imported entries"
    assert "[REDACTED]" in runs["inject"].stdout and "[REDACTED]" in runs["show"].stdout
    outputs = {f"{name} {stream}": getattr(result, stream) for name, result in runs.items()
               for stream in ("stdout", "stderr")}
    files = {path: text for path, text in _every_file(store, export).items()}
    files.update({path: text for path, text in _every_file(project).items() if "knowledge-bank" not in path
                  or "anti-patterns" in path or "heuristics" in path})  # patterns.md is the hand-written input
    assert str(store / "memory.db") in files
    leaks = {where: _variant_leaks(text) for where, text in {**files, **outputs}.items() if _variant_leaks(text)}
    assert leaks == {}, f"secret material found: {leaks}"


def test_the_markdown_pipeline_prints_hand_written_secrets_redacted(layout):
    """memory_semantic_enabled: false prints the bank's own text, and so does the fallback for a corrupt
    database: neither has a validator on the way, so both redact where they read the entries."""
    home, project, store = layout
    _hand_written_bank(project)
    write_settings(project, semantic_enabled=False)
    markdown_only = run_app("memory_apps.injector", ["--project-root", project, "--global-store", store], home)
    write_settings(project, semantic_enabled=True)
    (store / "memory.db").write_bytes(b"not a database, " * 1024)
    fallback = run_app("memory_apps.injector", ["--project-root", project, "--global-store", store], home)

    for result in (markdown_only, fallback):
        assert result.returncode == 0, result.stderr
        assert "Rotate leaked cloud keys" in result.stdout and "[REDACTED]" in result.stdout
        assert _variant_leaks(result.stdout + result.stderr) == []
    assert "semantic: fallback" in fallback.stdout
    assert _variant_leaks((store / ".last-injection.json").read_text(encoding="utf-8")) == []


def test_rows_stored_before_a_secret_shape_was_known_are_printed_redacted(layout, tmp_path):
    """A database written by an older version may hold a secret today's patterns know: every output path reads
    rows through the store, which revalidates such a row before anyone sees it."""
    import sqlite3

    home, project, store = layout
    entry = {"name": "Publish with a token", "description": "Publish the package from CI with an automation token.",
             "category": "patterns"}
    written = run_app("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root",
                                             project, "--entry-json", json.dumps(entry)], home)
    assert written.returncode == 0, written.stderr
    entry_id = written.stdout.rsplit("(id: ", 1)[1].split(")")[0]
    old_text = "Publish with npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 (mysql -u root -pMyS3cretPw for the logs)."
    with sqlite3.connect(store / "memory.db") as conn:  # as an older version stored it: before the patterns knew
        conn.execute("UPDATE entries SET description = ?, name = ? WHERE id = ?",
                     (old_text, "Token PASSWORD=Qz7!x", entry_id))
    conn.close()

    export = tmp_path / "export"
    runs = {
        "hook": run_app("memory_apps.cli", ["hook", "session-start", "--global-store", store], home,
                        stdin=json.dumps({"source": "startup", "cwd": str(project)})),
        "show": run_app("memory_apps.cli", ["show", entry_id, "--global-store", store], home),
        "list": run_app("memory_apps.cli", ["list", "--json", "--global-store", store], home),
        "search": run_app("memory_apps.cli", ["search", "publish package", "--global-store", store,
                                              "--project-root", project], home),
        "export": run_app("memory_apps.cli", ["export", "--output", export, "--global-store", store], home),
    }
    for name, result in runs.items():
        assert result.returncode == 0, (name, result.stderr)
    assert "Publish with [REDACTED]" in runs["show"].stdout
    assert "Publish with" in runs["hook"].stdout, "the entry was injected"
    printed = {f"{name} {stream}": getattr(result, stream) for name, result in runs.items()
               for stream in ("stdout", "stderr")}
    printed.update(_every_file(export))
    printed[".last-injection.json"] = (store / ".last-injection.json").read_text(encoding="utf-8")
    assert {where: _variant_leaks(text) for where, text in printed.items() if _variant_leaks(text)} == {}


HIGH_ENTROPY = "kX9vQ2mR7tL4pZ8wN3yB6cF1hJ5dG0sAuE7oIqW2"


def test_detect_secrets_guards_every_write_path(layout):
    """A random quoted string under no telling name is beyond the core's patterns: the writer, `import` and
    MemoryService add detect-secrets, so it is stored redacted all the same.

    The writer and `import` run as processes of their own: in this process detect-secrets is already loaded
    (by an earlier import of the container), so only a new process shows that these paths load it."""
    home, project, store = layout
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "heuristics.md").write_text(f'### Seeds are secrets too\nThe signing seed was "{HIGH_ENTROPY}" in the '
                                        "fixture.\n- Observation count: 1\n", encoding="utf-8")
    entry = {"name": "Seed in a fixture", "category": "anti-patterns",
             "description": f'A fixture hard-coded seed = "{HIGH_ENTROPY}" for the signer.'}
    runs = [run_app("memory_apps.writer", ["--action", "upsert", "--global-store", store, "--project-root", project,
                                           "--entry-json", json.dumps(entry)], home, process=True),
            run_app("memory_apps.cli", ["import", "--project-root", project, "--global-store", store], home,
                    process=True)]
    for result in runs:
        assert result.returncode == 0, result.stderr

    from memory_apps.service import MemoryService

    service = MemoryService(global_store=str(store), project_root=str(project))
    stored = service.remember(name="Seed in a config", category="patterns",
                              description=f'The config held token_seed: "{HIGH_ENTROPY}" in plain text.')
    entries = service.entries()
    service.container.store().close()

    assert stored.entry_id and len(entries) == 3
    assert all(HIGH_ENTROPY not in e.description and '"[REDACTED]"' in e.description for e in entries), \
        [e.description for e in entries]
    assert [path for path, text in _every_file(store, project / "docs" / "knowledge-bank").items()
            if HIGH_ENTROPY in text and not path.endswith("heuristics.md")] == []
