"""PostgreSQL benchmarks (issue 14): session starts and warm searches at 10k, 100k and 1M synthetic entries next
to SQLite, concurrent writers, and EXPLAIN ANALYZE of a session start's queries. `python -m benchmarks postgres`."""
