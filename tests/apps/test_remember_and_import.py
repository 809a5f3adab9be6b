"""What `doctor` says about a bank an import recorded (the import itself, and Remember, are core use cases
tested in tests/unit/test_remember_and_import.py)."""

from __future__ import annotations

from tests.fakes import InMemoryEntryStore


def test_what_doctor_says_about_a_bank_is_inert_text():
    """A cloned repository chooses its authors' emails: no terminal escape reaches the screen (ADR 13)."""
    from memory_apps.commands.trust import bank_lines
    from memory_core.policies.bank_trust import record_bank

    store = InMemoryEntryStore()
    record_bank(store, "git:" + "d" * 40, "/src/evil\x1b]0;x\x07", {"patterns": "others"},
                ("a\x1b[2J@example.invalid",), "2026-11-01T00:00:00Z")
    [(trusted, detail, fix)] = bank_lines(store)
    assert not trusted and "\x1b" not in detail + fix and "\x07" not in detail + fix
    assert "patterns.md committed by others: a@example.invalid" in detail, detail
