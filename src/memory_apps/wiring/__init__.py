"""The composition root: `recipes.py` says what is built from what; `container.py` (dependency-injector, for the
writer, CLI, MCP server and library) and `resolver.py` (the session-start hook) build from it; `adapters.py` and
`adapter_functions.py` are the only doors from the apps into the adapters; `values.py` configures them."""
