"""Context-query composition (spec 001 D2 step 1)."""

from __future__ import annotations

from typing import Optional

from memory_core.ports.context_source import ProjectContext
from memory_core.redaction import redact_secrets

MAX_DESCRIPTION_WORDS = 100
MAX_FILES = 20


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


def display_query(query: Optional[str], width: int = 30) -> str:
    """Shorten the query for the diagnostic line; 'none' when there is no query."""
    if not query:
        return "none"
    flat = " ".join(query.split()).replace('"', "'")
    return flat[:width] + "..." if len(flat) > width else flat
