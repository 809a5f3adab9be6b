"""The local web viewer (`iflow-memory ui`, ADR 27): server-rendered pages over `MemoryService`, token-guarded."""
