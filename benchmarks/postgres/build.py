"""`python -m benchmarks postgres-build --sizes 1000000`: build (or find) the databases only, e.g. the 1M one in
the background while smaller sizes are measured."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Optional, Sequence

from benchmarks.postgres.load import build_postgres
from benchmarks.postgres.server import DEFAULT_DATA_DIR, Server
from benchmarks.postgres.setup import bench_project, embedder, log, vector_pool


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    """Build the PostgreSQL databases of --sizes and print their build records."""
    parser = argparse.ArgumentParser(prog=prog, description=" ".join(__doc__.split()))
    parser.add_argument("--sizes", default="1000000", help="comma-separated entry counts")
    parser.add_argument("--url", default=None, help="an existing server (postgresql://…/any)")
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR), help="pgserver data directory (kept)")
    args = parser.parse_args(argv)
    server = Server(args.url, Path(args.data_dir))
    try:
        project, scope = bench_project(Path(args.data_dir).parent / "project")
        pool, texts = vector_pool(embedder())
        for size in (int(s) for s in args.sizes.split(",")):
            print(json.dumps({size: build_postgres(server, size, pool, texts, scope, project, log)}), flush=True)
    finally:
        server.close()
    return 0
