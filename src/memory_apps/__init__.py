"""Apps: the composition root, configuration and the shells (injector, writer, CLI)."""
