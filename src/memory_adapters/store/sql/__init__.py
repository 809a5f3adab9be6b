"""What the SQLite and PostgreSQL stores share: SQL spelled by a dialect."""
