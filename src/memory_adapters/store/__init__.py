"""Entry stores: SQLite (the default), PostgreSQL (teams), what both share, and copying between them."""
