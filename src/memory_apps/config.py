"""Reads `<project>/.claude/iflow-dev.local.md` with the reference `read_local_md_field` semantics."""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import re
import sys
from dataclasses import dataclass, fields
from typing import Any, Iterator, Optional

from memory_apps.files import read_regular_text

CONFIG_RELATIVE_PATH = os.path.join(".claude", "iflow-dev.local.md")
EMBEDDING_PROVIDERS = ("auto", "none", "local", "gemini", "voyage", "openai", "ollama")
KEYWORD_PROVIDERS = ("auto", "claude", "haiku", "ollama", "local", "off")
_INT = re.compile(r"^-?[0-9]+$")
_FLOAT = re.compile(r"^-?[0-9]*\.[0-9]+$")
# Keys of earlier designs that are read elsewhere or no longer used: known, so never warned about.
RANKINGS = ("spec", "relevance")
INJECTION_STYLES = ("full", "index")
_IGNORED_KEYS = {"memory_relevance_weight"}


@dataclass(frozen=True)
class MemoryConfig:
    """Typed settings; field names are the config keys without the `memory_` prefix. A plain dataclass, not
    pydantic: every value is checked by `_accept` below, and the session-start hook must not pay for
    pydantic's import (ADR 10)."""

    semantic_enabled: bool = True
    injection_enabled: bool = True
    injection_limit: int = 20
    injection_max_chars: int = 12_000
    injection_style: str = "full"
    """`full` (the spec's block, the default) or `index`: the best few entries in full, the others as one line
    of id and name that `get_memory` / `iflow-memory show` expand. The markdown pipeline prints in full either
    way: it runs when the database cannot be read (or is not used), so a listed id could not be read back."""
    vector_weight: float = 0.5
    keyword_weight: float = 0.2
    prominence_weight: float = 0.3
    embedding_provider: str = "auto"
    embedding_model: str = ""
    keyword_provider: str = "auto"
    ranking: str = "spec"
    """`spec` (spec 001's formula, the default) or `relevance` (ADR 18)."""
    database_url: str = ""
    """A PostgreSQL URL (never with a password: see `database_url.py`); empty: the SQLite store."""


def coerce(raw: str) -> Any:
    """Bash-compatible coercion: true/false -> bool, integers -> int, decimals -> float, else str."""
    if raw in ("true", "false"):
        return raw == "true"
    try:
        if _INT.match(raw):
            return int(raw)
        if _FLOAT.match(raw):
            return float(raw)
    except (ValueError, OverflowError):
        pass  # e.g. an integer of thousands of digits: not a usable number
    return raw


def read_field(lines: list[str], key: str) -> Optional[str]:
    """Value of the first line starting with `key:` anywhere in the file, all spaces removed."""
    prefix = f"{key}:"
    for line in lines:
        if line.startswith(prefix):
            return line[len(prefix):].rstrip("\r\n").replace(" ", "")
    return None


def _accept(name: str, value: Any, default: Any) -> tuple[bool, Any]:
    """Check a coerced value against the type and range of its default."""
    if isinstance(default, bool):
        return isinstance(value, bool), value
    if isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
        return ok and (name != "injection_max_chars" or value >= 0), value  # only 0 means "no budget"
    if isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 <= value <= 1.0
        return ok, float(value) if ok else value
    if name == "embedding_provider":
        return str(value) in EMBEDDING_PROVIDERS, str(value)
    if name == "keyword_provider":
        return str(value) in KEYWORD_PROVIDERS, str(value)
    if name == "ranking":
        return str(value) in RANKINGS, str(value)
    if name == "injection_style":
        return str(value) in INJECTION_STYLES, str(value)
    return isinstance(value, (str, int, float)) and not isinstance(value, bool), str(value)


_COLLECTED: contextvars.ContextVar[Optional[list[str]]] = contextvars.ContextVar("config_problems", default=None)


def _warn(path: str, message: str) -> None:
    collected = _COLLECTED.get()
    if collected is not None:
        collected.append(message)
        return
    print(f"iflow-memory: {path}: {message}", file=sys.stderr)


@contextlib.contextmanager
def collected_problems() -> Iterator[list[str]]:
    """Within the block, `load_config` reports its warnings into the yielded list instead of stderr (doctor)."""
    problems: list[str] = []
    token = _COLLECTED.set(problems)
    try:
        yield problems
    finally:
        _COLLECTED.reset(token)


def _expected(name: str, default: Any) -> str:
    """What a key accepts, as its warning says it."""
    choices = {"embedding_provider": EMBEDDING_PROVIDERS, "keyword_provider": KEYWORD_PROVIDERS, "ranking": RANKINGS,
               "injection_style": INJECTION_STYLES}
    if name in choices:
        return "one of " + ", ".join(choices[name])
    if isinstance(default, bool):
        return "true or false"
    if isinstance(default, int):
        return "a whole number"
    if isinstance(default, float):
        return "a number from 0 to 1"
    return "text"


def _unknown_key(key: str, valid: list[str]) -> str:
    import difflib  # only for a file with an unknown key: the session-start hook does not pay for it

    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.75)
    return f"unknown key {key} ignored" + (f" (did you mean {close[0]}?)" if close else "")


def _database_url(path: str, raw: str) -> Optional[str]:
    """The config file's database URL without a password; None (after a warning naming no secret) if unusable."""
    from memory_apps.database_url import DatabaseUrlError, carries_password, without_password

    try:
        if carries_password(raw):
            _warn(path, "memory_database_url: the password written here is ignored; give it in "
                        "IFLOW_MEMORY_DATABASE_URL, PGPASSWORD or ~/.pgpass")
            return without_password(raw)
    except DatabaseUrlError as exc:
        _warn(path, f"memory_database_url: {exc}; using the SQLite store")
        return None
    return raw


def load_config(project_root: str) -> MemoryConfig:
    """Parse the config file (missing file: defaults); bad values and unknown keys warn and use defaults."""
    path = os.path.join(project_root, CONFIG_RELATIVE_PATH)
    try:
        lines = read_regular_text(path).splitlines()
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR):  # there, but a FIFO, a device, huge, unreadable
            _warn(path, f"not read ({exc.strerror}); using the defaults")
        return MemoryConfig()
    defaults = MemoryConfig()
    values: dict[str, Any] = {}
    names = [f.name for f in fields(MemoryConfig)]
    for name in names:
        raw = read_field(lines, f"memory_{name}")
        if raw is None:
            continue
        default = getattr(defaults, name)
        if name == "database_url":
            raw = _database_url(path, raw)
            if raw is None:
                continue
        ok, value = _accept(name, coerce(raw), default)
        if ok:
            values[name] = value
        else:
            _warn(path, f"memory_{name}: invalid value {raw!r}, using default {default!r} "
                        f"(expected {_expected(name, default)})")
    known = {f"memory_{n}" for n in names} | _IGNORED_KEYS
    for line in lines:
        match = re.match(r"^(memory_[A-Za-z0-9_]+):", line)
        if match and match.group(1) not in known:
            _warn(path, _unknown_key(match.group(1), [f"memory_{n}" for n in names]))
            known.add(match.group(1))
    return MemoryConfig(**values)
