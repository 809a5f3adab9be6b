"""Start (or find running) a local PostgreSQL with pgvector for a try-out, and print its URL.

    python scripts/local_postgres.py [DIR]         # start it in DIR (default .demo/pg); prints the URL
    python scripts/local_postgres.py [DIR] --stop  # stop it

The server comes from the `pgserver` package (pip install pgserver: a PostgreSQL 16 with pgvector in the wheel),
listens on a Unix socket inside DIR only, and keeps running after this script ends. It is for trying the team
backend on one machine; a team points IFLOW_MEMORY_DATABASE_URL at its own server instead.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings


def main(argv: list[str] | None = None) -> int:
    """Start or stop the try-out server; print its URL on stdout."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", default=os.path.join(".demo", "pg"),
                        help="where the server keeps its data and socket (default: .demo/pg)")
    parser.add_argument("--stop", action="store_true", help="stop the server running in DIRECTORY")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR not set (it falls back to /tmp)
        try:
            import pgserver
        except ImportError:
            print("local_postgres: pip install pgserver first", file=sys.stderr)
            return 1
        directory = os.path.abspath(args.directory)
        os.makedirs(os.path.dirname(directory), exist_ok=True)
        server = pgserver.get_server(directory, cleanup_mode="stop" if args.stop else None)
        if args.stop:
            server.cleanup()
            print(f"stopped the server in {directory}", file=sys.stderr)
            return 0
        print(server.get_uri())
    return 0


if __name__ == "__main__":
    sys.exit(main())
