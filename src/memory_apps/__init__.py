"""Apps: the composition root, configuration and the shells (injector, writer, MCP server, CLI).

Library use goes through `memory_apps.MemoryService` (imported lazily, so the hook path stays light).
"""

from __future__ import annotations

from typing import Any

__all__ = ["MemoryService"]


def __getattr__(name: str) -> Any:
    if name == "MemoryService":
        from memory_apps.service import MemoryService

        return MemoryService
    raise AttributeError(name)
