"""Secrets in the shapes the vendors issue never reach disk or output, and provider keys are never printed."""

from __future__ import annotations

import json

import pytest

from tests._helpers import every_file_text, run_app, run_hook, upsert_args, write_settings

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


def _leaks(text: str) -> list[str]:
    lowered = text.lower()
    return [needle for needle in NEEDLES if needle in text or needle.lower() in lowered]


def test_secrets_are_redacted_everywhere_they_could_land(credential_layout):
    home, project, store = credential_layout
    written = run_app("memory_apps.writer", upsert_args(store, project, WRITER_ENTRY), home)
    assert written.returncode == 0, written.stderr

    from memory_apps.service import MemoryService

    service = MemoryService(global_store=str(store), project_root=str(project))
    stored = service.remember(**SERVICE_ENTRY)
    entry = service.get(stored.entry_id)
    service.container.store().close()
    assert entry is not None and "[REDACTED]" in entry.description

    injected = run_app("memory_apps.injector", ["--project-root", project, "--global-store", store, "--limit", "20"],
                       home)
    hooked = run_hook(project, store, home)
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
    files = every_file_text(store, project)
    assert str(store / "memory.db") in files and str(store / ".last-injection.json") in files
    assert str(store / "anti-patterns.md") in files, "the writer's entry was dual-written to the global store"
    assert str(project / "docs" / "knowledge-bank" / "patterns.md") in files, "the service's entry, locally"
    leaks = {where: _leaks(text) for where, text in {**files, **outputs}.items() if _leaks(text)}
    assert leaks == {}, f"secret material found: {leaks}"
    for name in ("memory.db", "anti-patterns.md"):
        assert "[REDACTED]" in files[str(store / name)], name


def test_secret_shaped_keywords_are_not_stored(credential_layout):
    """Supplied keywords are written to the database and the markdown too: they must not carry a token."""
    home, project, store = credential_layout
    token = "sk-proj-abcdefghijklmnopqrstuvwx12"  # a key that happens to be lower-case passes keyword validation
    entry = {"name": "Quote CSV fields", "description": "Quote CSV fields that contain delimiters or newlines.",
             "category": "patterns", "keywords": ["csv", "quote", "delimiters", token]}
    written = run_app("memory_apps.writer", upsert_args(store, project, entry), home)
    assert written.returncode == 0, written.stderr

    found = {path: text for path, text in every_file_text(store, project).items() if token in text}
    assert found == {}, f"a secret-shaped keyword was stored in {sorted(found)}"


def test_invalid_entry_errors_do_not_echo_secret_values(credential_layout):
    home, project, store = credential_layout
    bad = dict(WRITER_ENTRY, category="not-a-category", confidence=f"password={PASSWORD}", source=OPENAI)
    result = run_app("memory_apps.writer", upsert_args(store, project, bad), home)
    assert result.returncode == 1
    assert "category" in result.stderr
    assert _leaks(result.stdout + result.stderr) == []


def test_invalid_entry_errors_do_not_echo_secret_field_names(credential_layout):
    """An unknown field is named in the error; a pasted token used as a key must not be printed verbatim."""
    home, project, store = credential_layout
    bad = {"name": "n", "description": "d", "category": "patterns", f"token={OPENAI}": "x"}
    result = run_app("memory_apps.writer", upsert_args(store, project, bad), home)
    assert result.returncode == 1
    assert "unknown field" in result.stderr
    assert _leaks(result.stdout + result.stderr) == []


PROVIDER_KEY = "AIzaFAKEKEY0123456789abcdefghijKLMNOPQ"
# Any attempt to reach the network goes to a closed local port and fails at once.
OFFLINE = {"GEMINI_API_KEY": PROVIDER_KEY, "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
           "ALL_PROXY": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9",
           "NO_PROXY": "", "no_proxy": ""}


def test_provider_keys_are_never_printed(credential_layout):
    home, project, store = credential_layout
    entry = {"name": "Offline first", "description": "Embed locally first so sessions work without a network.",
             "category": "patterns"}
    written = run_app("memory_apps.writer", upsert_args(store, project, entry), home)
    assert written.returncode == 0, written.stderr
    write_settings(project, embedding_provider="gemini")
    runs = {
        "doctor": run_app("memory_apps.cli", ["doctor", "--project-root", project, "--global-store", store], home,
                          env=OFFLINE),
        "embed": run_app("memory_apps.cli", ["embed", "--project-root", project, "--global-store", store], home,
                         env=OFFLINE),
        "inject": run_app("memory_apps.injector", ["--project-root", project, "--global-store", store], home,
                          env=OFFLINE),
    }
    assert runs["embed"].returncode == 1, "no network: the gemini embed fails"
    assert runs["inject"].returncode == 0
    for name, result in runs.items():
        assert "Traceback" not in result.stderr, (name, result.stderr)
        for stream in (result.stdout, result.stderr):
            assert PROVIDER_KEY not in stream, f"{name} printed the API key"
            assert PROVIDER_KEY[4:20] not in stream, f"{name} printed part of the API key"
    stored = every_file_text(store, project)
    assert not [path for path, text in stored.items() if PROVIDER_KEY in text], "the key is never stored"

