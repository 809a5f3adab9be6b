"""The PostgreSQL entry store (psycopg + pgvector): connection, schema, rows, outbox, search, vectors, candidates."""
