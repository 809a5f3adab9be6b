"""Context-query composition (spec 001 D2 step 1)."""

from __future__ import annotations

import re
from typing import Optional

from memory_core.ports.context_source import ProjectContext
from memory_core.safety.redaction import redact_secrets

MAX_DESCRIPTION_WORDS = 100
MAX_FILES = 20
MAX_PASSAGES = 32
_CLAUSE = re.compile(r"(?<=[.;!?])\s+|\n+|:\s")
_NUMBER_PREFIX = re.compile(r"^\d+-")


def compose_context_query(ctx: ProjectContext) -> Optional[str]:
    """Return "{feature}: {description}. Phase: {phase}. Files: {files}", or None with no signals; a secret in
    a spec is redacted (the query is printed in the diagnostic line and may go to an embedding provider)."""
    parts: list[str] = []
    if ctx.feature_slug:
        head = ctx.feature_slug.strip()
        description = " ".join((ctx.feature_description or "").split()[:MAX_DESCRIPTION_WORDS])
        parts.append(f"{head}: {description}" if description else head)
        if ctx.phase:
            parts.append(f"Phase: {ctx.phase}")
    files = [f for f in ctx.changed_files if f.strip()][:MAX_FILES]
    if files:
        parts.append("Files: " + " ".join(files))
    return redact_secrets(". ".join(parts), scanners=False) if parts else None


def query_passages(ctx: ProjectContext) -> list[str]:
    """The feature's own words cut into clauses (ADR 18): slug words and spec sentences, without the phase or
    file paths; each is embedded and searched on its own by the `relevance` ranking. Empty without a feature."""
    if not ctx.feature_slug:
        return []
    slug = _NUMBER_PREFIX.sub("", ctx.feature_slug.strip()).replace("-", " ").replace("_", " ")
    description = " ".join((ctx.feature_description or "").split()[:MAX_DESCRIPTION_WORDS])
    return text_passages(redact_secrets(f"{slug}: {description}" if description else slug, scanners=False))


def text_passages(text: str) -> list[str]:
    """Clauses of two words or more (split at sentence ends, semicolons, colons and line breaks), at most
    MAX_PASSAGES, each once; a text without such a clause is one passage (itself, when not blank)."""
    clauses = list(dict.fromkeys(c.strip() for c in _CLAUSE.split(text) if len(c.split()) >= 2))
    if not clauses:
        return [text.strip()] if text.strip() else []
    return clauses[:MAX_PASSAGES]


def display_query(query: Optional[str], width: int = 30) -> str:
    """Shorten the query for the diagnostic line; 'none' when there is no query."""
    if not query:
        return "none"
    flat = " ".join(query.split()).replace('"', "'")
    return flat[:width] + "..." if len(flat) > width else flat
