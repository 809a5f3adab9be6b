"""The server floor, run as a process: import psycopg, connect, and ask the HNSW index for the 200 vectors
nearest to one unit vector (what a session start cannot do without). Usage: pg_floor.py URL"""

import sys

import psycopg


def main(url: str) -> None:
    """Print how many ids came back."""
    vector = "[" + ",".join(["0.05103103630798288"] * 384) + "]"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET hnsw.ef_search = 200")
        rows = conn.execute("SELECT id FROM entries WHERE vector_dims(embedding) = 384 ORDER BY "
                            "embedding::vector(384) <=> %s::vector(384) LIMIT 200", (vector,)).fetchall()
    print(len(rows))


if __name__ == "__main__":
    main(sys.argv[1])
