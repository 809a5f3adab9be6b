"""The tables of tests/secret_samples.toml: kind -> (a text holding a secret, the part that must disappear)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

SAMPLES = tomllib.loads(Path(__file__).with_name("secret_samples.toml").read_text(encoding="utf-8"))


def secret_texts(table: str) -> list[str]:
    """Every text of one table, in the file's order."""
    return [text for text, _ in SAMPLES[table].values()]


def secret_cases(table: str) -> list:
    """One `pytest.param(text, secret)` per row of the table, its id the row's kind."""
    return [pytest.param(text, secret, id=kind) for kind, (text, secret) in SAMPLES[table].items()]
