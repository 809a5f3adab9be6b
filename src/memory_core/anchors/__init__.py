"""Anchors: where a learning's references point in the code, and whether that still holds (issue 24)."""
