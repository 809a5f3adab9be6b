"""Embedding: vectors checked and normalised, the pinned space, the session start's embedding worker."""
