"""Who may see a memory, in words: every project, or the project it is kept to by its name (the base name of the
root its knowledge bank was imported from), never a raw repository identity. Pure: no Starlette."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional

from memory_core.policies.bank_trust import BANK_PREFIX, bank_record
from memory_core.safety.inert import one_line

EVERY_PROJECT = "every project"


@dataclass(frozen=True)
class SeenBy:
    """Who may see an entry: `text` for the page, `title` the full identity behind it ("" for every project)."""

    text: str
    title: str = ""

    def __str__(self) -> str:
        return self.text


def project_names(bank_items: Mapping[str, str]) -> dict[str, str]:
    """{project identity: project name} from the store's bank records (`metadata_items(BANK_PREFIX)`); a record
    without a root names nothing."""
    names = {}
    for key, value in bank_items.items():
        record = bank_record(value)
        root = str(record.get("root") or "") if record is not None else ""
        name = one_line(root.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1])
        if key.startswith(BANK_PREFIX) and name:
            names[key[len(BANK_PREFIX):]] = name
    return names


def short_identity(identity: str) -> str:
    """A short form of an identity no bank names: `git:` and 8 hex digits of the root commit, a remote's or a
    path's last part."""
    kind, _, rest = identity.partition(":")
    if kind == "git" and rest:
        return f"git:{rest[:8]}"
    if kind in ("remote", "path") and rest.strip("/"):
        return rest.rstrip("/").rsplit("/", 1)[-1]
    return identity if len(identity) <= 24 else identity[:20] + "…"


def seen_by(scope: Optional[str], names: Optional[Mapping[str, str]] = None) -> SeenBy:
    """Who may see an entry of this scope: every project (universal), or the named project it is kept to."""
    if scope is None:
        return SeenBy(EVERY_PROJECT)
    name = (names or {}).get(scope) or short_identity(scope)
    return SeenBy(f"kept to {name}", scope)
