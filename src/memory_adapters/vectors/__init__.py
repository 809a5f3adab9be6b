"""Vector indexes: numpy over every stored vector, pgvector on a server; the float32 byte format."""
