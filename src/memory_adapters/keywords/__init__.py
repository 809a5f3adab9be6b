"""Keyword generators: local extractive, Claude Haiku, Ollama."""
