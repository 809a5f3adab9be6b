"""`python -m benchmarks viewer`: the local web viewer's pages at 10k entries, on SQLite and on PostgreSQL."""
