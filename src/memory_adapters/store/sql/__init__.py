"""What the SQLite and PostgreSQL stores share, written once: the connection both kinds of part are given, the
row reader, the reads and outbox SQL spelled by a dialect, and the policies (query-vector cache, staging swap,
tombstones)."""
