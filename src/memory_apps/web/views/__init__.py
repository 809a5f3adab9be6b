"""Pure view-model builders: plain data in, plain data out, no Starlette (unit-tested without a server)."""
