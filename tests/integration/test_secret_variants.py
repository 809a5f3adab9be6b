"""Secrets beyond the vendor shapes (issue 11, item 8): connection strings, quoted passwords, key blocks and random
strings never land on disk or print, on any write or output path, whatever wrote them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._helpers import every_file_text, run_app, run_hook, upsert_args, write_settings

pytestmark = pytest.mark.slow


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


def test_secret_variants_never_reach_disk_or_output(credential_layout, tmp_path):
    """Writer, MemoryService, `import` of hand-written markdown; then the injector, the hook, search, list,
    show and export: no file (database, WAL, FTS, markdown, export, tracking) and no output holds a variant."""
    home, project, store = credential_layout
    _hand_written_bank(project)
    entry = {"name": "Connection strings leak", "description": f"Seen in a review:\n{QUOTED_VARIANTS}",
             "reasoning": "Each of these was pasted from a terminal: PASSWORD=Qz7!x and mysql -u root -pMyS3cretPw app",
             "references": ["redis://:R3disNoUser@cache.internal:6379/0", "npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"],
             "category": "anti-patterns"}
    runs = {"writer": run_app("memory_apps.writer", upsert_args(store, project, entry), home),
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
        "hook": run_hook(project, store, home),
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
    files = {path: text for path, text in every_file_text(store, export).items()}
    files.update({path: text for path, text in every_file_text(project).items() if "knowledge-bank" not in path
                  or "anti-patterns" in path or "heuristics" in path})  # patterns.md is the hand-written input
    assert str(store / "memory.db") in files
    leaks = {where: _variant_leaks(text) for where, text in {**files, **outputs}.items() if _variant_leaks(text)}
    assert leaks == {}, f"secret material found: {leaks}"


def test_the_markdown_pipeline_prints_hand_written_secrets_redacted(credential_layout):
    """memory_semantic_enabled: false prints the bank's own text, and so does the fallback for a corrupt
    database: neither has a validator on the way, so both redact where they read the entries."""
    home, project, store = credential_layout
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


def test_rows_stored_before_a_secret_shape_was_known_are_printed_redacted(credential_layout, tmp_path):
    """A database written by an older version may hold a secret today's patterns know: every output path reads
    rows through the store, which revalidates such a row before anyone sees it."""
    import sqlite3

    home, project, store = credential_layout
    entry = {"name": "Publish with a token", "description": "Publish the package from CI with an automation token.",
             "category": "patterns"}
    written = run_app("memory_apps.writer", upsert_args(store, project, entry), home)
    assert written.returncode == 0, written.stderr
    entry_id = written.stdout.rsplit("(id: ", 1)[1].split(")")[0]
    old_text = "Publish with npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 (mysql -u root -pMyS3cretPw for the logs)."
    with sqlite3.connect(store / "memory.db") as conn:  # as an older version stored it: before the patterns knew
        conn.execute("UPDATE entries SET description = ?, name = ? WHERE id = ?",
                     (old_text, "Token PASSWORD=Qz7!x", entry_id))
    conn.close()

    export = tmp_path / "export"
    runs = {
        "hook": run_hook(project, store, home),
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
    printed.update(every_file_text(export))
    printed[".last-injection.json"] = (store / ".last-injection.json").read_text(encoding="utf-8")
    assert {where: _variant_leaks(text) for where, text in printed.items() if _variant_leaks(text)} == {}


HIGH_ENTROPY = "kX9vQ2mR7tL4pZ8wN3yB6cF1hJ5dG0sAuE7oIqW2"


def test_detect_secrets_guards_every_write_path(credential_layout):
    """A random quoted string under no telling name is beyond the core's patterns: the writer, `import` and
    MemoryService add detect-secrets, so it is stored redacted all the same.

    The writer and `import` run as processes of their own: in this process detect-secrets is already loaded
    (by an earlier import of the container), so only a new process shows that these paths load it."""
    home, project, store = credential_layout
    bank = project / "docs" / "knowledge-bank"
    bank.mkdir(parents=True)
    (bank / "heuristics.md").write_text(f'### Seeds are secrets too\nThe signing seed was "{HIGH_ENTROPY}" in the '
                                        "fixture.\n- Observation count: 1\n", encoding="utf-8")
    entry = {"name": "Seed in a fixture", "category": "anti-patterns",
             "description": f'A fixture hard-coded seed = "{HIGH_ENTROPY}" for the signer.'}
    runs = [run_app("memory_apps.writer", upsert_args(store, project, entry), home, process=True),
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
    assert [path for path, text in every_file_text(store, project / "docs" / "knowledge-bank").items()
            if HIGH_ENTROPY in text and not path.endswith("heuristics.md")] == []
