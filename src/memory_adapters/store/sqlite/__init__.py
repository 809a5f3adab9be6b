"""The SQLite entry store: connection, schema, rows, outbox, keyword search, vectors, health, snapshots."""
