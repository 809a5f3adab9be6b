"""The floor a session start is compared with: import numpy, load every vector from SQLite, one matrix product
with a random query, print the top 20 ids.  Usage: floor.py DATABASE"""

import sqlite3
import sys

import numpy as np


def main(db: str) -> None:
    """Print the ids of the 20 stored vectors closest to a random query."""
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT id, embedding FROM entries").fetchall()
    ids = [r[0] for r in rows]
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4").reshape(len(rows), -1)
    query = np.random.default_rng(0).standard_normal(matrix.shape[1]).astype(np.float32)
    scores = matrix @ query
    top = np.argpartition(-scores, 20)[:20]
    top = top[np.argsort(-scores[top])]
    print("\n".join(ids[i] for i in top))


if __name__ == "__main__":
    main(sys.argv[1])
